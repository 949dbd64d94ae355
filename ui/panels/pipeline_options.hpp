#pragma once
// The knobs of a split model in the Strategy page: for a pipeline its stages (devices), schedule,
// virtual stages, data-parallel copies and how stages are balanced; for both pipeline and model_parallel the micro-batches and the clock;
// and the schedule's bubble formula for the current choice. Emits edited() on any change.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class PipelineOptions : public QWidget {
    Q_OBJECT

public:
    explicit PipelineOptions(QWidget* parent = nullptr);

    /// Shows `config`'s split-model keys (emits nothing).
    void setConfig(const RunConfig& config);
    /// Writes them into `config` for a strategy of `type` (pipeline or model_parallel), its devices
    /// included (from the stages, or the layers' devices: the model must be in `config` already).
    void applyTo(RunConfig& config, StrategyKind type) const;
    /// Shows the controls of `type` and the bubble for the global batch `globalBatch`.
    void showFor(StrategyKind type, std::int64_t globalBatch);

    QSpinBox& stagesBox() const { return *m_stages; }
    QSpinBox& microBatchesBox() const { return *m_microBatches; }
    QComboBox& scheduleBox() const { return *m_schedule; }
    QSpinBox& virtualStagesBox() const { return *m_virtualStages; }
    QSpinBox& dataParallelBox() const { return *m_copies; }
    QComboBox& balanceBox() const { return *m_balance; }
    QComboBox& clockBox() const { return *m_clock; }
    QLabel& bubbleText() const { return *m_bubble; }

signals:
    void edited();

private:
    PipelineSchedule schedule() const;

    StrategyKind m_type = StrategyKind::Pipeline;
    bool m_showing = false;  ///< setConfig is filling the boxes
    std::int64_t m_globalBatch = 32;
    QWidget* m_pipelineOnly;
    QSpinBox* m_stages;
    QSpinBox* m_microBatches;
    QComboBox* m_schedule;
    QLabel* m_virtualStagesTitle;
    QSpinBox* m_virtualStages;
    QSpinBox* m_copies;    ///< data-parallel copies of the pipeline (dp)
    QComboBox* m_balance;  ///< how stages no layer names are balanced
    QComboBox* m_clock;
    QLabel* m_placement;
    QLabel* m_bubble;
};

}  // namespace distlab::ui
