#pragma once
// The optimizer (SGD with momentum / Nesterov, Adam), the learning rate (applies live) and the run
// itself (name, number of steps).
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;

namespace distlab::ui {

class TrainingPanel : public QWidget {
    Q_OBJECT

public:
    explicit TrainingPanel(QWidget* parent = nullptr);

    /// Shows `config`'s optimizer, name and steps (emits nothing).
    void setConfig(const RunConfig& config);
    /// Writes the edited fields (values the user did not touch keep their exact value).
    void applyTo(RunConfig& config) const;
    /// Shows a learning rate set elsewhere (the toolbar) without emitting.
    void showLearningRate(double rate);

    QDoubleSpinBox& learningRateBox() const { return *m_learningRate; }
    QComboBox& optimizerBox() const { return *m_optimizer; }
    QSpinBox& stepsBox() const { return *m_steps; }

signals:
    /// A change that needs a new run (optimizer type, its parameters, steps, name).
    void edited();
    /// The learning rate changed: it applies live, no reset.
    void learningRateEdited(double rate);

private:
    void updateVisibility();

    RunConfig m_shown;
    QLineEdit* m_name;
    QSpinBox* m_steps;
    QComboBox* m_optimizer;
    QDoubleSpinBox* m_learningRate;
    QFormLayout* m_form;
    QDoubleSpinBox* m_momentum;
    QCheckBox* m_nesterov;
    QDoubleSpinBox* m_beta1;
    QDoubleSpinBox* m_beta2;
    QDoubleSpinBox* m_epsilon;
};

/// The learning rate spin box used in the panel and the toolbar (1e-6 to 10, adaptive steps).
QDoubleSpinBox* makeLearningRateBox(QWidget* parent);

}  // namespace distlab::ui
