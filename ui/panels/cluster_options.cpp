#include "panels/cluster_options.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <distlab/config/cluster_config.hpp>
#include <distlab/config/run_limits.hpp>

#include "bridge/cluster_run.hpp"
#include "count_text.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

ClusterOptions::ClusterOptions(QWidget* parent) : QWidget(parent) {
    m_workers = new QSpinBox(this);
    m_workers->setObjectName(QStringLiteral("clusterWorkersBox"));
    m_workers->setRange(1, static_cast<int>(run_limits::kMaxWorkers));
    setCountSuffix(*m_workers, tr("worker process"), tr("worker processes"));
    setExplainKey(m_workers, QStringLiteral("cluster.workers"));
    m_timeout = new QDoubleSpinBox(this);
    m_timeout->setObjectName(QStringLiteral("clusterTimeoutBox"));
    m_timeout->setRange(0.1, run_limits::kMaxTimeoutSeconds);
    m_timeout->setDecimals(1);
    m_timeout->setSuffix(tr(" s"));
    setExplainKey(m_timeout, QStringLiteral("strategy.timeout_seconds"));
    m_communication = new QComboBox(this);
    m_communication->setObjectName(QStringLiteral("clusterCommunicationBox"));
    m_communication->addItem(tr("Auto (direct exchange for 2 workers)"), static_cast<int>(CollectiveImplementation::Auto));
    m_communication->addItem(tr("Ring (Gloo's ring)"), static_cast<int>(CollectiveImplementation::Ring));
    setExplainKey(m_communication, QStringLiteral("strategy.communication"));
    m_tasks = explanationLabel(this);
    m_tasks->setObjectName(QStringLiteral("clusterTasksText"));
    setExplainKey(m_tasks, QStringLiteral("cluster.tf_config"));
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("Workers"), m_workers);
    form->addRow(tr("Timeout"), m_timeout);
    form->addRow(tr("Between workers"), m_communication);
    form->addRow(m_tasks);
    connect(m_workers, &QSpinBox::valueChanged, this, [this] {
        updateTasks();
        emit edited();
    });
    connect(m_timeout, &QDoubleSpinBox::valueChanged, this, &ClusterOptions::edited);
    connect(m_communication, &QComboBox::currentIndexChanged, this, &ClusterOptions::edited);
    updateTasks();
}

void ClusterOptions::setConfig(const RunConfig& config) {
    m_shown = config.cluster;
    const QSignalBlocker workersBlocker(m_workers);
    const QSignalBlocker timeoutBlocker(m_timeout);
    const QSignalBlocker communicationBlocker(m_communication);
    m_workers->setValue(static_cast<int>(config.cluster.workerCount()));
    m_timeout->setValue(config.strategy.timeoutSeconds);
    m_communication->setCurrentIndex(m_communication->findData(static_cast<int>(config.strategy.communication)));
    updateTasks();
}

void ClusterOptions::applyTo(RunConfig& config) const {
    config.strategy.timeoutSeconds = m_timeout->value();
    config.strategy.communication = static_cast<CollectiveImplementation>(m_communication->currentData().toInt());
    const int workers = m_workers->value();
    if (!m_shown.empty() && m_shown.workerCount() == workers) {
        config.cluster = m_shown;
        return;
    }
    if (m_made.empty() || m_made.workerCount() != workers) m_made = loopbackCluster(workers);
    config.cluster = m_made;
}

void ClusterOptions::updateTasks() {
    const int workers = m_workers->value();
    QStringList lines;
    if (!m_shown.empty() && m_shown.workerCount() == workers) {
        for (std::int64_t rank = 0; rank < m_shown.workerCount(); ++rank) {
            const TaskId task = taskOfWorkerRank(m_shown, rank);
            const auto address = taskAddress(m_shown, task);
            lines << QStringLiteral("%1 at %2")
                         .arg(QString::fromStdString(task.name()), address ? QString::fromStdString(address->toString()) : QString());
        }
    } else {
        lines << tr("worker:0 – worker:%1 on free loopback ports").arg(workers - 1);
    }
    m_tasks->setText(tr("%1 — each a distlab-worker process the app starts on Play; worker 0 (or the chief) serves the "
                        "rendezvous. A task at another host's address is started there with the command the Tasks view shows.")
                         .arg(lines.join(QStringLiteral(", "))));
}

}  // namespace distlab::ui
