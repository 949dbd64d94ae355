#pragma once
// The knobs of tensor parallelism in the Strategy page: its devices (tp), its data-parallel copies
// (dp), and what the current
// model becomes under them: which layers are split by columns or by rows, which run whole, and the
// all-reduces a step makes (or why the model cannot be split). Emits edited() on any change.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QLabel;
class QSpinBox;

namespace distlab::ui {

class TensorParallelOptions : public QWidget {
    Q_OBJECT

public:
    explicit TensorParallelOptions(QWidget* parent = nullptr);

    /// Shows `config`'s tensor-parallel keys and model (emits nothing).
    void setConfig(const RunConfig& config);
    /// The model the split is described for, as the Model page has it now.
    void setModel(const ModelConfig& model);
    /// Writes tensor_parallel and the devices it makes into `strategy`.
    void applyTo(StrategyConfig& strategy) const;

    QSpinBox& devicesBox() const { return *m_devices; }
    QSpinBox& copiesBox() const { return *m_copies; }
    QLabel& splitText() const { return *m_split; }

signals:
    void edited();

private:
    void describe();

    ModelConfig m_model;
    bool m_showing = false;  ///< setConfig is filling the box
    QSpinBox* m_devices;
    QSpinBox* m_copies;
    QLabel* m_split;
};

}  // namespace distlab::ui
