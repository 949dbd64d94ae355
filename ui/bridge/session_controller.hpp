#pragma once
// The GUI's handle on one run: owns the TrainingSession (its thread), drains its telemetry rings
// on a ~30 Hz timer into a bounded RunHistory, and turns the session's rare events into Qt signals.
// A requested run loads beside the current one and replaces it only once it has loaded, so a
// bad data file leaves the current run untouched. Every method: GUI thread only.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include <distlab/config/run_config.hpp>
#include <distlab/session/training_session.hpp>
#include <distlab/telemetry/data_points.hpp>

namespace distlab::ui {

class ClusterRun;
class RunHistory;
struct SavedHistory;

class SessionController : public QObject {
    Q_OBJECT

public:
    explicit SessionController(QObject* parent = nullptr);
    /// Stops the session (joins its thread: within one training step).
    ~SessionController() override;

    /// Loads `config` in a new session beside the current run; once loaded it replaces the current
    /// run (runReplaced) and plays if asked; if loading fails, runRejected and nothing changes.
    void loadRun(const RunConfig& config, bool playWhenLoaded);
    /// Drops a requested run still loading (the set-up went back to the current run's).
    void cancelPending();
    /// The config of the run still loading, or null.
    const RunConfig* pendingConfig() const;
    /// Stops the current run now and starts `config` from scratch (Reset). Emits runReplaced at once.
    void restartRun(const RunConfig& config, bool playWhenLoaded);

    /// Stops every session now (joins; within one step) and leaves the controller without a run.
    void stopAll();

    bool hasRun() const { return m_current != nullptr; }
    /// True while a requested run is still loading (beside the current one).
    bool isLoading() const;
    /// The current run's config, with the learning rate as last set live.
    const RunConfig& config() const { return m_config; }
    SessionState state() const;
    std::int64_t stepsDone() const;
    /// The current session, or null (no run, or a cluster run). Its rings belong to this controller:
    /// do not drain them.
    TrainingSession* session();
    /// The current run's cluster of processes (a multi_worker_mirrored run), or null.
    ClusterRun* cluster();
    /// Whether `config` runs as a cluster of distlab-worker processes rather than a session here.
    static bool isClusterRun(const RunConfig& config);

    void play();
    void pause();
    /// One step of the current run, or of the requested one once it has loaded.
    void stepOnce();
    /// True while the current run can still act on a control: loading, paused, stepping or running.
    bool isLive() const;
    /// Applies at the next step; kept for later runs.
    void setLearningRate(double rate);
    /// Steps per second, 0 for no limit; kept for later runs.
    void setSpeedLimit(double stepsPerSecond);
    double speedLimit() const { return m_speedLimit; }
    /// Follows element `element` of parameter `parameter` on every replica (clears the old values).
    void setWatched(int parameter, std::int64_t element);
    int watchedParameter() const { return m_watchedParameter; }
    std::int64_t watchedElement() const { return m_watchedElement; }
    /// Posts fn(trainer) to the current run's session thread, where it runs between two steps, and
    /// returns at once: the GUI thread never waits for the engine (a save may take seconds). For the
    /// user's file actions (save or load weights, a saved run, a checkpoint), a lesson's engine
    /// facts and attaching a trace. done(ran) follows on the GUI thread at a later tick, never
    /// within this call, and only while `context` lives; ran is false when no run was loaded (or it
    /// was still loading: the task would wait for the whole load), the run ended before fn ran, or
    /// fn threw (which ends the run: runFailed follows). What fn wrote, done may read: the task's end
    /// happens before done.
    void runBetweenSteps(std::function<void(Trainer&)> fn, QObject* context, std::function<void(bool ran)> done);
    /// runBetweenSteps for a task with a value: done(fn's value), or done(nullopt) when it did not run.
    template <typename Fn, typename Done>
    void askTrainer(QObject* context, Fn fn, Done done);

    // Parameter servers: what changes live, without a new run (kept in config(); liveConfigChanged).
    /// The current run's parameter-server controls, or null (not loaded, or another strategy).
    ParameterServerControls* parameterServerControls();
    /// Worker `worker`'s speed factor in [0.1, 1] (a straggler at 0.5 takes twice as long).
    void setWorkerSpeed(int worker, double speed);
    void setParameterServerMode(ParameterServerMode mode);
    /// Kills or pauses a worker of the current run. False, and nothing done, when the run has no
    /// such worker or has already ended (finished, stopped, failed): a control never acts on a
    /// run that is over (liveControlRefused says so).
    bool killWorker(int worker);
    bool setWorkerPaused(int worker, bool paused);
    /// Applies `draft` live when it differs from config() only in what a running parameter-server
    /// run can change (mode, worker speeds); returns false (nothing done) otherwise.
    bool applyLive(const RunConfig& draft);

    // Checkpoints of a parameter-server run, kept by the app while it trains: a lost server ends the
    // run (a TrainingError), and the kept checkpoint is the way on. Written on the session thread
    // (a posted task) to a temporary file that lives as long as the controller.
    /// Every `milliseconds` of running the current parameter-server run is checkpointed (0: never).
    void setAutoCheckpointInterval(int milliseconds) { m_autoCheckpointMs = milliseconds; }
    int autoCheckpointInterval() const { return m_autoCheckpointMs; }
    /// The update the kept checkpoint of the current run was taken at; -1 when none is kept.
    std::int64_t checkpointStep() const { return m_checkpointStep; }
    /// Checkpoints the current run between its next two steps, without waiting: done(error) follows
    /// on the GUI thread while `context` lives, with an empty error once the checkpoint is kept
    /// (checkpointChanged came first) or what went wrong.
    void saveCheckpointNow(QObject* context, std::function<void(const QString& error)> done);
    /// Starts the current run's config again from the kept checkpoint, paused, with the workers that
    /// were dead (killed) when it ended dead again. The result comes at a later tick (resumeFinished).
    bool resumeFromCheckpoint();
    /// Starts `config` as the current run, paused, showing `history` (a saved run's curves) and
    /// resuming from the saved run at `path` (a checkpoint): Play goes on from where it was saved.
    /// The result comes at a later tick (resumeFinished); when it fails the history is cleared.
    void openSavedRun(const RunConfig& config, const std::string& path, const SavedHistory& history);

    const RunHistory& history() const;
    /// The model's parameter count (a gradient's length): the snapshot's, or a cluster's tasks'; 0
    /// before either is known.
    std::int64_t parameterCount() const;
    std::shared_ptr<const ModelSnapshot> snapshot() const { return m_snapshot; }
    /// A split model's latest step schedule (pipeline, model_parallel); null otherwise.
    std::shared_ptr<const ScheduleSnapshot> schedule() const { return m_schedule; }
    const DataPoints& points() const { return m_points; }  // drawn under the decision boundary
    /// Seconds the current run has spent in the Running state.
    double runningSeconds() const;
    /// Telemetry records the engine dropped because the GUI fell behind.
    std::uint64_t droppedRecords();

    /// Cost of the last and the slowest drain-and-redraw tick, milliseconds (GUI thread time).
    double lastTickMs() const { return m_lastTickMs; }
    double maxTickMs() const { return m_maxTickMs; }
    /// The same, counting only the CPU time of the GUI thread (excludes time it waited for a core).
    double lastTickCpuMs() const { return m_lastTickCpuMs; }
    double maxTickCpuMs() const { return m_maxTickCpuMs; }
    std::int64_t tickCount() const { return m_tickCount; }
    void resetTickStats();
    void setTickIntervalMs(int milliseconds) { m_timer.setInterval(milliseconds); }
    /// Drains and redraws now (as the timer does).
    void tick();
    /// Before a file is written from history(): drains until it holds every step the run has done
    /// (a paused session hands steps the rings had no room for over within a few milliseconds),
    /// waiting at most `timeoutMs`; false if it could not. While the run trains, one drain.
    bool catchUp(int timeoutMs = 2000);

signals:
    void runReplaced();
    void runRejected(const QString& message);
    void stateChanged(distlab::SessionState state);
    void runFailed(const QString& message);
    /// New telemetry is in history(): views redraw. Emitted every tick.
    void ticked();
    void snapshotChanged();
    void pointsChanged();
    /// config() changed without a new run (a worker's speed, the parameter-server mode).
    void liveConfigChanged();
    /// A live control reached a run that has already ended: `message` says so.
    void liveControlRefused(const QString& message);
    /// The current cluster's tasks changed state, steps or message.
    void clusterTasksChanged();
    /// checkpointStep() changed (a checkpoint was kept, or the run it belonged to was replaced).
    void checkpointChanged();
    /// A resume asked with resumeFromCheckpoint() is done: `ok`, or why not in `message`.
    void resumeFinished(bool ok, const QString& message);

private:
    struct Run;
    class ObserverBridge;
    std::unique_ptr<Run> makeRun(const RunConfig& config, bool playWhenLoaded);
    void onRunState(std::uint64_t runId, SessionState state);
    void onRunError(std::uint64_t runId, const QString& message);
    void becomeCurrent(std::unique_ptr<Run> run);
    /// Asks the session for the data points (they arrive at a later tick: pointsChanged).
    void requestPoints();
    void takeReadyPoints();
    void applyWatched();
    /// The current run's parameter-server controls while it is live; null (and liveControlRefused) otherwise.
    ParameterServerControls* liveControls(const QString& what);
    /// Posts an automatic checkpoint when one is due; takes the answer of the last one posted.
    void autoCheckpoint();
    void takeCheckpointAnswers();
    std::string newCheckpointPath();
    void keepCheckpoint(const std::string& path, std::int64_t step);
    /// Posts the restore of checkpoint `path` to the current run (before any Play or Step queued
    /// later), killing the workers in `dead` once restored; resumeFinished follows.
    void postResume(const std::string& path, std::vector<int> dead);
    /// Calls the done of every runBetweenSteps task that has ended (tick).
    void finishTasks();

    struct BetweenStepsTask;
    std::vector<BetweenStepsTask> m_tasks;  // posted by runBetweenSteps, done not called yet
    std::unique_ptr<Run> m_current;
    std::unique_ptr<Run> m_pending;
    std::unique_ptr<RunHistory> m_emptyHistory;
    RunConfig m_config;
    std::shared_ptr<const ModelSnapshot> m_snapshot;
    std::shared_ptr<const ScheduleSnapshot> m_schedule;
    DataPoints m_points;
    std::uint64_t m_nextRunId = 1;
    double m_speedLimit = 0.0;
    int m_watchedParameter = 0;
    std::int64_t m_watchedElement = 0;
    QTimer m_timer;
    QElapsedTimer m_runningClock;
    double m_runningSeconds = 0.0;
    bool m_clockRunning = false;
    double m_lastTickMs = 0.0;
    double m_maxTickMs = 0.0;
    double m_lastTickCpuMs = 0.0;
    double m_maxTickCpuMs = 0.0;
    std::int64_t m_tickCount = 0;
    QTemporaryDir m_checkpointDir;
    int m_autoCheckpointMs = 3000;
    QElapsedTimer m_checkpointClock;  // since the last automatic checkpoint was posted
    std::string m_checkpointPath;     // the kept checkpoint's file
    std::int64_t m_checkpointStep = -1;
    std::uint64_t m_checkpointFiles = 0;
    bool m_keepCheckpoint = false;  // becomeCurrent keeps it: the new run resumes from it
};

template <typename Fn, typename Done>
void SessionController::askTrainer(QObject* context, Fn fn, Done done) {
    using Value = std::invoke_result_t<Fn&, Trainer&>;
    // Written on the session thread, read in done once the task has ended (runBetweenSteps).
    auto value = std::make_shared<std::optional<Value>>();
    runBetweenSteps([value, fn = std::move(fn)](Trainer& trainer) mutable { value->emplace(fn(trainer)); }, context,
                    [value, done = std::move(done)](bool) mutable { done(std::move(*value)); });
}

}  // namespace distlab::ui
