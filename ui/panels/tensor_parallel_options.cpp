#include "panels/tensor_parallel_options.hpp"

#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStringList>

#include <distlab/config/run_limits.hpp>
#include <distlab/config/tensor_parallel_plan.hpp>

#include "count_text.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

TensorParallelOptions::TensorParallelOptions(QWidget* parent) : QWidget(parent) {
    m_devices = new QSpinBox(this);
    m_devices->setObjectName(QStringLiteral("tensorParallelBox"));
    m_devices->setRange(1, static_cast<int>(run_limits::kMaxTensorParallel));
    setCountSuffix(*m_devices, tr("device"), tr("devices"));
    setExplainKey(m_devices, QStringLiteral("strategy.tensor_parallel"));
    m_copies = new QSpinBox(this);
    m_copies->setObjectName(QStringLiteral("dataParallelBox"));
    m_copies->setRange(1, static_cast<int>(run_limits::kMaxReplicas));
    setCountSuffix(*m_copies, tr("copy"), tr("copies"));
    setExplainKey(m_copies, QStringLiteral("strategy.data_parallel"));
    m_split = explanationLabel(this);
    m_split->setObjectName(QStringLiteral("tensorParallelSplitText"));
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Devices (tp)"), m_devices);
    form->addRow(tr("Data-parallel copies (dp)"), m_copies);
    form->addRow(m_split);
    for (QSpinBox* box : {m_devices, m_copies})
        connect(box, &QSpinBox::valueChanged, this, [this] {
            describe();
            if (!m_showing) emit edited();
        });
}

void TensorParallelOptions::setConfig(const RunConfig& config) {
    // Not a QSignalBlocker: the box's suffix follows its value through valueChanged.
    m_showing = true;
    m_model = config.model;
    // Another strategy's config shows the smallest split that is one.
    const bool tensorParallel = config.strategy.type == StrategyKind::TensorParallel;
    m_devices->setValue(tensorParallel ? static_cast<int>(config.strategy.tensorParallel) : 2);
    m_copies->setValue(tensorParallel ? static_cast<int>(config.strategy.dataParallel) : 1);
    m_showing = false;
    describe();
}

void TensorParallelOptions::setModel(const ModelConfig& model) {
    m_model = model;
    describe();
}

void TensorParallelOptions::applyTo(StrategyConfig& strategy) const {
    strategy.tensorParallel = m_devices->value();
    strategy.dataParallel = m_copies->value();
    strategy.devices.clear();
    for (int d = 0; d < m_devices->value() * m_copies->value(); ++d) strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, d});
    strategy.gradientAccumulationSteps = 1;
}

void TensorParallelOptions::describe() {
    const int tp = m_devices->value();
    const auto plan = planTensorParallel(m_model, 0, tp);
    if (!plan) {
        m_split->setText(QString::fromStdString(plan.error().message));
        m_split->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
        return;
    }
    m_split->setStyleSheet(QString());
    QStringList layers;
    int forward = 0, backward = 0;
    for (const TensorParallelLayer& layer : *plan) {
        const QString name = QString::fromStdString(m_model.layers[layer.layer].name.empty() ? "dense_" + std::to_string(layer.layer)
                                                                                             : m_model.layers[layer.layer].name);
        switch (layer.role) {
            case TensorParallelRole::Column:
                layers << tr("%1 by columns (%2 of %3 each)").arg(name).arg(layer.units / tp).arg(layer.units);
                if (layer.layer > 0) ++backward;
                break;
            case TensorParallelRole::Row:
                layers << tr("%1 by rows, then summed").arg(name);
                ++forward;
                break;
            case TensorParallelRole::Replicated:
                layers << tr("%1 whole on every device").arg(name);
                break;
        }
    }
    const int copies = m_copies->value();
    const QString devices = copies == 1 ? tr("cpu:0 – cpu:%1, every one computing the whole batch").arg(tp - 1)
                                        : tr("%1 copies of cpu:0 – cpu:%2 (copy c's device d is cpu:c·%3+d), each copy's devices "
                                             "computing its 1/%1 of the batch")
                                              .arg(copies)
                                              .arg(tp - 1)
                                              .arg(tp);
    QString text = tr("%1: %2. A step all-reduces %3 forward and %4 backward among a copy's devices.")
                       .arg(devices, layers.join(QStringLiteral("; ")), countText(forward, tr("activation"), tr("activations")),
                            countText(backward, tr("input gradient"), tr("input gradients")));
    if (copies > 1) text += tr(" Then each device sums its share of the gradient with the same device of the other copies.");
    m_split->setText(text);
}

}  // namespace distlab::ui
