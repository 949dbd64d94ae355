#include "views/tasks_view.hpp"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <distlab/config/cluster_config.hpp>

#include "bridge/cluster_run.hpp"
#include "bridge/session_controller.hpp"
#include "panels/explanation_label.hpp"
#include "panels/explanations.hpp"

namespace distlab::ui {

namespace {
enum Column { kTask, kAddress, kProcess, kState, kSteps, kMessage, kColumns };

QColor stateColor(ClusterRun::TaskState state) {
    switch (state) {
        case ClusterRun::TaskState::Failed:
        case ClusterRun::TaskState::Lost:
            return QColor(0xc0, 0x39, 0x2b);
        case ClusterRun::TaskState::Finished:
            return QColor(0x27, 0xae, 0x60);
        case ClusterRun::TaskState::Waiting:
            return QColor(0xd3, 0x54, 0x00);
        default:
            return {};
    }
}
}  // namespace

TasksView::TasksView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.tasks"));
    m_coordinator = explanationLabel(this);
    setExplainKey(m_coordinator, QStringLiteral("cluster.chief"));
    m_store = explanationLabel(this);
    setExplainKey(m_store, QStringLiteral("cluster.store"));
    m_timeout = explanationLabel(this);
    setExplainKey(m_timeout, QStringLiteral("strategy.timeout_seconds"));
    m_backups = explanationLabel(this);
    setExplainKey(m_backups, QStringLiteral("cluster.backups"));
    m_table = new QTableWidget(0, kColumns, this);
    m_table->setObjectName(QStringLiteral("tasksTable"));
    m_table->setHorizontalHeaderLabels({tr("Task"), tr("Address"), tr("Process"), tr("State"), tr("Steps"), tr("Message")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_copy = new QPushButton(tr("Copy the command for the selected task"), this);
    m_copy->setObjectName(QStringLiteral("copyTaskCommand"));
    m_copy->setToolTip(tr("A task on another host: the command that starts it there (copy the config file too)"));
    connect(m_copy, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        ClusterRun* cluster = this->controller().cluster();
        if (cluster == nullptr || row < 0 || row >= static_cast<int>(cluster->tasks().size())) return;
        QApplication::clipboard()->setText(cluster->tasks()[static_cast<std::size_t>(row)].command);
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this] { m_dirty = true; });
    connect(&controller, &SessionController::clusterTasksChanged, this, [this] { m_dirty = true; });
    connect(&controller, &SessionController::runReplaced, this, [this] { m_dirty = true; });
    connect(&controller, &SessionController::stateChanged, this, [this] { m_dirty = true; });
    auto* layout = new QVBoxLayout(this);
    for (QLabel* label : {m_coordinator, m_store, m_timeout, m_backups}) layout->addWidget(label);
    layout->addWidget(m_table, 1);
    auto* buttons = new QHBoxLayout();
    buttons->addWidget(m_copy);
    buttons->addStretch(1);
    layout->addLayout(buttons);
}

QString TasksView::summaryText() const {
    return QStringList{m_coordinator->text(), m_store->text(), m_timeout->text()}.join(QLatin1Char('\n'));
}

bool TasksView::refresh() {
    // Steps change every tick while the tasks train: redrawn with the views, at most ~30 times a second.
    std::int64_t steps = 0;
    if (ClusterRun* cluster = controller().cluster())
        for (const ClusterRun::Task& task : cluster->tasks()) steps += task.steps;
    if (steps != m_drawnSteps) m_dirty = true;
    m_drawnSteps = steps;
    if (!m_dirty && !invalid()) return false;
    m_dirty = false;
    rebuild();
    return controller().cluster() != nullptr && !controller().cluster()->tasks().empty();
}

void TasksView::rebuild() {
    ClusterRun* cluster = controller().cluster();
    const RunConfig& config = controller().config();
    const QLocale locale;
    if (cluster == nullptr) {
        m_table->setRowCount(0);
        m_copy->setEnabled(false);
        return;
    }
    const std::vector<ClusterRun::Task>& tasks = cluster->tasks();
    const QString coordinator = tasks.empty() ? QString() : tasks.front().name;
    m_coordinator->setText(tr("Coordinator: %1 — serves the rendezvous store and alone writes weights and backups.").arg(coordinator));
    m_store->setText(cluster->telemetryAddress().isEmpty()
                         ? tr("The tasks meet at the coordinator's address; the app starts them on Play.")
                         : tr("The tasks meet at %1 (the coordinator's store, with the run's token) and stream their steps to the "
                              "app at %2.")
                               .arg(tasks.empty() ? QString() : tasks.front().address, cluster->telemetryAddress()));
    m_timeout->setText(tr("Timeout: %1 s — a task that stalls longer than this is lost, and the others stop.")
                           .arg(locale.toString(config.strategy.timeoutSeconds)));
    m_backups->setText(tr("Backups: the app keeps none for a cluster; distlab-worker --checkpoint and --resume do (docs/cluster.md)."));
    m_table->setRowCount(static_cast<int>(tasks.size()));
    bool commands = false;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
        const ClusterRun::Task& task = tasks[t];
        const int row = static_cast<int>(t);
        auto set = [&](int column, const QString& text) {
            QTableWidgetItem* item = m_table->item(row, column);
            if (item == nullptr) {
                item = new QTableWidgetItem();
                m_table->setItem(row, column, item);
            }
            if (item->text() != text) item->setText(text);
            return item;
        };
        set(kTask, task.name);
        set(kAddress, task.address + (task.local ? QString() : tr(" (another host)")));
        set(kProcess, task.pid > 0 ? tr("pid %1").arg(task.pid) : QString());
        QTableWidgetItem* state = set(kState, ClusterRun::stateText(task.state));
        state->setForeground(stateColor(task.state));
        set(kSteps, locale.toString(static_cast<qlonglong>(task.steps)));
        const QString message = task.state == ClusterRun::TaskState::Waiting && !task.command.isEmpty() ? task.command : task.message;
        set(kMessage, message)->setToolTip(message);
        commands = commands || !task.command.isEmpty();
    }
    m_table->resizeColumnsToContents();
    const int row = m_table->currentRow();
    m_copy->setVisible(commands);
    m_copy->setEnabled(row >= 0 && row < static_cast<int>(tasks.size()) && !tasks[static_cast<std::size_t>(row)].command.isEmpty());
}

}  // namespace distlab::ui
