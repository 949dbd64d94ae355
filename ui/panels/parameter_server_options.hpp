#pragma once
// The knobs of the parameter_server strategy in the Strategy page: workers, parameter servers,
// asynchronous or synchronous updates, gradients to aggregate, the partitioner and every worker's
// speed, each with its explanation beside it. Emits edited() on any change; the main window applies
// the mode and the speeds live and asks to reset for the rest. GUI thread only.
#include <QWidget>

#include <array>

#include <distlab/config/run_config.hpp>
#include <distlab/config/run_limits.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class ParameterServerOptions : public QWidget {
    Q_OBJECT

public:
    // The engine's bounds (run_limits.hpp): a config it accepts shows as it is, never clamped.
    static constexpr int kMaxWorkers = static_cast<int>(run_limits::kMaxWorkers);
    static constexpr int kMaxServers = static_cast<int>(run_limits::kMaxParameterServers);

    explicit ParameterServerOptions(QWidget* parent = nullptr);

    /// Shows `strategy`'s parameter-server keys (emits nothing).
    void setStrategy(const StrategyConfig& strategy);
    /// Writes the parameter-server keys into `strategy` (the other keys are left alone).
    void applyTo(StrategyConfig& strategy) const;

    QSpinBox& workersBox() const { return *m_workers; }
    QSpinBox& serversBox() const { return *m_servers; }
    QComboBox& modeBox() const { return *m_mode; }
    QSpinBox& aggregateBox() const { return *m_aggregate; }
    QComboBox& partitionerBox() const { return *m_partitioner; }
    QSpinBox& partitionerNumberBox() const { return *m_partitionerNumber; }
    QDoubleSpinBox& speedBox(int worker) const { return *m_speeds[static_cast<std::size_t>(worker)]; }

signals:
    void edited();

private:
    void updateVisibility();
    void showPartitionerNumber();
    PartitionerConfig::Kind partitionerKind() const;

    StrategyConfig m_shown;
    QSpinBox* m_workers;
    QSpinBox* m_servers;
    QComboBox* m_mode;
    QLabel* m_modeText;
    QWidget* m_aggregateRow;
    QSpinBox* m_aggregate;
    QComboBox* m_partitioner;
    QSpinBox* m_partitionerNumber;
    QSpinBox* m_maxShards;
    std::array<QDoubleSpinBox*, kMaxWorkers> m_speeds{};
};

}  // namespace distlab::ui
