#include "bridge/session_controller.hpp"

#include <QDir>
#include <QFile>
#include <QLocale>
#include <QMetaObject>
#include <QPointer>

#include <distlab/config/run_config_json.hpp>
#include <distlab/config/run_limits.hpp>
#include <distlab/formats/checkpoint.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "bridge/run_history.hpp"
#include "bridge/session_run.hpp"
#include "bridge/telemetry_drain.hpp"

namespace distlab::ui {

namespace {
constexpr int kTickIntervalMs = 33;  // ~30 Hz, whatever the step rate

// CPU time of the calling thread, nanoseconds (0 where the clock is missing).
std::int64_t threadCpuNs() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec now{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) == 0) return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
#endif
    return 0;
}
}  // namespace

SessionController::SessionController(QObject* parent) : QObject(parent), m_emptyHistory(std::make_unique<RunHistory>(1)) {
    m_timer.setInterval(kTickIntervalMs);
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &SessionController::tick);
    m_timer.start();
}

SessionController::~SessionController() {
    m_timer.stop();
    m_pending.reset();
    m_current.reset();
}

std::unique_ptr<SessionController::Run> SessionController::makeRun(const RunConfig& config, bool playWhenLoaded) {
    const auto replicas = static_cast<int>(config.globalReplicaCount());  // a cluster's: every task's
    auto run = std::make_unique<Run>(m_nextRunId++, replicas);
    run->config = config;
    run->playWhenLoaded = playWhenLoaded;
    run->observer = std::make_unique<ObserverBridge>(this, run->id);
    if (isClusterRun(config)) {
        // Loaded at once (nothing to read yet: the tasks read the data when Play starts them).
        run->cluster = std::make_unique<ClusterRun>(config);
        const std::uint64_t id = run->id;
        connect(run->cluster.get(), &ClusterRun::stateChanged, this, [this, id](SessionState state) { onRunState(id, state); });
        connect(run->cluster.get(), &ClusterRun::failed, this, [this, id](const QString& message) { onRunError(id, message); });
        connect(run->cluster.get(), &ClusterRun::tasksChanged, this, &SessionController::clusterTasksChanged);
        connect(run->cluster.get(), &ClusterRun::pointsArrived, this, [this, id] {
            if (!m_current || m_current->id != id) return;
            m_points = m_current->cluster->points();
            emit pointsChanged();
        });
        QMetaObject::invokeMethod(
            this, [this, id] { onRunState(id, SessionState::Paused); }, Qt::QueuedConnection);
        return run;
    }
    SessionOptions options;
    run->session = std::make_unique<TrainingSession>(config, options, run->observer.get());
    run->session->setSpeedLimit(m_speedLimit);
    run->session->setWatched({WatchedValue{0, 0}});
    return run;
}

void SessionController::loadRun(const RunConfig& config, bool playWhenLoaded) {
    if (m_pending && m_pending->config == config) {  // already loading: keep it (and a Play asked meanwhile)
        m_pending->playWhenLoaded = m_pending->playWhenLoaded || playWhenLoaded;
        return;
    }
    m_pending.reset();  // a newer request supersedes one still loading
    m_pending = makeRun(config, playWhenLoaded);
}

void SessionController::cancelPending() { m_pending.reset(); }

const RunConfig* SessionController::pendingConfig() const { return m_pending ? &m_pending->config : nullptr; }

void SessionController::restartRun(const RunConfig& config, bool playWhenLoaded) {
    m_pending.reset();
    m_current.reset();  // joins within one step
    becomeCurrent(makeRun(config, playWhenLoaded));
}

void SessionController::stopAll() {
    m_pending.reset();
    if (!m_current) return;
    m_current.reset();
    m_snapshot.reset();
    m_schedule.reset();
    m_points = DataPoints{};
    m_clockRunning = false;
    emit runReplaced();
    emit stateChanged(SessionState::Stopped);
}

void SessionController::becomeCurrent(std::unique_ptr<Run> run) {
    m_current = std::move(run);
    m_config = m_current->config;
    m_snapshot.reset();
    m_schedule.reset();
    m_points = DataPoints{};
    m_runningSeconds = 0.0;
    m_clockRunning = false;
    m_watchedParameter = 0;
    m_watchedElement = 0;
    m_checkpointClock.start();
    if (!m_keepCheckpoint && m_checkpointStep >= 0) {  // a checkpoint belongs to the run it was taken of
        if (!m_checkpointPath.empty()) QFile::remove(QFile::decodeName(m_checkpointPath.c_str()));
        m_checkpointPath.clear();
        m_checkpointStep = -1;
        emit checkpointChanged();
    }
    m_keepCheckpoint = false;
    resetTickStats();
    emit runReplaced();
    emit pointsChanged();
    emit snapshotChanged();
    emit stateChanged(state());
}

void SessionController::onRunError(std::uint64_t runId, const QString& message) {
    if (m_pending && m_pending->id == runId) m_pending->error = message;
    if (m_current && m_current->id == runId) m_current->error = message;
}

void SessionController::onRunState(std::uint64_t runId, SessionState newState) {
    if (m_pending && m_pending->id == runId) {
        if (newState == SessionState::Failed) {
            const QString message = m_pending->error.isEmpty() ? tr("the run failed to load") : m_pending->error;
            m_pending.reset();
            emit runRejected(message);
            return;
        }
        if (newState == SessionState::Loading) return;
        std::unique_ptr<Run> run = std::move(m_pending);
        m_current.reset();
        becomeCurrent(std::move(run));
    }
    if (!m_current || m_current->id != runId) return;  // an event of a run already replaced
    if (newState == SessionState::Running && !m_clockRunning) {
        m_runningClock.start();
        m_clockRunning = true;
    } else if (newState != SessionState::Running && m_clockRunning) {
        m_runningSeconds += static_cast<double>(m_runningClock.nsecsElapsed()) * 1e-9;
        m_clockRunning = false;
    }
    if (!m_current->loaded && newState != SessionState::Loading && newState != SessionState::Failed) {
        m_current->loaded = true;
        if (m_current->cluster) {
            if (m_current->playWhenLoaded || m_current->stepWhenLoaded) m_current->cluster->start();
        } else {
            requestPoints();
            if (m_current->stepWhenLoaded && !m_current->playWhenLoaded) m_current->session->stepOnce();
            if (m_current->playWhenLoaded) m_current->session->play();
        }
    }
    emit stateChanged(state());
    if (newState == SessionState::Failed) {
        emit runFailed(m_current->error.isEmpty() ? tr("training failed") : m_current->error);
    }
}

void SessionController::requestPoints() {
    // Computed on the session thread (the data belongs to the trainer); collected by a later tick.
    m_current->points = m_current->session->post([](Trainer& trainer) { return sampleDataPoints(trainer.data()); });
}

void SessionController::takeReadyPoints() {
    std::future<DataPoints>& pending = m_current->points;
    if (!pending.valid() || pending.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    try {
        m_points = pending.get();
    } catch (const std::exception&) {
        return;  // the run ended before it answered: no points to draw
    }
    emit pointsChanged();
}

bool SessionController::isLoading() const { return m_pending != nullptr || (m_current && m_current->state() == SessionState::Loading); }

SessionState SessionController::state() const { return m_current ? m_current->state() : SessionState::Stopped; }

std::int64_t SessionController::stepsDone() const { return m_current ? m_current->stepsDone() : 0; }

TrainingSession* SessionController::session() { return m_current ? m_current->session.get() : nullptr; }

ClusterRun* SessionController::cluster() { return m_current ? m_current->cluster.get() : nullptr; }

bool SessionController::isClusterRun(const RunConfig& config) {
    return config.strategy.type == StrategyKind::MultiWorkerMirrored ||
           (config.strategy.type == StrategyKind::ParameterServer && !config.cluster.empty());
}

void SessionController::play() {
    // A run still loading replaces the current one soon: play that one, not the one it replaces.
    if (m_pending)
        m_pending->playWhenLoaded = true;
    else if (m_current && m_current->cluster)
        m_current->cluster->start();
    else if (m_current)
        m_current->session->play();
}

void SessionController::pause() {
    if (m_pending) m_pending->playWhenLoaded = false;
    if (m_current && m_current->session) m_current->session->pause();
}

void SessionController::stepOnce() {
    // A run still loading replaces the current one soon: step that one, not the one it replaces.
    if (m_pending)
        m_pending->stepWhenLoaded = true;
    else if (m_current && m_current->session)
        m_current->session->stepOnce();
}

bool SessionController::isLive() const {
    if (!m_current) return false;
    const SessionState current = m_current->state();
    return current != SessionState::Finished && current != SessionState::Stopped && current != SessionState::Failed;
}

ParameterServerControls* SessionController::liveControls(const QString& what) {
    if (!m_current) return nullptr;
    if (!isLive()) {
        const SessionState current = m_current->state();
        emit liveControlRefused(
            current == SessionState::Finished
                ? tr("The run has finished (%1 steps): %2 acts only on a live run. Press Play to train again from the start.")
                      .arg(QLocale().toString(stepsDone()), what)
                : tr("The run has ended: %1 acts only on a live run. Reset to train again.").arg(what));
        return nullptr;
    }
    return parameterServerControls();
}

bool SessionController::killWorker(int worker) {
    ParameterServerControls* controls = liveControls(tr("killing a worker"));
    if (controls == nullptr || worker < 0 || worker >= controls->workerCount()) return false;
    controls->killWorker(worker);
    return true;
}

bool SessionController::setWorkerPaused(int worker, bool paused) {
    ParameterServerControls* controls = liveControls(paused ? tr("pausing a worker") : tr("resuming a worker"));
    if (controls == nullptr || worker < 0 || worker >= controls->workerCount()) return false;
    controls->setWorkerPaused(worker, paused);
    return true;
}

void SessionController::setLearningRate(double rate) {
    if (!(rate > 0.0)) return;
    m_config.optimizer.learningRate = rate;
    if (m_current && m_current->session) m_current->session->setLearningRate(static_cast<float>(rate));
    if (m_pending && m_pending->session) m_pending->session->setLearningRate(static_cast<float>(rate));
}

void SessionController::setSpeedLimit(double stepsPerSecond) {
    m_speedLimit = std::max(0.0, stepsPerSecond);
    if (m_current && m_current->session) m_current->session->setSpeedLimit(m_speedLimit);
    if (m_pending && m_pending->session) m_pending->session->setSpeedLimit(m_speedLimit);
}

void SessionController::setWatched(int parameter, std::int64_t element) {
    m_watchedParameter = parameter;
    m_watchedElement = element;
    if (!m_current || !m_current->session) return;  // a cluster's tasks watch parameter 0, element 0
    m_current->session->setWatched({WatchedValue{parameter, element}});
    m_current->history.clearWatched();
}

// A task of runBetweenSteps: its answer (invalid when it was never posted) and whom to tell.
struct SessionController::BetweenStepsTask {
    std::future<void> answer;
    QPointer<QObject> context;
    std::function<void(bool)> done;
};

void SessionController::runBetweenSteps(std::function<void(Trainer&)> fn, QObject* context, std::function<void(bool ran)> done) {
    BetweenStepsTask task{{}, context, std::move(done)};
    // Not while loading: the task would wait for the whole load.
    if (m_current && m_current->session && m_current->session->state() != SessionState::Loading)
        task.answer = m_current->session->post([fn = std::move(fn)](Trainer& trainer) { fn(trainer); });
    // Collected by a tick whichever run it went to: a run replaced meanwhile answers SessionEnded.
    m_tasks.push_back(std::move(task));
}

void SessionController::finishTasks() {
    // Taken out first: a done may post again, or open a dialog whose event loop ticks.
    std::vector<BetweenStepsTask> ended;
    for (auto task = m_tasks.begin(); task != m_tasks.end();) {
        if (task->answer.valid() && task->answer.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            ++task;
            continue;
        }
        ended.push_back(std::move(*task));
        task = m_tasks.erase(task);
    }
    for (BetweenStepsTask& task : ended) {
        bool ran = false;
        if (task.answer.valid()) {
            try {
                task.answer.get();  // ready: does not wait
                ran = true;
            } catch (const std::exception&) {
                // the run ended first (SessionEnded), or fn threw and ended it (runFailed follows)
            }
        }
        // From the event loop, not from within this tick: a done may open a dialog, and a timer
        // does not fire again inside its own slot (the ticks would stop while the dialog is open).
        if (!task.context.isNull())
            QMetaObject::invokeMethod(
                task.context.data(), [done = std::move(task.done), ran] { done(ran); }, Qt::QueuedConnection);
    }
}

ParameterServerControls* SessionController::parameterServerControls() {
    return m_current && m_current->session ? m_current->session->parameterServerControls() : nullptr;
}

void SessionController::setWorkerSpeed(int worker, double speed) {
    StrategyConfig& strategy = m_config.strategy;
    if (strategy.type != StrategyKind::ParameterServer || worker < 0 || worker >= strategy.workers) return;
    speed = std::clamp(speed, run_limits::kMinWorkerSpeed, run_limits::kMaxWorkerSpeed);
    if (static_cast<int>(strategy.workerSpeed.size()) <= worker) strategy.workerSpeed.resize(static_cast<std::size_t>(worker) + 1, 1.0);
    strategy.workerSpeed[static_cast<std::size_t>(worker)] = speed;
    if (ParameterServerControls* controls = parameterServerControls()) controls->setWorkerSpeed(worker, speed);
    emit liveConfigChanged();
}

void SessionController::setParameterServerMode(ParameterServerMode mode) {
    if (m_config.strategy.type != StrategyKind::ParameterServer) return;
    m_config.strategy.mode = mode;
    if (ParameterServerControls* controls = parameterServerControls()) controls->setMode(mode);
    emit liveConfigChanged();
}

bool SessionController::applyLive(const RunConfig& draft) {
    if (!m_current || m_config.strategy.type != StrategyKind::ParameterServer) return false;
    RunConfig structural = draft;
    structural.strategy.mode = m_config.strategy.mode;
    structural.strategy.workerSpeed = m_config.strategy.workerSpeed;
    // Compared as they train: a field the strategy does not use (the set-up's device list under
    // parameter servers, a config file's partitioner sizes of another kind) is not an edit.
    if (!(withUnusedKeysReset(structural) == withUnusedKeysReset(m_config))) return false;
    const std::vector<double> speeds = draft.strategy.workerSpeed;
    for (int w = 0; w < static_cast<int>(m_config.strategy.workers); ++w) {
        const double speed = w < static_cast<int>(speeds.size()) ? speeds[static_cast<std::size_t>(w)] : 1.0;
        const double now =
            w < static_cast<int>(m_config.strategy.workerSpeed.size()) ? m_config.strategy.workerSpeed[static_cast<std::size_t>(w)] : 1.0;
        if (speed != now) setWorkerSpeed(w, speed);
    }
    m_config.strategy.workerSpeed = speeds;  // as written (trailing 1.0 entries may be left out)
    if (draft.strategy.mode != m_config.strategy.mode) setParameterServerMode(draft.strategy.mode);
    return true;
}

std::int64_t SessionController::parameterCount() const {
    if (m_snapshot) return static_cast<std::int64_t>(m_snapshot->values.size());
    return m_current && m_current->cluster ? m_current->cluster->parameterCount() : 0;
}

const RunHistory& SessionController::history() const { return m_current ? m_current->history : *m_emptyHistory; }

double SessionController::runningSeconds() const {
    double seconds = m_runningSeconds;
    if (m_clockRunning) seconds += static_cast<double>(m_runningClock.nsecsElapsed()) * 1e-9;
    return seconds;
}

std::uint64_t SessionController::droppedRecords() { return m_current ? m_current->drain.droppedCount(m_current->telemetry()) : 0; }

void SessionController::resetTickStats() {
    m_lastTickMs = 0.0;
    m_maxTickMs = 0.0;
    m_lastTickCpuMs = 0.0;
    m_maxTickCpuMs = 0.0;
    m_tickCount = 0;
}

bool SessionController::catchUp(int timeoutMs) {
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        tick();
        if (!m_current) return true;
        const SessionState current = m_current->state();
        if (current == SessionState::Running || current == SessionState::Stepping) return true;
        if (m_current->history.lastStep().step >= m_current->stepsDone()) return true;
        if (waited.elapsed() >= timeoutMs) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

void SessionController::tick() {
    QElapsedTimer timer;
    timer.start();
    const std::int64_t cpuStart = threadCpuNs();
    if (m_current) {
        const SessionState current = m_current->state();
        const bool ended = current == SessionState::Finished || current == SessionState::Stopped || current == SessionState::Failed;
        m_current->drain.drain(m_current->telemetry(), m_current->history, ended);
        std::shared_ptr<const ModelSnapshot> latest;
        if (TrainingSession* session = m_current->session.get()) {
            takeReadyPoints();
            takeCheckpointAnswers();
            if (!ended) autoCheckpoint();
            latest = session->latestSnapshot();
            m_schedule = session->latestSchedule();
        } else if (m_current->cluster) {
            latest = m_current->cluster->latestSnapshot();  // the coordinator task's, streamed
        }
        if (latest && latest != m_snapshot) {
            m_snapshot = std::move(latest);
            emit snapshotChanged();
        }
    }
    finishTasks();
    emit ticked();
    m_lastTickMs = static_cast<double>(timer.nsecsElapsed()) * 1e-6;
    m_maxTickMs = std::max(m_maxTickMs, m_lastTickMs);
    m_lastTickCpuMs = static_cast<double>(threadCpuNs() - cpuStart) * 1e-6;
    m_maxTickCpuMs = std::max(m_maxTickCpuMs, m_lastTickCpuMs);
    ++m_tickCount;
}

}  // namespace distlab::ui
