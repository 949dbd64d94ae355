#pragma once
// A run in processes the app starts and watches: multi_worker_mirrored, or parameter servers with
// a cluster. One distlab-worker process per task of the cluster on this machine (QProcess); the
// tasks whose steps hold lanes (every worker of a multi-worker run; a parameter-server run's chief,
// whose updates name every worker) stream their steps and state to a port of the app's (engine/proto/task_telemetry.proto, protobuf frames
// read by TaskTelemetryReader: fuzzed, and nothing is read from a connection until its hello carries the run's token). The tasks' steps are
// joined into one run (ClusterStepJoin: one lane per process and replica) and published into a TelemetryHub that the controller drains as
// it drains a session's. A task on another host is not started: the app shows the command that starts it there and waits for it to join.
// The app never waits for a task; a task never waits for the app. GUI thread.
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <cstdint>
#include <memory>
#include <vector>

#include <distlab/config/run_config.hpp>
#include <distlab/session/session_observer.hpp>
#include <distlab/telemetry/data_points.hpp>
#include <distlab/telemetry/model_snapshot.hpp>
#include <distlab/telemetry/task_telemetry.hpp>
#include <distlab/telemetry/cluster_steps.hpp>
#include <distlab/telemetry/telemetry_hub.hpp>

class QTcpServer;
class QTcpSocket;

namespace distlab::ui {

/// A cluster of `workers` tasks on this machine's loopback, each on a port free now:
/// {"worker": ["localhost:41234", "localhost:41235", ...]}.
ClusterSpec loopbackCluster(int workers);

class ClusterRun : public QObject {
    Q_OBJECT

public:
    enum class TaskState {
        Waiting,   ///< on another host: waits for someone to start it there
        Starting,  ///< its process started; not joined yet (the rendezvous)
        Training,  ///< joined: its hello came
        Finished,  ///< exit code 0
        Stopped,   ///< interrupted (exit code 130): the user stopped the run
        Failed,    ///< exit code 1, 2 or 3: message says why
        Lost,      ///< killed by a signal, or its connection closed without a last state
    };
    struct Task {
        QString name;     ///< "worker:1"
        QString address;  ///< its cluster address, "localhost:12345"
        bool local = true;
        TaskState state = TaskState::Starting;
        qint64 pid = 0;
        std::int64_t steps = 0;    ///< steps it has reported
        QString message;           ///< why it failed, or its summary line once finished
        QString command;           ///< how to start it by hand (a task on another host)
        int reporter = -1;         ///< its index among the tasks that stream steps; -1: it streams none
        bool coordinator = false;  ///< the chief, else worker 0: its outcome is the run's
    };
    /// "waiting", "starting", "training", "finished", "stopped", "failed", "lost".
    static QString stateText(TaskState state);

    /// Nothing starts yet: state() is Paused until start(). A config without a cluster runs as one
    /// worker on loopback.
    explicit ClusterRun(const RunConfig& config, QObject* parent = nullptr);
    /// Stops the local tasks that still run (SIGTERM, then SIGKILL after two seconds).
    ~ClusterRun() override;
    ClusterRun(const ClusterRun&) = delete;
    ClusterRun& operator=(const ClusterRun&) = delete;

    /// Starts the local tasks and listens for every task's telemetry: Running, or Failed (the
    /// worker program missing, the config not writable, no port to listen on) with failed().
    void start();
    /// Interrupts every local task (SIGTERM: each stops between steps, exit code 130): Stopped
    /// once they are gone.
    void stop();

    SessionState state() const { return m_state; }
    /// The model's parameter count, as the first task to join said; 0 before.
    std::int64_t parameterCount() const { return m_parameters; }
    /// The coordinator's latest model (diagram, decision boundary); null before its first, and for
    /// models too large to stream (kMaxSnapshotValues).
    std::shared_ptr<const ModelSnapshot> latestSnapshot() const { return m_snapshot; }
    /// The coordinator's sample of the 2-D data (pointsArrived() when it comes); empty before.
    const DataPoints& points() const { return m_points; }
    /// A parameter-server chief's shards (tasksChanged() when they come); empty before.
    const std::vector<ServerShard>& shards() const { return m_shards; }
    /// Steps of the whole run handed to telemetry().
    std::int64_t stepsDone() const { return m_stepsDone; }
    /// The run's records (one producer and one reader: both this thread).
    TelemetryHub& telemetry() { return m_hub; }
    const std::vector<Task>& tasks() const { return m_tasks; }
    /// The app's telemetry address the tasks send to ("127.0.0.1:41234"); empty before start().
    QString telemetryAddress() const { return m_telemetryAddress; }
    /// The config file every task runs (in a folder of the app's while the run lives).
    QString configPath() const;
    /// Connections refused (wrong token, not task telemetry), one line each, the last 100.
    const QStringList& refusals() const { return m_refusals; }
    /// The distlab-worker program the app starts: $DISTLAB_WORKER, else the one beside the app (or
    /// its build tree's), else PATH's; empty when there is none.
    static QString workerProgram();

signals:
    void stateChanged(distlab::SessionState state);
    /// The run failed; `message` is for the user (which task, and why).
    void failed(const QString& message);
    /// A task's state, steps or message changed.
    void tasksChanged();
    /// The coordinator's data points came (points()).
    void pointsArrived();

private:
    struct Connection;
    void setState(SessionState state);
    void fail(const QString& message);
    void startTask(int index, const QString& program);
    void onTaskFinished(int index, int exitCode, QProcess::ExitStatus status);
    void onConnection();
    void onReadable(Connection* connection);
    /// A message of a connection whose hello was accepted.
    void takeMessage(Connection& connection, TaskMessage message);
    void refuse(Connection* connection, const QString& why);
    void logRefusal(const QString& line);
    void dropConnection(Connection* connection);
    /// Publishes the steps every task has reported into the hub.
    void publishReady();
    /// Ends the run once no task is left running: Finished, Stopped or Failed.
    void checkEnded();
    int taskIndex(const std::string& name) const;
    /// How many tasks stream steps: a multi-worker run's workers, a parameter-server run's chief.
    static int reportingTasks(const RunConfig& config);

    RunConfig m_config;
    QTemporaryDir m_folder;
    QString m_token;
    std::unique_ptr<QTcpServer> m_server;  // the tasks' telemetry comes in here
    QString m_telemetryAddress;
    std::vector<Task> m_tasks;
    std::vector<std::unique_ptr<QProcess>> m_processes;  // per task; null for tasks on other hosts
    std::vector<std::unique_ptr<Connection>> m_connections;
    std::shared_ptr<const ModelSnapshot> m_snapshot;
    DataPoints m_points;
    std::vector<ServerShard> m_shards;
    std::vector<bool> m_ended;                // per task: sends no more steps
    std::vector<std::int64_t> m_clockOffset;  // per task: added to its times (the first hello's clock)
    bool m_haveClock = false;
    std::int64_t m_clockOrigin = 0;
    ClusterStepJoin m_join;
    TelemetryHub m_hub;
    QStringList m_refusals;
    SessionState m_state = SessionState::Paused;
    std::int64_t m_stepsDone = 0;
    std::int64_t m_parameters = 0;
    int m_replicasPerReporter = 1;  // the lanes each streaming task reports
    bool m_stopping = false;
};

}  // namespace distlab::ui
