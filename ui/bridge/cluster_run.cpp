#include "bridge/cluster_run.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkInterface>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <sys/prctl.h>

#include <algorithm>
#include <csignal>

#include <distlab/comm/cluster_store.hpp>
#include <distlab/config/cluster_config.hpp>
#include <distlab/telemetry/task_telemetry.hpp>

#include "run_files.hpp"

namespace distlab::ui {

namespace {
/// How long a connection may stay silent before its hello: then it is refused.
constexpr int kHelloTimeoutMs = 10'000;
/// How long stopped tasks get to finish their step and exit before they are killed.
constexpr int kStopGraceMs = 3'000;
/// Telemetry connections at most at once beyond one per task (stray or hostile ones are refused).
constexpr std::size_t kSpareConnections = 8;
/// Refusals kept for the log (the last ones).
constexpr qsizetype kKeptRefusals = 100;
/// Bytes of a task's standard error kept for its message.
constexpr qsizetype kKeptErrorBytes = 4096;

/// A host this machine answers on: the app starts that task itself.
bool isThisMachine(const QString& host) {
    if (host.isEmpty() || host == QLatin1String("localhost")) return true;
    QString bare = host;
    if (bare.startsWith(QLatin1Char('[')) && bare.endsWith(QLatin1Char(']'))) bare = bare.mid(1, bare.size() - 2);
    const QHostAddress address(bare);
    if (address.isNull()) return false;  // a name: another host (the app does not resolve it)
    return address.isLoopback() || QNetworkInterface::allAddresses().contains(address);
}

/// The last "error: ..." line a task wrote, else its last line.
QString lastErrorLine(const QByteArray& stderrText) {
    const QStringList lines = QString::fromUtf8(stderrText).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (auto it = lines.crbegin(); it != lines.crend(); ++it)
        if (it->startsWith(QLatin1String("error: "))) return it->mid(7);
    return lines.isEmpty() ? QString() : lines.last();
}
}  // namespace

int ClusterRun::reportingTasks(const RunConfig& config) {
    if (config.strategy.type == StrategyKind::ParameterServer) return 1;  // the chief
    return static_cast<int>(std::max<std::int64_t>(1, config.cluster.workerCount()));
}

ClusterSpec loopbackCluster(int workers) {
    ClusterSpec cluster;
    // Each port is held until all are chosen, so no two tasks get the same one.
    std::vector<std::unique_ptr<QTcpServer>> probes;
    for (int w = 0; w < workers; ++w) {
        auto probe = std::make_unique<QTcpServer>();
        const quint16 port = probe->listen(QHostAddress::LocalHost, 0) ? probe->serverPort() : quint16(12345 + w);
        cluster.worker.push_back("localhost:" + std::to_string(port));
        probes.push_back(std::move(probe));
    }
    return cluster;
}

struct ClusterRun::Connection {
    QTcpSocket* socket = nullptr;  // owned by the server's parent chain (this)
    TaskTelemetryReader reader;
    int task = -1;           // set by an accepted hello
    bool lastState = false;  // its task said how it ended
};

QString ClusterRun::stateText(TaskState state) {
    switch (state) {
        case TaskState::Waiting:
            return tr("waiting to be started");
        case TaskState::Starting:
            return tr("starting");
        case TaskState::Training:
            return tr("training");
        case TaskState::Finished:
            return tr("finished");
        case TaskState::Stopped:
            return tr("stopped");
        case TaskState::Failed:
            return tr("failed");
        case TaskState::Lost:
            return tr("lost");
    }
    return {};
}

ClusterRun::ClusterRun(const RunConfig& config, QObject* parent)
    : QObject(parent),
      m_config(config),
      m_server(std::make_unique<QTcpServer>()),
      m_join(reportingTasks(config)),
      m_hub(static_cast<int>(config.globalReplicaCount())) {
    if (m_config.cluster.empty()) m_config.cluster = loopbackCluster(1);
    const ClusterSpec& cluster = m_config.cluster;
    const bool parameterServers = m_config.strategy.type == StrategyKind::ParameterServer;
    const TaskId coordinator = coordinatorTask(cluster);
    // Every task, the computing ones in their rank's order, then the servers. A multi-worker run's
    // workers each stream their replicas' lanes; a parameter-server run's chief streams every
    // worker's (its updates), its workers and servers none.
    std::vector<TaskId> ids;
    for (std::int64_t rank = 0; rank < cluster.workerCount(); ++rank) ids.push_back(taskOfWorkerRank(cluster, rank));
    for (std::size_t p = 0; p < cluster.ps.size(); ++p) ids.push_back(TaskId{TaskId::Type::Ps, static_cast<std::int64_t>(p)});
    int reporters = 0;
    for (const TaskId& id : ids) {
        Task task;
        task.name = QString::fromStdString(id.name());
        const auto address = taskAddress(cluster, id);
        task.address = address ? QString::fromStdString(address->toString()) : QString();
        task.local = address && isThisMachine(QString::fromStdString(address->host));
        task.state = task.local ? TaskState::Starting : TaskState::Waiting;
        task.coordinator = id == coordinator;
        if (parameterServers ? task.coordinator : id.type != TaskId::Type::Ps) task.reporter = reporters++;
        m_tasks.push_back(task);
    }
    m_replicasPerReporter = static_cast<int>(m_config.globalReplicaCount()) / std::max(1, reporters);
    m_processes.resize(m_tasks.size());
    m_ended.assign(m_tasks.size(), false);
    m_clockOffset.assign(m_tasks.size(), 0);
    connect(m_server.get(), &QTcpServer::newConnection, this, &ClusterRun::onConnection);
}

ClusterRun::~ClusterRun() {
    // Every process the app started goes with the run: asked first, then made to.
    for (auto& process : m_processes) {
        if (!process || process->state() == QProcess::NotRunning) continue;
        process->disconnect(this);
        process->terminate();
    }
    for (auto& process : m_processes) {
        if (!process || process->state() == QProcess::NotRunning) continue;
        if (!process->waitForFinished(kStopGraceMs)) {
            process->kill();
            process->waitForFinished(1000);
        }
    }
}

QString ClusterRun::workerProgram() {
    // DISTLAB_WORKER names another build's (the tests name their build's).
    if (const QString named = qEnvironmentVariable("DISTLAB_WORKER"); !named.isEmpty())
        return QFileInfo(named).isExecutable() ? named : QString();
    const QString here = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {here + QStringLiteral("/distlab-worker"), here + QStringLiteral("/../cli/distlab-worker")})
        if (QFileInfo(candidate).isExecutable()) return QDir::cleanPath(candidate);
    return QStandardPaths::findExecutable(QStringLiteral("distlab-worker"));
}

QString ClusterRun::configPath() const { return m_folder.filePath(QStringLiteral("run.json")); }

void ClusterRun::setState(SessionState state) {
    if (state == m_state) return;
    m_state = state;
    emit stateChanged(state);
}

void ClusterRun::fail(const QString& message) {
    emit failed(message);  // first: the state's change reports it
    setState(SessionState::Failed);
}

int ClusterRun::taskIndex(const std::string& name) const {
    const QString wanted = QString::fromStdString(name);
    for (std::size_t t = 0; t < m_tasks.size(); ++t)
        if (m_tasks[t].name == wanted) return static_cast<int>(t);
    return -1;
}

void ClusterRun::start() {
    if (m_state != SessionState::Paused) return;
    const QString program = workerProgram();
    if (program.isEmpty())
        return fail(tr("distlab-worker was not found beside the app or on PATH: a cluster's tasks run in it (docs/cluster.md)"));
    if (!m_folder.isValid()) return fail(tr("no temporary folder for the cluster's config: %1").arg(m_folder.errorString()));
    if (Status saved = saveRunConfigFile(m_config, configPath()); !saved)
        return fail(tr("the cluster's config could not be written: %1").arg(QString::fromStdString(saved.error().message)));
    // Telemetry comes in on loopback unless a task of this machine was named by another of its
    // addresses: then tasks on other hosts reach the app there (and only there).
    QHostAddress listenOn(QHostAddress::LocalHost);
    for (const Task& task : m_tasks) {
        if (!task.local) continue;
        const auto hostPort = parseHostPort(task.address.toStdString(), "cluster");
        QString host = hostPort ? QString::fromStdString(hostPort->host) : QString();
        if (host.startsWith(QLatin1Char('['))) host = host.mid(1, host.size() - 2);
        const QHostAddress address(host);
        if (!address.isNull() && !address.isLoopback()) {
            listenOn = address;
            break;
        }
    }
    if (!m_server->listen(listenOn, 0))
        return fail(tr("the app cannot listen for its tasks on %1: %2").arg(listenOn.toString(), m_server->errorString()));
    const QString host = listenOn.protocol() == QAbstractSocket::IPv6Protocol ? QLatin1Char('[') + listenOn.toString() + QLatin1Char(']')
                                                                              : listenOn.toString();
    m_telemetryAddress = host + QLatin1Char(':') + QString::number(m_server->serverPort());
    m_token = QString::fromStdString(makeClusterToken());
    setState(SessionState::Running);
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        Task& task = m_tasks[t];
        if (task.local) {
            startTask(static_cast<int>(t), program);
        } else {
            task.command = QStringLiteral("DISTLAB_CLUSTER_TOKEN=%1 distlab-worker run.json --task %2 --telemetry %3")
                               .arg(m_token, task.name, m_telemetryAddress);
        }
    }
    emit tasksChanged();
}

void ClusterRun::startTask(int index, const QString& program) {
    auto process = std::make_unique<QProcess>();
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("DISTLAB_CLUSTER_TOKEN"), m_token);
    environment.remove(QStringLiteral("TF_CONFIG"));  // the task is --task of the config's cluster
    process->setProcessEnvironment(environment);
    process->setProgram(program);
    process->setArguments({configPath(), QStringLiteral("--task"), m_tasks[static_cast<std::size_t>(index)].name,
                           QStringLiteral("--telemetry"), m_telemetryAddress, QStringLiteral("--quiet")});
    process->setWorkingDirectory(m_folder.path());
    // A task the app started ends with the app, however the app ends (a crash, a kill): it gets
    // SIGTERM when its parent dies, and stops between two steps as after Ctrl-C.
    process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    QProcess* raw = process.get();
    connect(raw, &QProcess::readyReadStandardError, this, [raw] {
        // Only the tail is kept: the message is the last error line.
        QByteArray tail = raw->property("stderrTail").toByteArray() + raw->readAllStandardError();
        if (tail.size() > kKeptErrorBytes) tail = tail.right(kKeptErrorBytes);
        raw->setProperty("stderrTail", tail);
    });
    connect(raw, &QProcess::finished, this,
            [this, index](int exitCode, QProcess::ExitStatus status) { onTaskFinished(index, exitCode, status); });
    connect(raw, &QProcess::errorOccurred, this, [this, index, raw](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart) return;
        Task& task = m_tasks[static_cast<std::size_t>(index)];
        task.state = TaskState::Failed;
        task.message = tr("could not start %1: %2").arg(raw->program(), raw->errorString());
        m_ended[static_cast<std::size_t>(index)] = true;
        m_join.taskEnded(task.reporter);
        emit tasksChanged();
        checkEnded();
    });
    process->start();
    m_tasks[static_cast<std::size_t>(index)].pid = process->processId();
    m_processes[static_cast<std::size_t>(index)] = std::move(process);
}

void ClusterRun::onTaskFinished(int index, int exitCode, QProcess::ExitStatus status) {
    const auto t = static_cast<std::size_t>(index);
    Task& task = m_tasks[t];
    // What the task sent before it exited is in its socket: read it first, so no step is lost.
    for (const auto& connection : m_connections)
        if (connection->task == index) onReadable(connection.get());
    QProcess& process = *m_processes[t];
    const QString error = lastErrorLine(process.property("stderrTail").toByteArray() + process.readAllStandardError());
    if (status == QProcess::CrashExit) {
        task.state = m_stopping ? TaskState::Stopped : TaskState::Lost;
        task.message = m_stopping ? QString() : tr("the process was killed (%1)").arg(process.errorString());
    } else if (exitCode == 0) {
        task.state = TaskState::Finished;
        const QString summary = QString::fromUtf8(process.readAllStandardOutput()).trimmed().split(QLatin1Char('\n')).last();
        if (task.message.isEmpty()) task.message = summary;
    } else if (exitCode == 130) {
        task.state = TaskState::Stopped;
    } else {
        task.state = TaskState::Failed;
        task.message = error.isEmpty() ? tr("exit code %1").arg(exitCode) : error;
    }
    m_ended[t] = true;
    m_join.taskEnded(task.reporter);
    publishReady();
    emit tasksChanged();
    checkEnded();
}

void ClusterRun::stop() {
    if (m_state != SessionState::Running) return;
    m_stopping = true;
    for (auto& process : m_processes)
        if (process && process->state() != QProcess::NotRunning) process->terminate();
    QTimer::singleShot(kStopGraceMs, this, [this] {
        for (auto& process : m_processes)
            if (process && process->state() != QProcess::NotRunning) process->kill();
    });
    // Tasks on other hosts are theirs to stop; the run no longer waits for them.
    for (std::size_t t = 0; t < m_tasks.size(); ++t)
        if (!m_tasks[t].local && !m_ended[t]) {
            m_ended[t] = true;
            m_join.taskEnded(m_tasks[t].reporter);
        }
    checkEnded();
}

void ClusterRun::onConnection() {
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        socket->setParent(this);
        if (m_connections.size() >= m_tasks.size() + kSpareConnections) {
            logRefusal(tr("%1: refused, too many connections").arg(socket->peerAddress().toString()));
            socket->abort();
            socket->deleteLater();
            continue;
        }
        auto connection = std::make_unique<Connection>();
        connection->socket = socket;
        Connection* raw = connection.get();
        m_connections.push_back(std::move(connection));
        connect(socket, &QTcpSocket::readyRead, this, [this, raw] { onReadable(raw); });
        connect(socket, &QTcpSocket::disconnected, this, [this, raw] {
            onReadable(raw);
            // A task on another host that went without saying how it ended is lost.
            if (raw->task >= 0 && !raw->lastState && !m_tasks[static_cast<std::size_t>(raw->task)].local) {
                Task& task = m_tasks[static_cast<std::size_t>(raw->task)];
                task.state = m_stopping ? TaskState::Stopped : TaskState::Lost;
                task.message = m_stopping ? QString() : tr("its connection closed without a last state");
                m_ended[static_cast<std::size_t>(raw->task)] = true;
                m_join.taskEnded(task.reporter);
                publishReady();
                emit tasksChanged();
                checkEnded();
            }
            dropConnection(raw);
        });
        QTimer::singleShot(kHelloTimeoutMs, socket, [this, raw] {
            if (raw->task < 0) refuse(raw, tr("no hello within %1 s").arg(kHelloTimeoutMs / 1000));
        });
    }
}

void ClusterRun::onReadable(Connection* connection) {
    if (connection->socket == nullptr) return;
    const QByteArray bytes = connection->socket->readAll();
    connection->reader.append(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    for (;;) {
        auto next = connection->reader.next();
        if (!next) return refuse(connection, QString::fromStdString(next.error().message));
        if (!next->has_value()) return;
        TaskMessage message = std::move(**next);
        if (connection->task < 0) {
            const auto* hello = std::get_if<TaskHello>(&message);
            if (hello == nullptr) return refuse(connection, tr("its first message is not a hello"));
            if (QString::fromStdString(hello->token) != m_token) return refuse(connection, tr("a wrong token"));
            const int index = taskIndex(hello->task);
            if (index < 0) return refuse(connection, tr("%1 is not a task of this cluster").arg(QString::fromStdString(hello->task)));
            for (const auto& other : m_connections)
                if (other->task == index)
                    return refuse(connection, tr("%1 is already connected").arg(m_tasks[static_cast<std::size_t>(index)].name));
            const int reporter = m_tasks[static_cast<std::size_t>(index)].reporter;
            if (reporter >= 0 && (hello->globalReplicas != m_hub.replicaCount() || hello->replicas != m_replicasPerReporter ||
                                  hello->firstReplica != reporter * m_replicasPerReporter))
                return refuse(connection,
                              tr("%1 runs other replicas than this cluster's").arg(m_tasks[static_cast<std::size_t>(index)].name));
            connection->task = index;
            if (!m_haveClock) {
                m_clockOrigin = hello->clockOriginUnixNs;
                m_haveClock = true;
            }
            m_clockOffset[static_cast<std::size_t>(index)] = hello->clockOriginUnixNs - m_clockOrigin;
            if (m_parameters == 0) m_parameters = hello->parameters;
            Task& task = m_tasks[static_cast<std::size_t>(index)];
            task.state = TaskState::Training;
            task.pid = hello->pid;
            task.command.clear();
            // The coordinator starts training once every task has joined: the tasks that stream
            // nothing (a parameter-server run's workers and servers) are training too.
            if (task.coordinator)
                for (Task& other : m_tasks)
                    if (other.reporter < 0 && other.state == TaskState::Starting) other.state = TaskState::Training;
            emit tasksChanged();
            continue;
        }
        takeMessage(*connection, std::move(message));
        if (connection->socket == nullptr) return;
    }
}

void ClusterRun::takeMessage(Connection& connection, TaskMessage message) {
    const auto t = static_cast<std::size_t>(connection.task);
    Task& task = m_tasks[t];
    if (auto* step = std::get_if<TaskStep>(&message)) {
        if (task.reporter < 0) return;  // its lanes are another task's to report
        // Replicas outside this task's are not its to report.
        const int first = task.reporter * m_replicasPerReporter;
        std::erase_if(step->replicas, [&](const ReplicaRecord& record) {
            return record.replica < first || record.replica >= first + m_replicasPerReporter;
        });
        task.steps = step->step.step;
        m_join.add(task.reporter, *step, m_clockOffset[t]);
        publishReady();
    } else if (const auto* state = std::get_if<TaskStateMessage>(&message)) {
        if (state->phase == TaskPhase::Training) return;
        connection.lastState = true;
        if (!state->message.empty()) task.message = QString::fromStdString(state->message);
        if (!task.local) {
            task.state = state->phase == TaskPhase::Finished      ? TaskState::Finished
                         : state->phase == TaskPhase::Interrupted ? TaskState::Stopped
                                                                  : TaskState::Failed;
            m_ended[t] = true;
            m_join.taskEnded(task.reporter);
            publishReady();
            checkEnded();
        }
        emit tasksChanged();
    } else if (const auto* summary = std::get_if<TaskSummaryMessage>(&message)) {
        if (task.message.isEmpty()) task.message = QString::fromStdString(summary->json);
        emit tasksChanged();
    } else if (auto* snapshot = std::get_if<ModelSnapshot>(&message)) {
        // Only the coordinator's is the run's model (its outcome is the run's too).
        if (task.coordinator) m_snapshot = std::make_shared<const ModelSnapshot>(std::move(*snapshot));
    } else if (auto* points = std::get_if<DataPoints>(&message)) {
        if (!task.coordinator) return;
        m_points = std::move(*points);
        emit pointsArrived();
    } else if (auto* shards = std::get_if<ShardLayout>(&message)) {
        if (!task.coordinator) return;
        m_shards = std::move(shards->shards);
        emit tasksChanged();
    }
}

void ClusterRun::refuse(Connection* connection, const QString& why) {
    if (connection->socket == nullptr) return;
    const QString peer = connection->socket->peerAddress().toString() + QLatin1Char(':') + QString::number(connection->socket->peerPort());
    logRefusal(tr("%1: refused, %2").arg(peer, why));
    connection->socket->abort();
    dropConnection(connection);
}

void ClusterRun::logRefusal(const QString& line) {
    // The last lines only: a stream of hostile connections does not grow the app.
    if (m_refusals.size() >= kKeptRefusals) m_refusals.removeFirst();
    m_refusals << line;
}

void ClusterRun::dropConnection(Connection* connection) {
    if (connection->socket != nullptr) {
        connection->socket->disconnect(this);
        connection->socket->deleteLater();
        connection->socket = nullptr;
    }
    // Removed later, from the event loop: the caller may still hold it.
    QTimer::singleShot(
        0, this, [this, connection] { std::erase_if(m_connections, [connection](const auto& kept) { return kept.get() == connection; }); });
}

void ClusterRun::publishReady() {
    for (ClusterStep& step : m_join.takeReady()) {
        for (const ReplicaRecord& record : step.replicas)
            if (record.replica >= 0 && record.replica < m_hub.replicaCount()) m_hub.replica(record.replica).tryPush(record);
        m_hub.stepChannel().publish(step.step);
        m_stepsDone = step.step.step;
    }
}

void ClusterRun::checkEnded() {
    if (m_state != SessionState::Running) return;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
        if (m_ended[t]) continue;
        if (m_tasks[t].local || m_tasks[t].state != TaskState::Waiting) return;  // still running
    }
    // Every local task has ended; a task on another host that never came is not waited for.
    bool anyLocalEnded = false;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) anyLocalEnded = anyLocalEnded || (m_tasks[t].local && m_ended[t]);
    if (!anyLocalEnded && !m_stopping) return;
    if (m_stopping) return setState(SessionState::Stopped);
    // The run's outcome is its coordinator's: an asynchronous parameter-server run that lost a
    // worker and went on has finished (the Tasks view shows the lost one).
    const auto coordinator = std::find_if(m_tasks.begin(), m_tasks.end(), [](const Task& task) { return task.coordinator; });
    if (coordinator != m_tasks.end() && coordinator->state == TaskState::Finished) return setState(SessionState::Finished);
    QStringList problems;
    for (TaskState kind : {TaskState::Lost, TaskState::Failed})
        for (const Task& task : m_tasks)
            if (task.state == kind)
                problems << (kind == TaskState::Lost ? tr("%1 was lost: %2") : tr("%1 failed: %2")).arg(task.name, task.message);
    if (problems.isEmpty())
        problems << tr("%1 ended without finishing the run").arg(coordinator != m_tasks.end() ? coordinator->name : QString());
    fail(problems.join(QStringLiteral("; ")));
}

}  // namespace distlab::ui
