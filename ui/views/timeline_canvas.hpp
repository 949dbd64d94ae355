#pragma once
// Paints a device timeline (a Gantt chart of the last steps): one lane per logical device,
// compute / communication / waiting / optimizer / idle spans from the engine's own clocks, from a
// TimelineSource (the live run's, or a study variant's). The visible window is
// [startNs, startNs + spanNs] on the source's clock. GUI thread only.
#include <QStringList>
#include <QWidget>

#include <cstdint>

namespace distlab::ui {

class TimelineSource;

class TimelineCanvas : public QWidget {
    Q_OBJECT

public:
    explicit TimelineCanvas(QWidget* parent = nullptr);

    /// What to paint (not owned; null paints the lane names only).
    void setSource(const TimelineSource* source) { m_source = source; }
    void setLaneNames(const QStringList& names) { m_laneNames = names; }
    const QStringList& laneNames() const { return m_laneNames; }
    void setWindow(std::int64_t startNs, std::int64_t spanNs);
    std::int64_t windowStartNs() const { return m_startNs; }
    std::int64_t windowSpanNs() const { return m_spanNs; }
    /// Spans painted by the last paint (for tests).
    std::int64_t spansPainted() const { return m_spansPainted; }

signals:
    /// Ctrl+wheel over the canvas: zoom by `factor` around time `anchorNs`.
    void zoomRequested(double factor, std::int64_t anchorNs);
    /// Wheel without Ctrl: scroll by `deltaNs`.
    void scrollRequested(std::int64_t deltaNs);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    bool event(QEvent* event) override;

private:
    int laneTop(int lane) const;
    int laneHeight() const;
    double xOf(std::int64_t ns) const;
    std::int64_t nsAt(double x) const;
    QString describeAt(const QPoint& position) const;

    const TimelineSource* m_source = nullptr;
    QStringList m_laneNames;
    std::int64_t m_startNs = 0;
    std::int64_t m_spanNs = 1'000'000;
    std::int64_t m_spansPainted = 0;
};

}  // namespace distlab::ui
