#pragma once
// The Schedule tab of a split model (pipeline, model_parallel): the latest step's passes on each
// device (ScheduleCanvas), each device's measured bubble in that step and over the run beside the
// schedule's closed form and what it assumes, and controls to hold a step and walk through it
// pass by pass.
#include "views/live_view.hpp"

#include <memory>

#include <distlab/telemetry/schedule_snapshot.hpp>

class QCheckBox;
class QLabel;
class QPushButton;

namespace distlab::ui {

class ScheduleCanvas;

class ScheduleView : public LiveView {
    Q_OBJECT

public:
    explicit ScheduleView(SessionController& controller, QWidget* parent = nullptr);

    ScheduleCanvas& canvas() const { return *m_canvas; }
    QCheckBox& holdBox() const { return *m_hold; }
    QPushButton& nextButton() const { return *m_next; }
    QPushButton& previousButton() const { return *m_previous; }
    QLabel& bubbleLabel() const { return *m_bubbles; }

protected:
    bool refresh() override;

private:
    /// Walks `delta` passes through the held step (holding it).
    void stepBy(int delta);
    void showBubbles(const ScheduleSnapshot& schedule);
    void updateStepText();

    ScheduleCanvas* m_canvas;
    QLabel* m_title;
    QLabel* m_bubbles;
    QLabel* m_cellText;
    QCheckBox* m_hold;
    QPushButton* m_previous;
    QPushButton* m_next;
    QPushButton* m_all;
};

/// The closed form of a schedule's bubble for the snapshot's shape, as a formula with its value:
/// "(p − 1)/(m + p − 1) = 3/11 = 27.3 %".
QString bubbleFormulaText(const ScheduleSnapshot& schedule);

}  // namespace distlab::ui
