#pragma once
// A run on its own thread, which owns its trainer: nothing else ever touches it. Commands (play,
// pause, step, stop, learning rate) are queued and take effect between steps; anything else that
// needs the trainer (saving weights, attaching a trace) is posted as a task and runs there, between
// steps, its result or exception returned through a future. Telemetry flows out through bounded
// rings that the engine never waits on (steps the ring has no room for wait in a bounded backlog,
// telemetry/step_channel.hpp: none is lost); rare events go to one observer. No global state:
// several sessions can run side by side.
//
// Failures end the run, never the process: a step or a task that throws (a replica's exception is
// rethrown by its step, naming the replica) moves the session to Failed with the message, fails
// every queued task's future, and leaves the thread waiting to be destroyed.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "distlab/distribute/parameter_server_controls.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/model_snapshot.hpp"
#include "distlab/telemetry/schedule_snapshot.hpp"
#include "distlab/session/session_observer.hpp"
#include "distlab/telemetry/telemetry_hub.hpp"

namespace distlab {

/// A value of one parameter to follow on every replica: parameter index and element index.
struct WatchedValue {
    int parameter = 0;
    std::int64_t element = 0;
};

/// The exception in a posted task's future when the session ended (stopped, failed, destroyed)
/// before the task could run.
class SessionEnded : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SessionOptions {
    std::int64_t stepLimit = -1;           ///< stop after this many steps; -1: the config's `steps`; 0: unlimited
    double evalIntervalSeconds = 0.5;      ///< live test evaluation period (wall clock)
    std::int64_t evalMaxExamples = 2048;   ///< cap for the live evaluation
    double snapshotIntervalSeconds = 0.1;  ///< period of model snapshots (diagram, boundary)
    int boundaryResolution = 48;           ///< grid cells per side for 2-D data
};

class TrainingSession {
public:
    /// Starts the session thread, which loads the data and builds the trainer (state Loading,
    /// then Paused, or Failed with onError). Returns at once. observer may be null.
    TrainingSession(RunConfig config, SessionOptions options, SessionObserver* observer);
    /// Stops the thread and joins it (within one step).
    ~TrainingSession();
    TrainingSession(const TrainingSession&) = delete;
    TrainingSession& operator=(const TrainingSession&) = delete;

    // Commands; any thread; take effect between steps, in the order given.
    void play();
    void pause();
    /// One step while paused (state Stepping during it, then Paused or Finished).
    void stepOnce();
    /// Ends the run; the thread exits after the current step.
    void stop();
    /// The learning rate from the next step on (queued like every command, so a change made
    /// while loading applies once loaded, and none is lost).
    void setLearningRate(float rate);
    /// At most this many steps per second; 0: as fast as possible. The session sleeps between
    /// steps, except for parameter servers, whose workers take the limit themselves
    /// (ParameterServerControls::setUpdateRateLimit), so that a straggler stays one.
    void setSpeedLimit(double stepsPerSecond);
    /// Publishes a fresh model snapshot soon (e.g. after weights were loaded while paused).
    void requestSnapshot();
    /// Chooses which parameter elements every replica reports (up to kMaxWatchedValues). Records
    /// carry the generation of the choice they report (1 for the first call, then 2, ...).
    void setWatched(std::vector<WatchedValue> watched);

    /// Runs task(trainer) on the session thread between steps (after loading, when posted while
    /// loading) and returns its result through the future. Any thread; never blocks. A task that
    /// throws ends the run (state Failed, onError) and its future holds the exception; a task the
    /// session can no longer run (it stopped, failed or is being destroyed) gets SessionEnded.
    /// Waiting on the future from the session's own thread (an observer callback) would deadlock.
    template <typename Task>
    auto post(Task task) -> std::future<std::invoke_result_t<Task&, Trainer&>>;

    SessionState state() const { return m_state.load(std::memory_order_acquire); }
    /// The config the session was created with (never changed: live changes are commands).
    const RunConfig& config() const { return m_config; }
    int replicaCount() const { return static_cast<int>(m_config.strategy.replicaCount()); }
    /// The rings (one reader thread). Valid for the session's life.
    TelemetryHub& telemetry() { return m_telemetry; }
    /// The latest model picture, or null before the first. Any thread.
    std::shared_ptr<const ModelSnapshot> latestSnapshot() const;
    /// A split model's latest step schedule (pipeline, model_parallel), or null: other strategies,
    /// or before the first step. Any thread.
    std::shared_ptr<const ScheduleSnapshot> latestSchedule() const;
    /// Steps completed; any thread.
    std::int64_t stepsDone() const { return m_stepsDone.load(std::memory_order_acquire); }
    /// The parameter-server controls (slow, pause, kill workers; lose a server; async/sync), or
    /// null before the run is loaded or for other strategies. The controls are thread-safe and
    /// live as long as the session.
    ParameterServerControls* parameterServerControls();

private:
    enum class Command { Play, Pause, Step, Stop, Task };
    /// A queued task: runs on the session thread, or is told the session ended.
    struct QueuedTask {
        std::function<void(Trainer&)> run;
        std::function<void(std::exception_ptr)> cancel;
    };
    void enqueue(Command command, QueuedTask task = {});
    void threadMain(const std::stop_token& stop);
    /// Ends the thread's run: stops accepting tasks and cancels the queued ones.
    void closeQueue();
    void fail(const std::string& message);
    void setState(SessionState state);
    bool processCommands(bool block);
    /// One trainer step; false when it applied nothing (paused or paced parameter-server workers).
    bool runOneStep();
    void publishTelemetry(const StepReport& report, const std::optional<EvalRecord>& evaluation);
    /// Evaluates when due (or `force`d): by wall time, every `eval_every` steps.
    std::optional<EvalRecord> evaluationIfDue(bool force);
    /// An evaluation between steps (a pause, the last step): sent on the evaluations' ring.
    void maybeEvaluate(bool force);
    void maybeSnapshot(bool force);
    bool throttle();

    RunConfig m_config;
    SessionOptions m_options;
    SessionObserver* m_observer;
    TelemetryHub m_telemetry;
    std::unique_ptr<Trainer> m_trainer;
    std::atomic<SessionState> m_state{SessionState::Loading};
    std::atomic<std::int64_t> m_stepsDone{0};
    std::atomic<double> m_speedLimit{0.0};
    std::atomic<bool> m_hasCommands{false};
    std::mutex m_commandMutex;
    std::condition_variable_any m_commandReady;
    std::deque<std::pair<Command, QueuedTask>> m_commands;
    bool m_closed = false;  ///< guarded by m_commandMutex: the thread takes no more commands
    std::mutex m_watchMutex;
    std::vector<WatchedValue> m_watched;
    std::atomic<bool> m_watchChanged{false};
    std::uint32_t m_watchGeneration = 0;       // guarded by m_watchMutex
    std::uint32_t m_watchGenerationLocal = 0;  // session thread's copy
    mutable std::mutex m_snapshotMutex;
    std::shared_ptr<const ModelSnapshot> m_snapshot;
    std::shared_ptr<const ScheduleSnapshot> m_schedule;        // guarded by m_snapshotMutex
    std::unique_ptr<class ScheduleCapture> m_scheduleCapture;  // session thread; null unless the model is split
    std::int64_t m_lastScheduleNs = 0;
    std::int64_t m_stepLimit = 0;
    std::int64_t m_lastEvalNs = 0;
    std::int64_t m_lastEvalStep = 0;
    std::int64_t m_lastSnapshotNs = 0;
    std::int64_t m_nextStepNs = 0;
    bool m_running = false;
    std::jthread m_thread;  // last: joined first on destruction
};

template <typename Task>
auto TrainingSession::post(Task task) -> std::future<std::invoke_result_t<Task&, Trainer&>> {
    using R = std::invoke_result_t<Task&, Trainer&>;
    // The promise is shared by the two halves of the queued task (std::function must be copyable).
    auto promise = std::make_shared<std::promise<R>>();
    auto future = promise->get_future();
    QueuedTask queued{[promise, task = std::move(task)](Trainer& trainer) mutable {
                          try {
                              if constexpr (std::is_void_v<R>) {
                                  task(trainer);
                                  promise->set_value();
                              } else {
                                  promise->set_value(task(trainer));
                              }
                          } catch (...) {
                              promise->set_exception(std::current_exception());
                              throw;  // the run ends: the trainer may be half-changed
                          }
                      },
                      [promise](std::exception_ptr why) { promise->set_exception(std::move(why)); }};
    enqueue(Command::Task, std::move(queued));
    return future;
}

}  // namespace distlab
