#pragma once
// Paints one step of a split model's schedule (a ScheduleSnapshot): a lane per device, each
// micro-batch's forward and backward as a cell in the micro-batch's colour (backward darker) with
// its label, the time a device runs nothing shaded as its bubble; below the lanes, each device's
// activation memory over the step (heldActivations). Shows the first `cellsShown` cells in time
// order (stepping through a schedule; the memory up to the last of them); all by default. GUI
// thread only.
#include <QWidget>

#include <memory>

#include <distlab/telemetry/schedule_snapshot.hpp>

namespace distlab::ui {

class ScheduleCanvas : public QWidget {
    Q_OBJECT

public:
    explicit ScheduleCanvas(QWidget* parent = nullptr);

    void setSchedule(std::shared_ptr<const ScheduleSnapshot> schedule);
    const ScheduleSnapshot* schedule() const { return m_schedule.get(); }
    /// Cells of every lane, in the order they began.
    int cellCount() const { return static_cast<int>(m_order.size()); }
    /// Paints only the first `count` cells in time order; -1: all.
    void setCellsShown(int count);
    int cellsShown() const { return m_cellsShown < 0 ? cellCount() : m_cellsShown; }
    /// The cell painted last when stepping ("B3 on cpu:1, stage 1"), empty when all are shown.
    QString currentCellText() const;
    /// Cells painted by the last paint (for tests).
    int cellsPainted() const { return m_cellsPainted; }

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Placed {
        int lane;
        int index;  // in the lane
    };
    QRectF cellRect(const ScheduleCell& cell, int lane) const;
    void paintHeldActivations(class QPainter& painter);
    QString describe(const ScheduleCell& cell, int lane) const;

    std::shared_ptr<const ScheduleSnapshot> m_schedule;
    std::vector<Placed> m_order;  // every cell, by begin time
    int m_cellsShown = -1;
    int m_cellsPainted = 0;
};

/// Cell label: "F3" for micro-batch 3's forward, "B3" for its backward; "F3·s2" where a device
/// holds several stages (interleaved, model_parallel).
QString scheduleCellLabel(const ScheduleCell& cell, bool showStage);

}  // namespace distlab::ui
