#pragma once
// Per-replica view: a chosen parameter element on every replica, every replica's gradient norm
// before and after the reduction, each replica's local loss, and the spread between the copies.
#include <QStringList>

#include <cstdint>

#include "views/chart_feeder.hpp"
#include "views/live_view.hpp"

class QComboBox;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class LineChart;

class ReplicaView : public LiveView {
    Q_OBJECT

public:
    explicit ReplicaView(SessionController& controller, QWidget* parent = nullptr);

    /// Follows element `element` of the parameter named `name` (e.g. "dense_0/kernel"); false if unknown.
    bool watch(const QString& name, std::int64_t element);
    QComboBox& parameterBox() const { return *m_parameter; }
    LineChart& valueChart() const { return *m_value; }
    LineChart& gradientChart() const { return *m_gradient; }
    LineChart& lossChart() const { return *m_loss; }
    LineChart& spreadChart() const { return *m_spread; }
    /// Where the per-replica curves have no points because the window was too busy (hidden when none).
    QLabel& detailGapNote() const { return *m_gapNote; }

protected:
    bool refresh() override;

private:
    void updateParameters();
    void applyWatch();
    QString watchedLabel() const;

    QWidget* m_watchControls;  // the parameter and element to follow
    QComboBox* m_parameter;
    QSpinBox* m_element;
    QLabel* m_elementLabel;
    QLabel* m_gapNote;
    LineChart* m_value;
    LineChart* m_gradient;
    LineChart* m_loss;
    LineChart* m_spread;
    QStringList m_names;
    ChartTurns m_turns{4};  // value, gradient, loss, spread: one per frame while training runs
};

}  // namespace distlab::ui
