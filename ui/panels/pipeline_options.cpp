#include "panels/pipeline_options.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <distlab/config/run_limits.hpp>
#include <distlab/distribute/pipeline_schedule.hpp>

#include "count_text.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

PipelineOptions::PipelineOptions(QWidget* parent) : QWidget(parent) {
    m_pipelineOnly = new QWidget(this);
    m_stages = new QSpinBox(m_pipelineOnly);
    m_stages->setObjectName(QStringLiteral("pipelineStagesBox"));
    m_stages->setRange(1, static_cast<int>(run_limits::kMaxPipelineStages));
    setCountSuffix(*m_stages, tr("device"), tr("devices"));
    setExplainKey(m_stages, QStringLiteral("strategy.stages"));
    m_schedule = new QComboBox(m_pipelineOnly);
    m_schedule->setObjectName(QStringLiteral("pipelineScheduleBox"));
    m_schedule->addItem(tr("GPipe"), static_cast<int>(PipelineSchedule::GPipe));
    m_schedule->addItem(tr("1F1B"), static_cast<int>(PipelineSchedule::OneFOneB));
    m_schedule->addItem(tr("Interleaved 1F1B"), static_cast<int>(PipelineSchedule::Interleaved));
    m_schedule->addItem(tr("ZB-H1 (zero bubble)"), static_cast<int>(PipelineSchedule::ZeroBubbleH1));
    setExplainKey(m_schedule, QStringLiteral("strategy.schedule"));
    m_virtualStages = new QSpinBox(m_pipelineOnly);
    m_virtualStages->setObjectName(QStringLiteral("pipelineVirtualStagesBox"));
    m_virtualStages->setRange(2, static_cast<int>(run_limits::kMaxVirtualStages));
    setCountSuffix(*m_virtualStages, tr("chunk a device"), tr("chunks a device"));
    setExplainKey(m_virtualStages, QStringLiteral("strategy.virtual_stages"));
    m_virtualStagesTitle = new QLabel(tr("Virtual stages"), m_pipelineOnly);
    m_balance = new QComboBox(m_pipelineOnly);
    m_balance->setObjectName(QStringLiteral("pipelineBalanceBox"));
    m_balance->addItem(tr("By multiply-accumulates"), static_cast<int>(StageBalance::MultiplyAccumulates));
    m_balance->addItem(tr("By measured time"), static_cast<int>(StageBalance::Measured));
    setExplainKey(m_balance, QStringLiteral("strategy.balance"));
    m_copies = new QSpinBox(m_pipelineOnly);
    m_copies->setObjectName(QStringLiteral("pipelineDataParallelBox"));
    m_copies->setRange(1, static_cast<int>(run_limits::kMaxReplicas));
    setCountSuffix(*m_copies, tr("copy"), tr("copies"));
    setExplainKey(m_copies, QStringLiteral("strategy.data_parallel"));
    auto* pipelineForm = new QFormLayout(m_pipelineOnly);
    pipelineForm->setContentsMargins(0, 0, 0, 0);
    pipelineForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    pipelineForm->addRow(tr("Stages"), m_stages);
    pipelineForm->addRow(tr("Schedule"), m_schedule);
    pipelineForm->addRow(m_virtualStagesTitle, m_virtualStages);
    pipelineForm->addRow(tr("Data-parallel (dp)"), m_copies);
    pipelineForm->addRow(tr("Balance stages"), m_balance);

    m_microBatches = new QSpinBox(this);
    m_microBatches->setObjectName(QStringLiteral("pipelineMicroBatchesBox"));
    m_microBatches->setRange(1, static_cast<int>(run_limits::kMaxPipelinePasses));
    setCountSuffix(*m_microBatches, tr("micro-batch"), tr("micro-batches"));
    setExplainKey(m_microBatches, QStringLiteral("strategy.micro_batches"));
    m_clock = new QComboBox(this);
    m_clock->setObjectName(QStringLiteral("clockBox"));
    m_clock->addItem(tr("Wall (these cores)"), static_cast<int>(ClockMode::Wall));
    m_clock->addItem(tr("Virtual (a core a device)"), static_cast<int>(ClockMode::Virtual));
    setExplainKey(m_clock, QStringLiteral("clock"));
    m_placement = explanationLabel(this);
    m_placement->setText(tr("Each layer's device is set in the Model page (its Device column)."));
    m_bubble = explanationLabel(this);
    m_bubble->setObjectName(QStringLiteral("pipelineBubbleText"));

    auto* form = new QFormLayout();
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Micro-batches"), m_microBatches);
    form->addRow(tr("Clock"), m_clock);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pipelineOnly);
    layout->addWidget(m_placement);
    layout->addLayout(form);
    layout->addWidget(m_bubble);

    auto changed = [this] {
        if (m_showing) return;  // setConfig: no edit of the user's
        showFor(m_type, m_globalBatch);
        emit edited();
    };
    connect(m_stages, &QSpinBox::valueChanged, this, changed);
    connect(m_schedule, &QComboBox::currentIndexChanged, this, changed);
    connect(m_virtualStages, &QSpinBox::valueChanged, this, changed);
    connect(m_copies, &QSpinBox::valueChanged, this, changed);
    connect(m_balance, &QComboBox::currentIndexChanged, this, changed);
    connect(m_microBatches, &QSpinBox::valueChanged, this, changed);
    connect(m_clock, &QComboBox::currentIndexChanged, this, changed);
}

PipelineSchedule PipelineOptions::schedule() const { return static_cast<PipelineSchedule>(m_schedule->currentData().toInt()); }

void PipelineOptions::setConfig(const RunConfig& config) {
    // Not a QSignalBlocker: the boxes' count suffixes follow their valueChanged.
    m_showing = true;
    const StrategyConfig& strategy = config.strategy;
    const bool split = strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel;
    m_stages->setValue(static_cast<int>(strategy.stages));
    m_schedule->setCurrentIndex(std::max(0, m_schedule->findData(static_cast<int>(strategy.schedule))));
    m_virtualStages->setValue(static_cast<int>(std::max<std::int64_t>(2, strategy.virtualStages)));
    m_copies->setValue(strategy.type == StrategyKind::Pipeline ? static_cast<int>(strategy.dataParallel) : 1);
    m_balance->setCurrentIndex(std::max(0, m_balance->findData(static_cast<int>(strategy.balance))));
    // A strategy that splits nothing offers a pipeline's usual start: four micro-batches.
    m_microBatches->setValue(static_cast<int>(split ? strategy.microBatches : 4));
    m_clock->setCurrentIndex(std::max(0, m_clock->findData(static_cast<int>(config.clock))));
    m_showing = false;
    showFor(strategy.type, config.data.globalBatchSize);
}

void PipelineOptions::applyTo(RunConfig& config, StrategyKind type) const {
    StrategyConfig& strategy = config.strategy;
    strategy.microBatches = m_microBatches->value();
    if (type == StrategyKind::Pipeline) {
        strategy.stages = m_stages->value();
        strategy.schedule = schedule();
        strategy.virtualStages = strategy.schedule == PipelineSchedule::Interleaved ? m_virtualStages->value() : 1;
        strategy.dataParallel = m_copies->value();
        strategy.balance = static_cast<StageBalance>(m_balance->currentData().toInt());
    }
    config.clock = static_cast<ClockMode>(m_clock->currentData().toInt());
    strategy.devices = pipelineDevices(config);
}

void PipelineOptions::showFor(StrategyKind type, std::int64_t globalBatch) {
    m_type = type;
    m_globalBatch = globalBatch;
    const bool pipeline = type == StrategyKind::Pipeline;
    m_pipelineOnly->setVisible(pipeline);
    m_placement->setVisible(!pipeline);
    const bool interleaved = schedule() == PipelineSchedule::Interleaved;
    m_virtualStagesTitle->setVisible(interleaved);
    m_virtualStages->setVisible(interleaved);
    const int p = pipeline ? m_stages->value() : 0;
    const int m = m_microBatches->value();
    const int v = interleaved ? m_virtualStages->value() : 1;
    const int dp = pipeline ? m_copies->value() : 1;
    const QString copies = countText(dp, tr("data-parallel copy"), tr("data-parallel copies"));
    QString problem;
    if (static_cast<std::int64_t>(dp) * std::max(p, 1) > run_limits::kMaxReplicas)
        problem = tr("%1 of %2 are %3 devices, more than %4.")
                      .arg(copies, countText(p, tr("device"), tr("devices")))
                      .arg(dp * p)
                      .arg(run_limits::kMaxReplicas);
    else if (globalBatch % (static_cast<std::int64_t>(dp) * m) != 0)
        problem = dp == 1 ? tr("%1 do not divide the global batch of %2 (Data).")
                                .arg(countText(m, tr("micro-batch"), tr("micro-batches")))
                                .arg(globalBatch)
                          : tr("%1 × %2 do not divide the global batch of %3 (Data).")
                                .arg(copies, countText(m, tr("micro-batch"), tr("micro-batches")))
                                .arg(globalBatch);
    else if (pipeline && schedule() == PipelineSchedule::ZeroBubbleH1 && 3 * m > 2 * run_limits::kMaxPipelinePasses)
        problem = tr("ZB-H1 runs three passes a micro-batch: at most %1 micro-batches.").arg(2 * run_limits::kMaxPipelinePasses / 3);
    else if (pipeline && interleaved && m % p != 0)
        problem = tr("The interleaved schedule runs micro-batches in groups of %1: use a multiple of it.").arg(p);
    if (!problem.isEmpty()) {
        m_bubble->setText(problem);
        m_bubble->setStyleSheet(QStringLiteral("QLabel { color: #c0392b; }"));
        return;
    }
    m_bubble->setStyleSheet(QString());
    const QString batch =
        dp == 1 ? tr("Global batch %1 = %2 of %3.")
                      .arg(globalBatch)
                      .arg(countText(m, tr("micro-batch"), tr("micro-batches")), countText(globalBatch / m, tr("sample"), tr("samples")))
                : tr("Global batch %1 = %2 × %3 of %4 (devices cpu:0 – cpu:%5: copy c's device d is cpu:c·%6+d; each stage's "
                     "gradients are all-reduced across the copies after the flush).")
                      .arg(globalBatch)
                      .arg(copies, countText(m, tr("micro-batch"), tr("micro-batches")),
                           countText(globalBatch / (static_cast<std::int64_t>(dp) * m), tr("sample"), tr("samples")))
                      .arg(dp * p - 1)
                      .arg(p);
    if (!pipeline) {
        m_bubble->setText(batch + QLatin1Char(' ') +
                          tr("The devices run GPipe's order over the layers' placement: with one stage a device, the bubble is "
                             "(p − 1)/(m + p − 1)."));
        return;
    }
    const bool zeroBubble = schedule() == PipelineSchedule::ZeroBubbleH1;
    const double bubble = theoreticalBubbleFraction(schedule(), PipelineShape{p, m, v});
    const int units = zeroBubble ? 3 * m : v * m;
    m_bubble->setText(batch + QLatin1Char(' ') +
                      tr("Bubble in theory: (p − 1)/(%1 + p − 1) = %2/%3 = %4 % of each device's step (equal stages, a backward "
                         "twice a forward%5).")
                          .arg(zeroBubble    ? QStringLiteral("3m")
                               : interleaved ? QStringLiteral("v·m")
                                             : QStringLiteral("m"))
                          .arg(p - 1)
                          .arg(units + p - 1)
                          .arg(bubble * 100.0, 0, 'f', 1)
                          .arg(zeroBubble && m < p ? tr("; with fewer micro-batches than stages it is larger") : QString()));
}

}  // namespace distlab::ui
