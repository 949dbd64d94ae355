#pragma once
// A study's curves: as overlays (one chart per metric, every variant on it) or as small multiples
// (one chart per variant for the chosen metric, one y range for all), against updates or training
// seconds, smoothed with the Learning view's control (SmoothingControl); a cursor that moves
// together on every chart and names each variant's value there. Fed from StudyController's copies.
// GUI thread.
#include <QWidget>

#include <cstdint>
#include <vector>

class QComboBox;
class QGridLayout;

namespace distlab::ui {

class LineChart;
class SmoothingControl;
class StudyController;

/// What a study chart plots.
enum class StudyMetric { Loss, Accuracy, StepMs, SamplesPerSecond, CommunicationMs, WaitingMs, Count };

class StudyCharts : public QWidget {
    Q_OBJECT

public:
    explicit StudyCharts(StudyController& controller, QWidget* parent = nullptr);

    enum class Layout { Overlay, SmallMultiples };
    void setLayoutMode(Layout layout);
    Layout layoutMode() const;
    /// The metric small multiples show.
    void setMetric(StudyMetric metric);
    /// X axis: updates (false) or training seconds (true).
    void setWallTime(bool on);
    /// The smoothing slider (the Learning view's class); its weight smooths every curve per update.
    SmoothingControl& smoothing() const { return *m_smoothing; }
    /// Redraws from the controller's copies when they changed.
    void refresh();
    /// Puts the cursor at data x `x` on every chart (NaN removes it), as moving the pointer does.
    void setCursorX(double x);
    const std::vector<LineChart*>& charts() const { return m_charts; }
    static QString metricName(StudyMetric metric);
    /// The colour of variant `variant` on every chart and in the table.
    static QColor variantColor(int variant);

private:
    void rebuild();
    void fill(LineChart& chart, StudyMetric metric, int onlyVariant);
    /// "ring: 0.412\nhierarchical: 0.398" at data x `x` for the variants a chart shows.
    QString cursorText(StudyMetric metric, int onlyVariant, double x) const;

    StudyController& m_controller;
    QComboBox* m_layout;
    QComboBox* m_metric;
    QComboBox* m_axis;
    SmoothingControl* m_smoothing;
    QGridLayout* m_grid;
    std::vector<LineChart*> m_charts;
    std::vector<StudyMetric> m_chartMetric;  // per chart
    std::vector<int> m_chartVariant;         // per chart: -1 for every variant
    std::uint64_t m_drawn = 0;
    std::uint64_t m_builtFor = 0;  // the study generation the charts were built for (0: none yet)
    double m_cursorX;
};

}  // namespace distlab::ui
