#pragma once
// Learning curves: training loss and accuracy of every step, test loss and accuracy of the live
// evaluations, with TensorBoard's debiased EMA smoothing and a step or wall-time x axis.
#include <cstdint>

#include "bridge/run_history.hpp"
#include "views/chart_feeder.hpp"
#include "views/live_view.hpp"

class QComboBox;

namespace distlab::ui {

class LineChart;
class SmoothingControl;

class LearningView : public LiveView {
    Q_OBJECT

public:
    explicit LearningView(SessionController& controller, QWidget* parent = nullptr);

    /// The EMA weight in [0, 0.99] (TensorBoard's "smoothing").
    double smoothing() const;
    void setSmoothing(double weight);
    /// Draws `reference`'s curves (a saved run, ui/saved_run_files.hpp) dashed beside the live ones,
    /// named `label`; null removes them. `reference` must outlive the view or the next call.
    void setReference(const RunHistory* reference, const QString& label);
    const RunHistory* reference() const { return m_reference; }
    LineChart& lossChart() const { return *m_loss; }
    LineChart& accuracyChart() const { return *m_accuracy; }

protected:
    bool refresh() override;

private:
    /// The reference run's curves of `train` and `test`, when one is set.
    void addReferenceCurves(std::vector<Curve>& curves, GlobalSeries train, GlobalSeries test, double weight) const;

    const RunHistory* m_reference = nullptr;
    QString m_referenceLabel;
    LineChart* m_loss;
    LineChart* m_accuracy;
    SmoothingControl* m_smoothing;
    QComboBox* m_axis;
    ChartTurns m_turns{2};                              // loss, accuracy
    std::pair<double, double> m_sharedRange{0.0, 0.0};  // both charts' x range
};

}  // namespace distlab::ui
