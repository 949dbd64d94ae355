#include "panels/strategy_panel.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

#include <limits>

#include <distlab/config/run_limits.hpp>

#include "count_text.hpp"
#include "panels/cluster_options.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"
#include "panels/gpu_note.hpp"
#include "panels/parameter_server_options.hpp"
#include "panels/pipeline_options.hpp"
#include "panels/reduction_options.hpp"
#include "panels/tensor_parallel_options.hpp"

namespace distlab::ui {

StrategyPanel::StrategyPanel(QWidget* parent) : QWidget(parent) {
    m_type = new QComboBox(this);
    m_type->setObjectName(QStringLiteral("strategyTypeBox"));
    m_type->addItem(tr("One device"), static_cast<int>(StrategyKind::OneDevice));
    m_type->addItem(tr("Mirrored"), static_cast<int>(StrategyKind::Mirrored));
    m_type->addItem(tr("Central storage"), static_cast<int>(StrategyKind::CentralStorage));
    m_type->addItem(tr("Parameter servers"), static_cast<int>(StrategyKind::ParameterServer));
    m_type->addItem(tr("Multi-worker mirrored"), static_cast<int>(StrategyKind::MultiWorkerMirrored));
    m_type->addItem(tr("Pipeline"), static_cast<int>(StrategyKind::Pipeline));
    m_type->addItem(tr("Model parallel (layer placement)"), static_cast<int>(StrategyKind::ModelParallel));
    m_type->addItem(tr("Tensor parallel"), static_cast<int>(StrategyKind::TensorParallel));
    m_typeText = explanationLabel(this);

    m_mirroredGroup = new QWidget(this);
    m_devices = new QSpinBox(m_mirroredGroup);
    m_devices->setObjectName(QStringLiteral("devicesBox"));
    // The engine's bounds, so a config it accepts shows as it is: a lower maximum would clamp a
    // 16-replica config and the next edit would rewrite its devices.
    m_devices->setRange(1, static_cast<int>(run_limits::kMaxReplicas));
    setCountSuffix(*m_devices, tr("logical CPU device"), tr("logical CPU devices"));
    setExplainKey(m_devices, QStringLiteral("strategy.devices"));
    m_devicesText = explanationLabel(m_mirroredGroup);
    m_reduction = new ReductionOptions(m_mirroredGroup);
    auto* mirroredForm = new QFormLayout(m_mirroredGroup);
    mirroredForm->setContentsMargins(0, 0, 0, 0);
    mirroredForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    m_devicesTitle = new QLabel(tr("Replicas"), m_mirroredGroup);
    mirroredForm->addRow(m_devicesTitle, m_devices);
    mirroredForm->addRow(m_devicesText);
    mirroredForm->addRow(new GpuNote(m_mirroredGroup));
    mirroredForm->addRow(m_reduction);

    m_cluster = new ClusterOptions(this);
    m_parameterServers = new ParameterServerOptions(this);
    m_pipeline = new PipelineOptions(this);
    m_tensorParallel = new TensorParallelOptions(this);
    m_accumulationGroup = new QWidget(this);
    m_accumulation = new QSpinBox(m_accumulationGroup);
    m_accumulation->setObjectName(QStringLiteral("accumulationBox"));
    // No bound in the engine but the batch's (it must divide among replicas × steps).
    m_accumulation->setRange(1, std::numeric_limits<int>::max());
    setCountSuffix(*m_accumulation, tr("micro-step"), tr("micro-steps"));
    setExplainKey(m_accumulation, QStringLiteral("strategy.gradient_accumulation_steps"));
    m_accumulationText = explanationLabel(m_accumulationGroup);
    m_batchText = new QLabel(this);
    m_batchText->setWordWrap(true);
    setExplainKey(m_batchText, QStringLiteral("data.global_batch_size"));

    auto* form = new QFormLayout();
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Strategy"), m_type);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_typeText);
    layout->addWidget(m_mirroredGroup);
    layout->addWidget(m_cluster);
    layout->addWidget(m_parameterServers);
    layout->addWidget(m_pipeline);
    layout->addWidget(m_tensorParallel);
    auto* accumulationForm = new QFormLayout(m_accumulationGroup);
    accumulationForm->setContentsMargins(0, 0, 0, 0);
    accumulationForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    accumulationForm->addRow(tr("Accumulation"), m_accumulation);
    accumulationForm->addRow(m_accumulationText);
    layout->addWidget(m_accumulationGroup);
    layout->addWidget(m_batchText);
    layout->addStretch(1);

    auto changed = [this] {
        updateExplanations();
        emit edited();
    };
    connect(m_type, &QComboBox::currentIndexChanged, this, changed);
    connect(m_devices, &QSpinBox::valueChanged, this, changed);
    connect(m_reduction, &ReductionOptions::edited, this, changed);
    connect(m_accumulation, &QSpinBox::valueChanged, this, changed);
    connect(m_parameterServers, &ParameterServerOptions::edited, this, changed);
    connect(m_cluster, &ClusterOptions::edited, this, changed);
    connect(m_pipeline, &PipelineOptions::edited, this, changed);
    connect(m_tensorParallel, &TensorParallelOptions::edited, this, changed);
    updateExplanations();
}

QComboBox& StrategyPanel::reductionBox() const { return m_reduction->algorithmBox(); }

StrategyKind StrategyPanel::type() const { return static_cast<StrategyKind>(m_type->currentData().toInt()); }

void StrategyPanel::setConfig(const RunConfig& config) {
    m_shown = config.strategy;
    m_globalBatch = config.data.globalBatchSize;
    const QSignalBlocker typeBlocker(m_type);
    const QSignalBlocker devicesBlocker(m_devices);
    const QSignalBlocker accumulationBlocker(m_accumulation);
    m_type->setCurrentIndex(std::max(0, m_type->findData(static_cast<int>(config.strategy.type))));
    m_devices->setValue(static_cast<int>(config.strategy.replicaCount()));
    m_reduction->setStrategy(config.strategy);
    m_accumulation->setValue(static_cast<int>(config.strategy.gradientAccumulationSteps));
    m_parameterServers->setStrategy(config.strategy);
    m_cluster->setConfig(config);
    m_pipeline->setConfig(config);
    m_tensorParallel->setConfig(config);
    updateExplanations();
}

void StrategyPanel::setModel(const ModelConfig& model) { m_tensorParallel->setModel(model); }

void StrategyPanel::applyTo(RunConfig& config) const {
    StrategyConfig& strategy = config.strategy;
    strategy = m_shown;
    strategy.type = type();
    const int devices = strategy.type == StrategyKind::OneDevice ? 1 : m_devices->value();
    const bool sameDevices = strategy.type == m_shown.type && devices == static_cast<int>(m_shown.replicaCount());
    if (!sameDevices) {
        strategy.devices.clear();
        if (strategy.type == StrategyKind::Mirrored || strategy.type == StrategyKind::CentralStorage ||
            strategy.type == StrategyKind::MultiWorkerMirrored) {
            for (int i = 0; i < devices; ++i) strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, i});
        }
    }
    m_reduction->applyTo(strategy);  // keeps a loaded value it does not offer (nccl) unless another is picked
    strategy.gradientAccumulationSteps = m_accumulation->value();
    // Tasks in processes: multi-worker mirrored's cluster from its controls; a parameter-server
    // config's own cluster kept while its task counts still match; no cluster for the others.
    const ClusterSpec& shown = m_cluster->shownCluster();
    if (strategy.type == StrategyKind::MultiWorkerMirrored)
        m_cluster->applyTo(config);
    else
        config.cluster = ClusterSpec{};  // a parameter-server config's is put back below
    config.clock = ClockMode::Wall;      // only the split models offer the virtual clock
    if (strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel) {
        strategy.gradientAccumulationSteps = 1;  // micro-batches instead
        m_pipeline->applyTo(config, strategy.type);
    }
    if (strategy.type == StrategyKind::TensorParallel) m_tensorParallel->applyTo(strategy);
    if (strategy.type == StrategyKind::ParameterServer) {
        strategy.devices.clear();  // workers and servers are threads of their own
        strategy.gradientAccumulationSteps = 1;
        m_parameterServers->applyTo(strategy);
        if (!shown.ps.empty() && static_cast<std::int64_t>(shown.worker.size()) == strategy.workers &&
            static_cast<std::int64_t>(shown.ps.size()) == strategy.parameterServers)
            config.cluster = shown;
    }
}

void StrategyPanel::setGlobalBatch(std::int64_t globalBatch) {
    m_globalBatch = globalBatch;
    updateExplanations();
}

void StrategyPanel::updateExplanations() {
    const StrategyKind kind = type();
    const bool cluster = kind == StrategyKind::MultiWorkerMirrored;
    const bool mirrored = kind == StrategyKind::Mirrored || kind == StrategyKind::CentralStorage || cluster;
    const bool parameterServers = kind == StrategyKind::ParameterServer;
    const bool splitModel = kind == StrategyKind::Pipeline || kind == StrategyKind::ModelParallel;
    const bool tensorParallel = kind == StrategyKind::TensorParallel;
    const QString typeKey = kind == StrategyKind::Mirrored         ? QStringLiteral("strategy.type.mirrored")
                            : kind == StrategyKind::CentralStorage ? QStringLiteral("strategy.type.central_storage")
                            : parameterServers                     ? QStringLiteral("strategy.type.parameter_server")
                            : cluster                              ? QStringLiteral("strategy.type.multi_worker_mirrored")
                            : kind == StrategyKind::Pipeline       ? QStringLiteral("strategy.type.pipeline")
                            : kind == StrategyKind::ModelParallel  ? QStringLiteral("strategy.type.model_parallel")
                            : tensorParallel                       ? QStringLiteral("strategy.type.tensor_parallel")
                                                                   : QStringLiteral("strategy.type.one_device");
    setExplainKey(m_type, typeKey);
    m_typeText->setText(firstParagraph(typeKey));
    m_mirroredGroup->setVisible(mirrored);
    m_cluster->setVisible(cluster);
    m_devicesTitle->setText(cluster ? tr("Replicas per worker") : tr("Replicas"));
    m_parameterServers->setVisible(parameterServers);
    m_pipeline->setVisible(splitModel);
    m_tensorParallel->setVisible(tensorParallel);
    m_accumulationGroup->setVisible(!parameterServers && !splitModel && !tensorParallel);
    if (tensorParallel) {
        m_batchText->setText(tr("Global batch %1: every device computes all of it with its share of the weights.").arg(m_globalBatch));
        m_batchText->setStyleSheet(QString());
        return;
    }
    if (splitModel) {
        m_pipeline->showFor(kind, m_globalBatch);
        m_batchText->clear();  // the pipeline's options say how the batch splits
        return;
    }
    if (parameterServers) {
        m_batchText->setText(tr("Each worker computes its gradient on a whole batch of %1 samples: an asynchronous "
                                "update applies %1 samples' gradient, a synchronous one averages k workers' "
                                "gradients (k × %1 samples).")
                                 .arg(m_globalBatch));
        m_batchText->setStyleSheet(QString());
        return;
    }
    const int workers = cluster ? m_cluster->workersBox().value() : 1;
    const int replicas = (mirrored ? m_devices->value() : 1) * workers;
    const int local = mirrored ? m_devices->value() : 1;
    if (cluster)
        m_devicesText->setText(local == 1 ? tr("cpu:0 of each worker — reduced across the workers.")
                                          : tr("cpu:0 – cpu:%1 of each worker, one thread each: summed in the worker, then across the "
                                               "workers, then broadcast back.")
                                                .arg(local - 1));
    else
        m_devicesText->setText(replicas == 1 ? tr("cpu:0 — one replica: nothing to reduce.")
                                             : tr("cpu:0 – cpu:%1, one thread each.").arg(replicas - 1));
    m_accumulationText->setText(firstParagraph(QStringLiteral("strategy.gradient_accumulation_steps")));
    const std::int64_t steps = m_accumulation->value();
    const std::int64_t split = replicas * steps;
    if (split > 0 && m_globalBatch % split == 0) {
        m_batchText->setText(tr("Global batch %1 = %2 × %3 × %4.")
                                 .arg(m_globalBatch)
                                 .arg(countText(replicas, tr("replica"), tr("replicas")),
                                      countText(steps, tr("micro-step"), tr("micro-steps")),
                                      countText(m_globalBatch / split, tr("sample"), tr("samples"))));
        m_batchText->setStyleSheet(QString());
    } else {
        m_batchText->setText(
            tr("Global batch %1 does not divide into %2 × %3: change the batch (Data) or the counts here.")
                .arg(m_globalBatch)
                .arg(countText(replicas, tr("replica"), tr("replicas")), countText(steps, tr("micro-step"), tr("micro-steps"))));
        m_batchText->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
    }
}

}  // namespace distlab::ui
