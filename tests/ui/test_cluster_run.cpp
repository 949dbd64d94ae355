// A cluster run in the app, as a person uses it: multi-worker mirrored picked in the set-up, Play
// starts one distlab-worker process per task, the Tasks view follows them, and every view gets one
// lane per process and replica. The run ends where the same cluster run headless ends; a task
// killed with kill -9 fails the run naming it; garbage on the app's telemetry port is refused and
// the run goes on; Reset stops every process; a task on another host waits for its command.
#include <QtTest>

#include <QComboBox>
#include <QHeaderView>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <csignal>
#include <cstring>
#include <memory>

#include <distlab/config/run_config_json.hpp>
#include <distlab/formats/safetensors.hpp>
#include <distlab/session/training_session.hpp>
#include <distlab/telemetry/task_telemetry.hpp>

#include "bridge/cluster_run.hpp"
#include "bridge/run_history.hpp"
#include "main_window.hpp"
#include "panels/cluster_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/training_panel.hpp"
#include "run_files.hpp"
#include "ui_test_support.hpp"
#include "views/boundary_view.hpp"
#include "views/communication_view.hpp"
#include "views/parameter_server_view.hpp"
#include "views/tasks_view.hpp"
#include "views/topology_canvas.hpp"
#include "views/worker_controls.hpp"
#include "window/saved_run_actions.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

/// A cluster's tasks meet, train and exit: generous on a loaded two-core machine.
constexpr int kClusterTimeoutMs = 60000;

RunConfig spiralConfig(std::int64_t steps) {
    auto config = parseRunConfig(R"({
        "name": "cluster-in-the-app",
        "model": {"layers": [{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "dense", "units": 2}]},
        "data": {"source": "synthetic", "kind": "spiral", "samples": 800, "global_batch_size": 32},
        "optimizer": {"type": "adam", "learning_rate": 0.01},
        "steps": 1})",
                                 "test");
    config->steps = steps;
    return *config;
}

RunConfig clusterConfig(std::int64_t steps, int workers, double timeoutSeconds = 10.0) {
    RunConfig config = spiralConfig(steps);
    config.strategy.type = StrategyKind::MultiWorkerMirrored;
    config.strategy.devices = {DeviceName{DeviceName::Kind::Cpu, 0}, DeviceName{DeviceName::Kind::Cpu, 1}};
    config.strategy.timeoutSeconds = timeoutSeconds;
    config.cluster = loopbackCluster(workers);
    return config;
}

/// Parameter servers in processes: a chief, two workers and one server on loopback, asynchronous.
RunConfig parameterServerConfig(std::int64_t steps) {
    RunConfig config = spiralConfig(steps);
    config.strategy = StrategyConfig{};
    config.strategy.type = StrategyKind::ParameterServer;
    config.strategy.workers = 2;
    config.strategy.parameterServers = 1;
    config.strategy.timeoutSeconds = 10.0;
    const ClusterSpec ports = loopbackCluster(4);
    config.cluster.chief = {ports.worker[0]};
    config.cluster.worker = {ports.worker[1], ports.worker[2]};
    config.cluster.ps = {ports.worker[3]};
    return config;
}

/// Every task's name, state and last message: what a failed wait prints, so a run that ended
/// otherwise than expected says why.
QString taskReport(const ClusterRun& cluster) {
    QStringList lines;
    for (const ClusterRun::Task& task : cluster.tasks())
        lines << QStringLiteral("%1 (%2): %3").arg(task.name, ClusterRun::stateText(task.state), task.message);
    return lines.join(QStringLiteral("; "));
}

bool processAlive(qint64 pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == 0; }

/// Exited: gone, or a zombie its new parent has not reaped yet.
bool processGone(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    return !processAlive(pid) || !stat.open(QIODevice::ReadOnly) || stat.readAll().split(')').last().trimmed().startsWith('Z');
}

/// The final loss the same cluster prints when its tasks run headless (distlab-worker, no app).
/// The same cluster run headless (distlab-worker tasks): its final loss, and worker 0's weights
/// saved to `weights`.
double headlessFinalLoss(const RunConfig& config, const QString& weights) {
    QTemporaryDir folder;
    const QString path = folder.filePath(QStringLiteral("run.json"));
    if (!saveRunConfigFile(config, path)) return -1.0;
    std::vector<std::unique_ptr<QProcess>> tasks;
    for (int w = 0; w < static_cast<int>(config.cluster.workerCount()); ++w) {
        auto task = std::make_unique<QProcess>();
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("DISTLAB_CLUSTER_TOKEN"), QStringLiteral("0123456789abcdef0123456789abcdef"));
        task->setProcessEnvironment(environment);
        task->start(ClusterRun::workerProgram(), {path, QStringLiteral("--task"), QStringLiteral("worker:%1").arg(w),
                                                  QStringLiteral("--quiet"), QStringLiteral("--save-weights"), weights});
        tasks.push_back(std::move(task));
    }
    for (auto& task : tasks) task->waitForFinished(kClusterTimeoutMs);
    const QByteArray last = tasks.front()->readAllStandardOutput().trimmed().split('\n').last();
    return QJsonDocument::fromJson(last).object().value(QStringLiteral("final_loss")).toDouble(-1.0);
}

}  // namespace

class TestClusterRun : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;

private slots:
    void initTestCase() {
        useIsolatedSettings(QStringLiteral("test_cluster_run"));
        QVERIFY2(!ClusterRun::workerProgram().isEmpty(), "distlab-worker is not found (DISTLAB_WORKER)");
    }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1440, 900), spiralConfig(300));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() { m_window.reset(); }

    void aClusterPickedInTheSetUpTrainsAsProcessesLikeHeadless() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        QVERIFY(!tabShown(window, &window.tasksView()));
        // As a person would: the strategy, two worker processes of two replicas each.
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findText(QStringLiteral("Multi-worker mirrored")));
        strategy.devicesBox().setValue(2);
        strategy.clusterOptions().workersBox().setValue(2);
        // Gloo's ring between the workers (the default, auto, is the direct exchange between two).
        strategy.clusterOptions().communicationBox().setCurrentIndex(
            strategy.clusterOptions().communicationBox().findData(static_cast<int>(CollectiveImplementation::Ring)));
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::MultiWorkerMirrored, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window) && window.controller().cluster() != nullptr, kLoadTimeoutMs);
        QVERIFY(tabShown(window, &window.tasksView()));
        QVERIFY(tabShown(window, &window.boundaryView()));  // drawn from the coordinator's snapshots
        QVERIFY(!window.stepAction()->isVisible());         // a cluster's tasks cannot step once
        const RunConfig config = window.controller().config();
        QCOMPARE(config.cluster.workerCount(), std::int64_t{2});
        QCOMPARE(config.strategy.communication, CollectiveImplementation::Ring);
        QCOMPARE(window.controller().history().replicaCount(), 4);
        QVERIFY2(window.statusText().contains(QStringLiteral("2 workers × 2 replicas (processes)")), qPrintable(window.statusText()));

        window.playAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Finished, kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        for (const ClusterRun::Task& task : cluster.tasks()) {
            QCOMPARE(task.state, ClusterRun::TaskState::Finished);
            QCOMPARE(task.steps, std::int64_t{300});
            QVERIFY(!processAlive(task.pid));
        }
        QVERIFY2(cluster.refusals().isEmpty(), qPrintable(cluster.refusals().join('\n')));
        window.controller().tick();
        const RunHistory& history = window.controller().history();
        QCOMPARE(history.lastStep().step, std::int64_t{300});
        // One lane per process and replica: every one of the four reported the last step.
        const int last = history.timelineCount() - 1;
        for (int replica = 0; replica < 4; ++replica) {
            const ReplicaRecord& record = history.timelineRecord(last, replica);
            QCOMPARE(record.step, std::int64_t{300});
            QCOMPARE(record.replica, replica);
            QVERIFY(record.bytesSent > 0);  // each took part in the reduction
            // The hop between the processes is the leads' (each worker's replica 0), within their
            // communication; the other replicas wait for it in memory.
            const bool lead = replica % 2 == 0;
            QVERIFY2((record.networkNs > 0) == lead, qPrintable(QStringLiteral("replica %1: %2 ns").arg(replica).arg(record.networkNs)));
            if (lead) {
                QVERIFY(record.networkBeginNs >= record.computeEndNs);
                QVERIFY(record.networkBeginNs + record.networkNs <= record.commEndNs);
            }
        }
        // Its weights live in the processes: the app offers no Save run (the coordinator's
        // --checkpoint backs them up) and does not ask to save before they are discarded.
        QVERIFY(!window.savedRuns().saveRunAction()->isEnabled());
        QVERIFY(window.savedRuns().saveRunAction()->toolTip().contains(QStringLiteral("--checkpoint")));
        QVERIFY(!window.savedRuns().runHasUnsavedSteps());
        // The tasks view shows both, finished.
        window.views().setCurrentWidget(&window.tasksView());
        QTableWidget& table = window.tasksView().table();
        QTRY_COMPARE_WITH_TIMEOUT(table.rowCount(), 2, 2000);
        QCOMPARE(table.item(1, 0)->text(), QStringLiteral("worker:1"));
        QCOMPARE(table.item(1, 3)->text(), QStringLiteral("finished"));
        // The communication view: no step-through and no links (the all-reduce crosses processes),
        // so the device table heads its column, every column in view, one row per process and replica.
        window.views().setCurrentWidget(&window.communicationView());
        QTableWidget& devices = window.communicationView().deviceTable();
        window.controller().tick();
        QTRY_COMPARE_WITH_TIMEOUT(devices.rowCount(), 4, 2000);
        QCOMPARE(devices.item(3, 0)->text(), QStringLiteral("worker 1 · cpu:1"));
        QVERIFY(!window.communicationView().linkTable().isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(devices.viewport()->width() >= devices.horizontalHeader()->length(), 2000);
        QVERIFY2(devices.y() < 3 * devices.fontMetrics().height(),
                 qPrintable(QStringLiteral("the device table starts %1 px down").arg(devices.y())));
        // The run's loss is the cluster's own: the same cluster headless ends on the same loss.
        QTemporaryDir folder;
        const QString weights = folder.filePath(QStringLiteral("headless.safetensors"));
        const double headless = headlessFinalLoss(config, weights);
        QVERIFY(headless > 0.0);
        QCOMPARE(history.lastStep().loss, headless);
        // The diagram's and the boundary's model is the coordinator's, streamed: after the last
        // step, the weights the same run saves headless, and the boundary over the 2-D spiral.
        const std::shared_ptr<const ModelSnapshot> snapshot = window.controller().snapshot();
        QVERIFY(snapshot != nullptr);
        QCOMPARE(snapshot->step, std::int64_t{300});
        QCOMPARE(snapshot->gridResolution, SessionOptions{}.boundaryResolution);
        QCOMPARE(snapshot->grid.size(), std::size_t(snapshot->gridResolution * snapshot->gridResolution));
        // and the points drawn under it, the coordinator's sample of the data: all of it, at most 2,000 a split.
        const DataPoints& points = window.controller().points();
        QVERIFY(points.classification);
        QVERIFY(config.data.samples <= std::int64_t{DataPoints::kMaxPoints});
        QCOMPARE(static_cast<std::int64_t>(points.trainValue.size() + points.testValue.size()), config.data.samples);
        QCOMPARE(points.train.size(), 2 * points.trainValue.size());
        auto saved = readSafeTensors(weights.toStdString());
        QVERIFY2(saved.ok(), saved ? "" : saved.error().message.c_str());
        QCOMPARE(saved->tensors.size(), snapshot->parameters.size());
        for (const ParameterInfo& info : snapshot->parameters) {
            const SafeTensor& tensor = saved->tensors.at(info.name);
            QCOMPARE(tensor.shape, info.shape);
            QVERIFY2(std::memcmp(tensor.bytes.data(), snapshot->values.data() + info.offset, tensor.bytes.size()) == 0,
                     qPrintable(QString::fromStdString(info.name)));
        }
    }

    void aKilledTaskFailsTheRunNamingIt() {
        MainWindow& window = *m_window;
        window.startRun(clusterConfig(0, 2), true);  // until stopped
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr && window.controller().stepsDone() > 50, kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        const qint64 victim = cluster.tasks()[1].pid;
        QVERIFY(processAlive(victim));
        QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Failed, kClusterTimeoutMs);
        QCOMPARE(cluster.tasks()[1].state, ClusterRun::TaskState::Lost);
        QCOMPARE(cluster.tasks()[0].state, ClusterRun::TaskState::Failed);
        QVERIFY2(cluster.tasks()[0].message.contains(QStringLiteral("lost task worker:1")), qPrintable(cluster.tasks()[0].message));
        QTRY_VERIFY_WITH_TIMEOUT(!m_recorder->errors.isEmpty(), 2000);
        QVERIFY2(m_recorder->errors.back().contains(QStringLiteral("worker:1 was lost")), qPrintable(m_recorder->errors.join('\n')));
        QVERIFY(!processAlive(cluster.tasks()[0].pid));
    }

    void garbageOnTheTelemetryPortIsRefusedAndTheRunGoesOn() {
        MainWindow& window = *m_window;
        window.startRun(clusterConfig(4000, 2), true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr && window.controller().stepsDone() > 0, kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        const QStringList address = cluster.telemetryAddress().split(QLatin1Char(':'));
        QCOMPARE(address.front(), QStringLiteral("127.0.0.1"));  // loopback only
        TaskHello stranger;
        stranger.token = "ffffffffffffffffffffffffffffffff";  // not the run's
        stranger.task = "worker:1";
        stranger.replicas = 2;
        stranger.firstReplica = 2;
        stranger.globalReplicas = 4;
        const std::string wrongToken = encodeTaskMessage(stranger);
        const QList<QByteArray> garbage{QByteArray("\x13\x37 random bytes \xff\xfe", 18), QByteArray("\xff\xff\xff\xff\x0f", 5),
                                        QByteArray(wrongToken.data(), static_cast<qsizetype>(wrongToken.size())),
                                        QByteArray(wrongToken.data(), 7)};  // truncated: then the connection closes
        for (const QByteArray& bytes : garbage) {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, address.back().toUShort());
            QVERIFY(socket.waitForConnected(5000));
            socket.write(bytes);
            QVERIFY(socket.waitForBytesWritten(5000));
            if (bytes.size() == 7) socket.disconnectFromHost();
            QTest::qWait(50);
        }
        QTRY_VERIFY_WITH_TIMEOUT(cluster.refusals().size() >= 3, 5000);
        QVERIFY2(cluster.refusals().join('\n').contains(QStringLiteral("wrong token")), qPrintable(cluster.refusals().join('\n')));
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Finished, kClusterTimeoutMs);
        QCOMPARE(window.controller().stepsDone(), std::int64_t{4000});
    }

    void resetStopsEveryProcess() {
        MainWindow& window = *m_window;
        window.startRun(clusterConfig(0, 2), true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr && window.controller().stepsDone() > 10, kClusterTimeoutMs);
        // A run without a step limit is evaluated for the app as it trains (every half second), so
        // the test curve is drawn before any end.
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().hasTest(), 10000);
        std::vector<qint64> pids;
        for (const ClusterRun::Task& task : window.controller().cluster()->tasks()) pids.push_back(task.pid);
        window.resetAction()->trigger();
        for (qint64 pid : pids) QTRY_VERIFY_WITH_TIMEOUT(!processAlive(pid), 5000);
        QCOMPARE(window.controller().state(), SessionState::Paused);  // back to the start, not started again
        QCOMPARE(window.controller().stepsDone(), std::int64_t{0});
    }

    void aParameterServerClusterRunsItsChiefWorkersAndServers() {
        MainWindow& window = *m_window;
        window.startRun(parameterServerConfig(300), true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr, kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Finished, kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        QCOMPARE(cluster.tasks().size(), std::size_t{4});  // chief:0, worker:0, worker:1, ps:0
        QCOMPARE(cluster.tasks()[0].name, QStringLiteral("chief:0"));
        QCOMPARE(cluster.tasks()[3].name, QStringLiteral("ps:0"));
        for (const ClusterRun::Task& task : cluster.tasks())
            QVERIFY2(task.state == ClusterRun::TaskState::Finished, qPrintable(task.name + ": " + task.message));
        window.controller().tick();
        const RunHistory& history = window.controller().history();
        QCOMPARE(history.lastStep().step, std::int64_t{300});
        QCOMPARE(history.replicaCount(), 2);  // a lane per worker, as in one process
        QVERIFY2(window.statusText().contains(QStringLiteral("2 workers, 1 parameter server (processes)")),
                 qPrintable(window.statusText()));
        QVERIFY(history.isParameterServer());
        // Asynchronous: each update applied one worker's gradient, and both workers' did.
        std::vector<int> applied(2, 0);
        for (const MetricRow& row : history.rows())
            if (row.worker >= 0 && row.worker < 2) ++applied[static_cast<std::size_t>(row.worker)];
        QVERIFY2(applied[0] > 0 && applied[1] > 0, qPrintable(QStringLiteral("%1 / %2").arg(applied[0]).arg(applied[1])));
        // The Servers tab shows the cluster's servers and workers as the chief streams them, without
        // the controls that act on threads of the app's process: its one server, two workers, the
        // updates that applied each one's gradients.
        QVERIFY(tabShown(window, &window.parameterServerView()));
        window.views().setCurrentWidget(&window.parameterServerView());
        ParameterServerView& servers = window.parameterServerView();
        QTRY_COMPARE_WITH_TIMEOUT(servers.topology().workerCount(), 2, 5000);
        QCOMPARE(servers.topology().serverCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(servers.topology().worker(0).applied + servers.topology().worker(1).applied, std::int64_t{300}, 5000);
        QVERIFY(!servers.workerControls().isVisible());
        QVERIFY(!servers.modeBox().isEnabled());
        QVERIFY(servers.loseServerButton(0) == nullptr);
        window.views().setCurrentIndex(0);  // the tab is remembered: the next test opens on Learning, as before
        // Each worker's lane carries its copy of the watched value (parameter 0's element 0) from
        // its pull, as a worker thread's does: set (Glorot's initial values are not 0) and moving
        // over the updates that applied that worker's gradient.
        for (int worker = 0; worker < 2; ++worker) {
            std::vector<float> values;
            for (int index = 0; index < history.timelineCount(); ++index)
                if (const ReplicaRecord& record = history.timelineRecord(index, worker); record.step > 0)  // its gradient's update
                    values.push_back(record.watched[0]);
            QVERIFY2(values.size() >= 2,
                     qPrintable(QStringLiteral("worker %1 applied %2 gradients in the timeline").arg(worker).arg(values.size())));
            QVERIFY2(values.front() != 0.0f && values.back() != 0.0f && values.front() != values.back(),
                     qPrintable(QStringLiteral("worker %1: %2 then %3").arg(worker).arg(values.front()).arg(values.back())));
        }
    }

    void anAsynchronousParameterServerClusterGoesOnWithoutAKilledWorker() {
        MainWindow& window = *m_window;
        window.startRun(parameterServerConfig(6000), true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr && window.controller().stepsDone() > 50, kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        QCOMPARE(::kill(static_cast<pid_t>(cluster.tasks()[2].pid), SIGKILL), 0);  // worker:1
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().state() != SessionState::Running, 3 * kClusterTimeoutMs);
        QVERIFY2(window.controller().state() == SessionState::Finished, qPrintable(taskReport(cluster)));
        QCOMPARE(cluster.tasks()[2].state, ClusterRun::TaskState::Lost);
        QCOMPARE(cluster.tasks()[0].state, ClusterRun::TaskState::Finished);
        QVERIFY2(cluster.tasks()[0].message.contains(QStringLiteral("\"lost_tasks\":[\"worker:1\"]")),
                 qPrintable(cluster.tasks()[0].message));
        QCOMPARE(window.controller().stepsDone(), std::int64_t{6000});
    }

    void killingTheAppEndsItsTasks() {
        // The app itself, as a person starts it, killed with kill -9 while its cluster trains.
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("cluster.json"));
        QVERIFY(saveRunConfigFile(clusterConfig(0, 2), path));
        QProcess app;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        app.setProcessEnvironment(environment);
        app.start(QStringLiteral(DISTLAB_GUI_PATH), {path, QStringLiteral("--autostart")});
        QVERIFY(app.waitForStarted());
        std::vector<qint64> tasks;
        QTRY_VERIFY_WITH_TIMEOUT((tasks = childProcesses(app.processId(), "distlab-worker")).size() == 2, kClusterTimeoutMs);
        QCOMPARE(::kill(static_cast<pid_t>(app.processId()), SIGKILL), 0);
        QVERIFY(app.waitForFinished(5000));
        for (qint64 pid : tasks) QTRY_VERIFY_WITH_TIMEOUT(processGone(pid), 10000);
    }

    void aTaskOnAnotherHostShowsItsCommandAndIsWaitedFor() {
        MainWindow& window = *m_window;
        RunConfig config = clusterConfig(100, 2, 2.0);
        config.cluster.worker[1] = "other-host.invalid:23456";
        window.startRun(config, true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().cluster() != nullptr && !window.controller().cluster()->telemetryAddress().isEmpty(),
                                 kClusterTimeoutMs);
        ClusterRun& cluster = *window.controller().cluster();
        QCOMPARE(cluster.tasks()[1].local, false);
        QCOMPARE(cluster.tasks()[1].state, ClusterRun::TaskState::Waiting);
        QVERIFY2(cluster.tasks()[1].command.contains(QStringLiteral("distlab-worker run.json --task worker:1 --telemetry ")),
                 qPrintable(cluster.tasks()[1].command));
        QVERIFY(cluster.tasks()[1].command.contains(QStringLiteral("DISTLAB_CLUSTER_TOKEN=")));
        // It never comes: worker 0 gives up after the 2 s timeout, naming it.
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Failed, kClusterTimeoutMs);
        QVERIFY2(cluster.tasks()[0].message.contains(QStringLiteral("worker:1 never came to the rendezvous")),
                 qPrintable(cluster.tasks()[0].message));
    }
};

QTEST_MAIN(TestClusterRun)
#include "test_cluster_run.moc"
