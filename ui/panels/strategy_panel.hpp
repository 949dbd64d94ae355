#pragma once
// The distribution strategy, limited to what the engine runs today: one device, mirrored or central
// storage on logical CPU devices (as many as the engine accepts, run_limits.hpp), the cross-device
// reduction and packing (ReductionOptions),
// gradient accumulation, parameter servers (their knobs in ParameterServerOptions) and multi-worker
// mirrored, a cluster of processes the app starts (ClusterOptions), the split models, pipeline
// and model_parallel (PipelineOptions), and tensor parallelism (TensorParallelOptions). Every
// choice shows its explanation beside the control.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class ClusterOptions;
class ParameterServerOptions;
class PipelineOptions;
class TensorParallelOptions;
class ReductionOptions;

class StrategyPanel : public QWidget {
    Q_OBJECT

public:
    explicit StrategyPanel(QWidget* parent = nullptr);

    /// Shows `config`'s strategy and its batch split (emits nothing).
    void setConfig(const RunConfig& config);
    /// Writes the strategy; the device list is kept as loaded unless the count or type changed.
    void applyTo(RunConfig& config) const;
    /// Updates the "global batch = replicas × ..." line for a new global batch size.
    void setGlobalBatch(std::int64_t globalBatch);
    /// The model as the Model page has it now: tensor parallelism says how it splits.
    void setModel(const ModelConfig& model);

    QComboBox& typeBox() const { return *m_type; }
    QSpinBox& devicesBox() const { return *m_devices; }
    QComboBox& reductionBox() const;
    ReductionOptions& reductionOptions() const { return *m_reduction; }
    QSpinBox& accumulationBox() const { return *m_accumulation; }
    ParameterServerOptions& parameterServerOptions() const { return *m_parameterServers; }
    ClusterOptions& clusterOptions() const { return *m_cluster; }
    PipelineOptions& pipelineOptions() const { return *m_pipeline; }
    TensorParallelOptions& tensorParallelOptions() const { return *m_tensorParallel; }

signals:
    void edited();

private:
    void updateExplanations();
    StrategyKind type() const;

    StrategyConfig m_shown;
    std::int64_t m_globalBatch = 32;
    QComboBox* m_type;
    QLabel* m_typeText;
    QWidget* m_mirroredGroup;
    QLabel* m_devicesTitle;
    QSpinBox* m_devices;
    QLabel* m_devicesText;
    ReductionOptions* m_reduction;
    ParameterServerOptions* m_parameterServers;
    ClusterOptions* m_cluster;
    PipelineOptions* m_pipeline;
    TensorParallelOptions* m_tensorParallel;
    QWidget* m_accumulationGroup;
    QSpinBox* m_accumulation;
    QLabel* m_accumulationText;
    QLabel* m_batchText;
};

}  // namespace distlab::ui
