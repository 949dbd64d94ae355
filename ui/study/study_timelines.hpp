#pragma once
// A study's device timelines as small multiples: one timeline per variant (the same painter as the
// run's Timeline view), its last few updates, every one on the same time scale so that the same
// length is the same time in every variant. Overlaying Gantt lanes of several variants would hide
// them behind each other, so timelines come only as small multiples; the phase shares side by side
// are the summary table's. Fed from StudyController's copies. GUI thread.
#include <QWidget>

#include <cstdint>
#include <memory>
#include <vector>

class QLabel;
class QSpinBox;
class QVBoxLayout;

namespace distlab::ui {

class StudyController;
class StudyTimelineSource;
class TimelineCanvas;

class StudyTimelines : public QWidget {
    Q_OBJECT

public:
    explicit StudyTimelines(StudyController& controller, QWidget* parent = nullptr);
    ~StudyTimelines() override;

    /// How many of each variant's latest updates are drawn (1 to the kept 32).
    void setUpdatesShown(int updates);
    int updatesShown() const;
    /// Redraws from the controller's copies when they changed.
    void refresh();
    /// The time every canvas spans (nanoseconds): the longest of the variants' shown updates.
    std::int64_t sharedSpanNs() const { return m_spanNs; }
    const std::vector<TimelineCanvas*>& canvases() const { return m_canvases; }
    /// Per variant: "4 updates, mean 12.3 ms".
    const std::vector<QLabel*>& captions() const { return m_captions; }

private:
    void rebuild();

    StudyController& m_controller;
    QSpinBox* m_updates;
    QVBoxLayout* m_rows;
    std::vector<std::unique_ptr<StudyTimelineSource>> m_sources;
    std::vector<TimelineCanvas*> m_canvases;
    std::vector<QLabel*> m_captions;
    std::vector<QWidget*> m_rowWidgets;
    std::uint64_t m_drawn = 0;
    std::uint64_t m_builtFor = 0;  // the study generation the rows were built for (0: none yet)
    std::int64_t m_spanNs = 0;
};

}  // namespace distlab::ui
