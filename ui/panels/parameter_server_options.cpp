#include "panels/parameter_server_options.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
// The first paragraph of an explanation, in the muted style of the strategy page.
QLabel* keyExplanation(const QString& key, QWidget* parent) {
    QLabel* label = explanationLabel(parent);
    label->setText(firstParagraph(key));
    return label;
}

QSpinBox* spinBox(const char* name, int low, int high, const QString& suffix, const char* key, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(QString::fromLatin1(name));
    box->setRange(low, high);
    box->setSuffix(suffix);
    setExplainKey(box, QString::fromLatin1(key));
    return box;
}
}  // namespace

ParameterServerOptions::ParameterServerOptions(QWidget* parent) : QWidget(parent) {
    m_workers = spinBox("workersBox", 1, kMaxWorkers, tr(" workers"), "strategy.workers", this);
    m_servers = spinBox("parameterServersBox", 1, kMaxServers, tr(" servers"), "strategy.parameter_servers", this);
    m_mode = new QComboBox(this);
    m_mode->setObjectName(QStringLiteral("parameterServerModeBox"));
    m_mode->addItem(tr("Asynchronous"), static_cast<int>(ParameterServerMode::Async));
    m_mode->addItem(tr("Synchronous"), static_cast<int>(ParameterServerMode::Sync));
    m_modeText = keyExplanation(QStringLiteral("strategy.mode.async"), this);
    m_aggregate = spinBox("gradientsToAggregateBox", 0, kMaxWorkers, tr(" gradients"), "strategy.gradients_to_aggregate", this);
    m_aggregate->setSpecialValueText(tr("all live workers"));
    m_partitioner = new QComboBox(this);
    m_partitioner->setObjectName(QStringLiteral("partitionerBox"));
    m_partitioner->addItem(tr("None (whole variables)"), static_cast<int>(PartitionerConfig::Kind::None));
    m_partitioner->addItem(tr("Fixed number of shards"), static_cast<int>(PartitionerConfig::Kind::Fixed));
    m_partitioner->addItem(tr("Min shard size"), static_cast<int>(PartitionerConfig::Kind::MinSize));
    m_partitioner->addItem(tr("Max shard size"), static_cast<int>(PartitionerConfig::Kind::MaxSize));
    setExplainKey(m_partitioner, QStringLiteral("strategy.partitioner"));
    m_partitionerNumber = spinBox("partitionerNumberBox", 1, 1 << 30, QString(), "strategy.partitioner", this);
    m_maxShards = spinBox("maxShardsBox", 1, 64, tr(" shards at most"), "strategy.partitioner", this);

    // Two speed boxes a row: four did not fit the set-up dock at 1280 px (tests/ui/test_layout.cpp).
    constexpr int kSpeedColumns = 2;
    auto* speeds = new QWidget(this);
    auto* speedGrid = new QGridLayout(speeds);
    speedGrid->setContentsMargins(0, 0, 0, 0);
    for (int w = 0; w < kMaxWorkers; ++w) {
        auto* box = new QDoubleSpinBox(speeds);
        box->setObjectName(QStringLiteral("workerSpeedBox%1").arg(w));
        box->setRange(run_limits::kMinWorkerSpeed, run_limits::kMaxWorkerSpeed);
        box->setSingleStep(0.05);
        box->setDecimals(2);
        box->setValue(1.0);
        box->setPrefix(tr("w%1 ").arg(w));
        setExplainKey(box, QStringLiteral("strategy.worker_speed"));
        speedGrid->addWidget(box, w / kSpeedColumns, w % kSpeedColumns);
        m_speeds[static_cast<std::size_t>(w)] = box;
    }

    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Workers"), m_workers);
    form->addRow(keyExplanation(QStringLiteral("strategy.workers"), this));
    form->addRow(tr("Servers"), m_servers);
    form->addRow(keyExplanation(QStringLiteral("strategy.parameter_servers"), this));
    form->addRow(tr("Updates"), m_mode);
    form->addRow(m_modeText);
    m_aggregateRow = new QWidget(this);
    auto* aggregateForm = new QFormLayout(m_aggregateRow);
    aggregateForm->setContentsMargins(0, 0, 0, 0);
    aggregateForm->setRowWrapPolicy(QFormLayout::WrapLongRows);
    aggregateForm->addRow(tr("Per update"), m_aggregate);
    aggregateForm->addRow(keyExplanation(QStringLiteral("strategy.gradients_to_aggregate"), m_aggregateRow));
    form->addRow(m_aggregateRow);
    form->addRow(tr("Partitioner"), m_partitioner);
    form->addRow(tr("Shards"), m_partitionerNumber);
    form->addRow(tr("Cap"), m_maxShards);
    form->addRow(keyExplanation(QStringLiteral("strategy.partitioner"), this));
    form->addRow(tr("Speed"), speeds);
    form->addRow(keyExplanation(QStringLiteral("strategy.worker_speed"), this));

    auto changed = [this] {
        updateVisibility();
        emit edited();
    };
    connect(m_workers, &QSpinBox::valueChanged, this, changed);
    connect(m_servers, &QSpinBox::valueChanged, this, changed);
    connect(m_mode, &QComboBox::currentIndexChanged, this, changed);
    connect(m_aggregate, &QSpinBox::valueChanged, this, changed);
    connect(m_partitioner, &QComboBox::currentIndexChanged, this, [this, changed] {
        showPartitionerNumber();  // the number of the kind now chosen
        changed();
    });
    connect(m_partitionerNumber, &QSpinBox::valueChanged, this, changed);
    connect(m_maxShards, &QSpinBox::valueChanged, this, changed);
    for (QDoubleSpinBox* box : m_speeds) connect(box, &QDoubleSpinBox::valueChanged, this, changed);
    setStrategy(StrategyConfig{});
}

PartitionerConfig::Kind ParameterServerOptions::partitionerKind() const {
    return static_cast<PartitionerConfig::Kind>(m_partitioner->currentData().toInt());
}

void ParameterServerOptions::setStrategy(const StrategyConfig& strategy) {
    m_shown = strategy;
    std::vector<QSignalBlocker> blockers;
    for (QWidget* widget : findChildren<QWidget*>()) blockers.emplace_back(widget);
    m_workers->setValue(static_cast<int>(strategy.workers));
    m_servers->setValue(static_cast<int>(strategy.parameterServers));
    m_mode->setCurrentIndex(std::max(0, m_mode->findData(static_cast<int>(strategy.mode))));
    m_aggregate->setValue(static_cast<int>(strategy.gradientsToAggregate));
    const PartitionerConfig& partitioner = strategy.partitioner;
    m_partitioner->setCurrentIndex(std::max(0, m_partitioner->findData(static_cast<int>(partitioner.kind))));
    m_maxShards->setValue(static_cast<int>(partitioner.maxShards));
    showPartitionerNumber();
    for (int w = 0; w < kMaxWorkers; ++w) {
        const auto index = static_cast<std::size_t>(w);
        m_speeds[index]->setValue(index < strategy.workerSpeed.size() ? strategy.workerSpeed[index] : 1.0);
    }
    updateVisibility();
}

void ParameterServerOptions::applyTo(StrategyConfig& strategy) const {
    strategy.workers = m_workers->value();
    strategy.parameterServers = m_servers->value();
    strategy.mode = static_cast<ParameterServerMode>(m_mode->currentData().toInt());
    strategy.gradientsToAggregate = std::min(m_aggregate->value(), m_workers->value());
    PartitionerConfig& partitioner = strategy.partitioner;
    partitioner = m_shown.partitioner;
    partitioner.kind = partitionerKind();
    if (partitioner.kind == PartitionerConfig::Kind::Fixed) partitioner.numShards = m_partitionerNumber->value();
    if (partitioner.kind == PartitionerConfig::Kind::MinSize) partitioner.minShardBytes = m_partitionerNumber->value();
    if (partitioner.kind == PartitionerConfig::Kind::MaxSize) partitioner.maxShardBytes = m_partitionerNumber->value();
    if (partitioner.kind == PartitionerConfig::Kind::MinSize || partitioner.kind == PartitionerConfig::Kind::MaxSize)
        partitioner.maxShards = m_maxShards->value();
    // Speeds of every worker, or none when all run at full speed and none were given.
    strategy.workerSpeed.clear();
    bool allFull = true;
    for (int w = 0; w < m_workers->value(); ++w) {
        const double speed = m_speeds[static_cast<std::size_t>(w)]->value();
        strategy.workerSpeed.push_back(speed);
        allFull = allFull && speed == 1.0;
    }
    if (allFull && m_shown.workerSpeed.empty()) strategy.workerSpeed.clear();
}

void ParameterServerOptions::showPartitionerNumber() {
    const QSignalBlocker blocker(m_partitionerNumber);
    const PartitionerConfig& shown = m_shown.partitioner;
    const PartitionerConfig::Kind kind = partitionerKind();
    const std::int64_t number = kind == PartitionerConfig::Kind::MinSize       ? shown.minShardBytes
                                : kind == PartitionerConfig::Kind::MaxSize     ? shown.maxShardBytes
                                : shown.kind == PartitionerConfig::Kind::Fixed ? shown.numShards
                                                                               : 2;
    m_partitionerNumber->setValue(static_cast<int>(std::min<std::int64_t>(number, m_partitionerNumber->maximum())));
}

void ParameterServerOptions::updateVisibility() {
    const bool sync = static_cast<ParameterServerMode>(m_mode->currentData().toInt()) == ParameterServerMode::Sync;
    const QString modeKey = sync ? QStringLiteral("strategy.mode.sync") : QStringLiteral("strategy.mode.async");
    setExplainKey(m_mode, modeKey);
    const QString body = explanationFor(modeKey).body;
    m_modeText->setText(body.left(body.indexOf(QLatin1String("</p>")) + 4));
    m_aggregateRow->setVisible(sync);
    m_aggregate->setMaximum(m_workers->value());
    auto* form = static_cast<QFormLayout*>(layout());
    const PartitionerConfig::Kind kind = partitionerKind();
    form->setRowVisible(m_partitionerNumber, kind != PartitionerConfig::Kind::None);
    form->setRowVisible(m_maxShards, kind == PartitionerConfig::Kind::MinSize || kind == PartitionerConfig::Kind::MaxSize);
    auto* label = qobject_cast<QLabel*>(form->labelForField(m_partitionerNumber));
    if (kind == PartitionerConfig::Kind::Fixed) {
        if (label) label->setText(tr("Shards"));
        m_partitionerNumber->setSuffix(tr(" shards"));
    } else {
        if (label) label->setText(kind == PartitionerConfig::Kind::MinSize ? tr("Min size") : tr("Max size"));
        m_partitionerNumber->setSuffix(tr(" bytes"));
    }
    for (int w = 0; w < kMaxWorkers; ++w) m_speeds[static_cast<std::size_t>(w)]->setVisible(w < m_workers->value());
}

}  // namespace distlab::ui
