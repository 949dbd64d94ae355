#pragma once
// Learning curves: training loss and accuracy of every step, test loss and accuracy of the live
// evaluations, with TensorBoard's debiased EMA smoothing and a step or wall-time x axis.
#include <cstdint>

#include "views/chart_feeder.hpp"
#include "views/live_view.hpp"

class QComboBox;
class QLabel;
class QSlider;

namespace distlab::ui {

class LineChart;

class LearningView : public LiveView {
    Q_OBJECT

public:
    explicit LearningView(SessionController& controller, QWidget* parent = nullptr);

    /// The EMA weight in [0, 0.99] (TensorBoard's "smoothing").
    double smoothing() const;
    void setSmoothing(double weight);
    LineChart& lossChart() const { return *m_loss; }
    LineChart& accuracyChart() const { return *m_accuracy; }

protected:
    bool refresh() override;

private:
    LineChart* m_loss;
    LineChart* m_accuracy;
    QSlider* m_smoothing;
    QLabel* m_smoothingValue;
    QComboBox* m_axis;
    ChartTurns m_turns{2};  // loss, accuracy
    std::pair<double, double> m_sharedRange{0.0, 0.0};  // both charts' x range
};

}  // namespace distlab::ui
