#include "panels/training_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>

#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
double keptOrEdited(double original, const QDoubleSpinBox* box) {
    const double resolution = 0.5 * std::pow(10.0, -box->decimals());
    return std::abs(box->value() - original) <= resolution ? original : box->value();
}

QDoubleSpinBox* unitBox(QWidget* parent, int decimals, double high) {
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(decimals);
    box->setRange(0.0, high);
    box->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    return box;
}
}  // namespace

QDoubleSpinBox* makeLearningRateBox(QWidget* parent) {
    auto* box = new QDoubleSpinBox(parent);
    box->setDecimals(6);
    box->setRange(0.000001, 10.0);
    box->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
    box->setValue(0.01);
    box->setKeyboardTracking(false);
    setExplainKey(box, QStringLiteral("optimizer.learning_rate"));
    return box;
}

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    m_name = new QLineEdit(this);
    setExplainKey(m_name, QStringLiteral("run.name"));
    m_steps = new QSpinBox(this);
    m_steps->setObjectName(QStringLiteral("stepsBox"));
    m_steps->setRange(0, 2147483647);
    m_steps->setSpecialValueText(tr("until paused"));
    m_steps->setSingleStep(100);
    setExplainKey(m_steps, QStringLiteral("run.steps"));
    m_optimizer = new QComboBox(this);
    m_optimizer->setObjectName(QStringLiteral("optimizerBox"));
    m_optimizer->addItem(QStringLiteral("SGD"), static_cast<int>(OptimizerKind::Sgd));
    m_optimizer->addItem(QStringLiteral("Adam"), static_cast<int>(OptimizerKind::Adam));
    m_learningRate = makeLearningRateBox(this);
    m_learningRate->setObjectName(QStringLiteral("learningRateBox"));

    m_momentum = unitBox(this, 4, 0.9999);
    m_momentum->setObjectName(QStringLiteral("momentumBox"));
    setExplainKey(m_momentum, QStringLiteral("optimizer.momentum"));
    m_nesterov = new QCheckBox(tr("Nesterov"), this);
    setExplainKey(m_nesterov, QStringLiteral("optimizer.momentum"));
    m_beta1 = unitBox(this, 4, 0.9999);
    m_beta2 = unitBox(this, 5, 0.99999);
    m_epsilon = unitBox(this, 10, 1.0);
    m_epsilon->setMinimum(1e-10);
    for (QWidget* widget : {static_cast<QWidget*>(m_beta1), static_cast<QWidget*>(m_beta2), static_cast<QWidget*>(m_epsilon)}) {
        setExplainKey(widget, QStringLiteral("optimizer.adam_parameters"));
    }

    // One form for every row, so the optimizer's own fields line up with those above them (rows
    // of the optimizer not chosen are hidden, updateVisibility).
    m_form = new QFormLayout();
    m_form->addRow(tr("Run name"), m_name);
    m_form->addRow(tr("Steps"), m_steps);
    m_form->addRow(tr("Optimizer"), m_optimizer);
    m_form->addRow(tr("Learning rate"), m_learningRate);
    m_form->addRow(tr("Momentum"), m_momentum);
    m_form->addRow(QString(), m_nesterov);
    m_form->addRow(tr("β1"), m_beta1);
    m_form->addRow(tr("β2"), m_beta2);
    m_form->addRow(tr("ε"), m_epsilon);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addStretch(1);

    connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] {
        updateVisibility();
        emit edited();
    });
    connect(m_learningRate, &QDoubleSpinBox::valueChanged, this, &TrainingPanel::learningRateEdited);
    connect(m_name, &QLineEdit::editingFinished, this, [this] {
        if (m_name->text().toStdString() != m_shown.name) emit edited();
    });
    connect(m_steps, &QSpinBox::valueChanged, this, &TrainingPanel::edited);
    for (QDoubleSpinBox* box : {m_momentum, m_beta1, m_beta2, m_epsilon}) {
        connect(box, &QDoubleSpinBox::valueChanged, this, &TrainingPanel::edited);
    }
    connect(m_nesterov, &QCheckBox::toggled, this, &TrainingPanel::edited);
    updateVisibility();
}

void TrainingPanel::updateVisibility() {
    const bool sgd = m_optimizer->currentData().toInt() == static_cast<int>(OptimizerKind::Sgd);
    for (QWidget* field : {static_cast<QWidget*>(m_momentum), static_cast<QWidget*>(m_nesterov)}) m_form->setRowVisible(field, sgd);
    for (QWidget* field : {m_beta1, m_beta2, m_epsilon}) m_form->setRowVisible(field, !sgd);
    setExplainKey(m_optimizer, sgd ? QStringLiteral("optimizer.type.sgd") : QStringLiteral("optimizer.type.adam"));
}

void TrainingPanel::setConfig(const RunConfig& config) {
    m_shown = config;
    const QList<QWidget*> widgets = findChildren<QWidget*>();
    for (QWidget* widget : widgets) widget->blockSignals(true);
    m_name->setText(QString::fromStdString(config.name));
    m_steps->setValue(static_cast<int>(std::min<std::int64_t>(config.steps, m_steps->maximum())));
    m_optimizer->setCurrentIndex(m_optimizer->findData(static_cast<int>(config.optimizer.type)));
    m_learningRate->setValue(config.optimizer.learningRate);
    m_momentum->setValue(config.optimizer.momentum);
    m_nesterov->setChecked(config.optimizer.nesterov);
    m_beta1->setValue(config.optimizer.beta1);
    m_beta2->setValue(config.optimizer.beta2);
    m_epsilon->setValue(config.optimizer.epsilon);
    for (QWidget* widget : widgets) widget->blockSignals(false);
    updateVisibility();
}

void TrainingPanel::showLearningRate(double rate) {
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(rate);
}

void TrainingPanel::applyTo(RunConfig& config) const {
    const QString name = m_name->text().trimmed();
    config.name = name.isEmpty() ? m_shown.name : name.toStdString();
    config.steps = m_steps->value();
    OptimizerConfig& optimizer = config.optimizer;
    const OptimizerConfig& shown = m_shown.optimizer;
    optimizer.type = static_cast<OptimizerKind>(m_optimizer->currentData().toInt());
    optimizer.learningRate = keptOrEdited(config.optimizer.learningRate, m_learningRate);
    optimizer.momentum = keptOrEdited(shown.momentum, m_momentum);
    optimizer.nesterov = m_nesterov->isChecked();
    optimizer.beta1 = keptOrEdited(shown.beta1, m_beta1);
    optimizer.beta2 = keptOrEdited(shown.beta2, m_beta2);
    optimizer.epsilon = keptOrEdited(shown.epsilon, m_epsilon);
}

}  // namespace distlab::ui
