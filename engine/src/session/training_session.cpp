#include "distlab/session/training_session.hpp"

#include "session/schedule_capture.hpp"

#include <algorithm>
#include <chrono>
#include <future>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/error.hpp"
#include "distlab/telemetry/step_records.hpp"
#include "distlab/session/take_model_snapshot.hpp"

namespace distlab {

namespace {
constexpr int kBacklogRetryMs = 5;  // a paused session's tries to hand its telemetry backlog over
}  // namespace

const char* stateName(SessionState state) {
    switch (state) {
        case SessionState::Loading:
            return "loading";
        case SessionState::Paused:
            return "paused";
        case SessionState::Running:
            return "running";
        case SessionState::Stepping:
            return "stepping";
        case SessionState::Finished:
            return "finished";
        case SessionState::Failed:
            return "failed";
        case SessionState::Stopped:
            return "stopped";
    }
    return "unknown";
}

TrainingSession::TrainingSession(RunConfig config, SessionOptions options, SessionObserver* observer)
    : m_config(std::move(config)),
      m_options(options),
      m_observer(observer),
      m_telemetry(static_cast<int>(m_config.strategy.replicaCount())) {
    m_stepLimit = m_options.stepLimit < 0 ? m_config.steps : m_options.stepLimit;
    m_thread = std::jthread([this](const std::stop_token& stop) { threadMain(stop); });
}

TrainingSession::~TrainingSession() {
    stop();
    if (m_thread.joinable()) m_thread.join();
}

void TrainingSession::setState(SessionState state) {
    m_state.store(state, std::memory_order_release);
    if (m_observer != nullptr) m_observer->onStateChanged(state);
}

void TrainingSession::enqueue(Command command, QueuedTask task) {
    {
        std::lock_guard lock(m_commandMutex);
        if (m_closed) {
            // The thread has ended: a task learns so at once; other commands have nothing to do.
            if (task.cancel) task.cancel(std::make_exception_ptr(SessionEnded("the run has ended")));
            return;
        }
        m_commands.emplace_back(command, std::move(task));
        m_hasCommands.store(true, std::memory_order_release);
    }
    m_commandReady.notify_all();
}

void TrainingSession::play() { enqueue(Command::Play); }
void TrainingSession::pause() { enqueue(Command::Pause); }
void TrainingSession::stepOnce() { enqueue(Command::Step); }
void TrainingSession::stop() {
    enqueue(Command::Stop);
    m_thread.request_stop();
}

void TrainingSession::setLearningRate(float rate) {
    enqueue(Command::Task, {[rate](Trainer& trainer) { trainer.setLearningRate(rate); }, {}});
}

void TrainingSession::setSpeedLimit(double stepsPerSecond) { m_speedLimit.store(stepsPerSecond, std::memory_order_relaxed); }

void TrainingSession::requestSnapshot() {
    enqueue(Command::Task, {[this](Trainer&) { maybeSnapshot(true); }, {}});
}

void TrainingSession::setWatched(std::vector<WatchedValue> watched) {
    if (watched.size() > static_cast<std::size_t>(kMaxWatchedValues)) watched.resize(kMaxWatchedValues);
    std::lock_guard lock(m_watchMutex);
    m_watched = std::move(watched);
    ++m_watchGeneration;
    m_watchChanged.store(true, std::memory_order_release);
}

std::shared_ptr<const ModelSnapshot> TrainingSession::latestSnapshot() const {
    std::lock_guard lock(m_snapshotMutex);
    return m_snapshot;
}

std::shared_ptr<const ScheduleSnapshot> TrainingSession::latestSchedule() const {
    std::lock_guard lock(m_snapshotMutex);
    return m_schedule;
}

ParameterServerControls* TrainingSession::parameterServerControls() {
    const SessionState current = state();  // acquire: the trainer was built before the state left Loading
    if (current == SessionState::Loading || !m_trainer) return nullptr;
    return m_trainer->parameterServerControls();
}

void TrainingSession::closeQueue() {
    std::deque<std::pair<Command, QueuedTask>> left;
    {
        std::lock_guard lock(m_commandMutex);
        m_closed = true;
        left.swap(m_commands);
        m_hasCommands.store(false, std::memory_order_release);
    }
    for (auto& [command, task] : left)
        if (task.cancel) task.cancel(std::make_exception_ptr(SessionEnded("the run ended before this could run")));
}

void TrainingSession::fail(const std::string& message) {
    closeQueue();
    m_state.store(SessionState::Failed, std::memory_order_release);  // an observer reading state() in onError sees it
    if (m_observer != nullptr) m_observer->onError(message);
    setState(SessionState::Failed);
}

void TrainingSession::threadMain(const std::stop_token& stop) {
    RunConfig config = m_config;
    auto trainer = Trainer::create(config);
    if (!trainer) {
        fail(trainer.error().message);
        return;
    }
    m_trainer = std::move(trainer.value());
    m_scheduleCapture = ScheduleCapture::forTrainer(*m_trainer);
    try {
        maybeSnapshot(true);
        setState(SessionState::Paused);
        while (!stop.stop_requested()) {
            if (!processCommands(/*block=*/!m_running)) break;
            if (!m_running) continue;
            if (!throttle()) continue;  // a command came in while waiting: handle it, then wait on
            runOneStep();
            if (m_stepLimit > 0 && m_trainer->stepsDone() >= m_stepLimit) {
                m_running = false;
                maybeEvaluate(true);
                maybeSnapshot(true);
                setState(SessionState::Finished);
            }
        }
    } catch (const std::exception& error) {
        // A step (a replica, a worker) or a task failed: the trainer may be half-way through a
        // change, so the run ends here; the session stays readable.
        m_telemetry.stepChannel().closeProducer();
        fail(std::string("training failed: ") + error.what());
        return;
    }
    m_telemetry.stepChannel().closeProducer();  // the reader takes the steps not handed over yet
    closeQueue();
    setState(SessionState::Stopped);
}

bool TrainingSession::processCommands(bool block) {
    if (!block && !m_hasCommands.load(std::memory_order_acquire)) return true;
    std::unique_lock lock(m_commandMutex);
    if (block) {
        // Steps still in the telemetry backlog are handed over before the thread sleeps: it
        // retries now and then (never waiting for the reader) until they are.
        const auto hasCommand = [&] { return !m_commands.empty(); };
        while (!m_telemetry.stepChannel().flush())
            if (m_commandReady.wait_for(lock, std::chrono::milliseconds(kBacklogRetryMs), hasCommand)) break;
        m_commandReady.wait(lock, hasCommand);
    }
    while (!m_commands.empty()) {
        auto [command, task] = std::move(m_commands.front());
        m_commands.pop_front();
        const bool finished = m_stepLimit > 0 && m_trainer->stepsDone() >= m_stepLimit;
        switch (command) {
            case Command::Stop:
                return false;
            case Command::Play:
                if (finished) break;  // finished: reset to run again
                m_running = true;
                m_nextStepNs = 0;
                setState(SessionState::Running);
                break;
            case Command::Pause:
                if (m_running) {
                    m_running = false;
                    setState(SessionState::Paused);
                    lock.unlock();
                    maybeEvaluate(true);
                    maybeSnapshot(true);
                    lock.lock();
                }
                break;
            case Command::Step:
                if (!m_running && !finished) {
                    lock.unlock();
                    setState(SessionState::Stepping);
                    ParameterServerControls* controls = m_trainer->parameterServerControls();
                    if (controls != nullptr) controls->setUpdateRateLimit(m_speedLimit.load(std::memory_order_relaxed));
                    // A paced parameter-server step can return with nothing applied yet: one step is one
                    // update, so wait for it (any new command, a stop too, ends the wait).
                    while (!runOneStep() && controls != nullptr && controls->updateRateLimit() > 0.0) {
                        std::lock_guard waiting(m_commandMutex);
                        if (!m_commands.empty()) break;
                    }
                    maybeEvaluate(true);
                    maybeSnapshot(true);
                    const bool reachedLimit = m_stepLimit > 0 && m_trainer->stepsDone() >= m_stepLimit;
                    setState(reachedLimit ? SessionState::Finished : SessionState::Paused);
                    lock.lock();
                }
                break;
            case Command::Task:
                lock.unlock();
                task.run(*m_trainer);
                // A task may have moved the run's progress (a checkpoint restored): the count follows.
                m_stepsDone.store(m_trainer->stepsDone(), std::memory_order_relaxed);
                lock.lock();
                break;
        }
    }
    m_hasCommands.store(false, std::memory_order_release);
    return true;
}

bool TrainingSession::throttle() {
    const double limit = m_speedLimit.load(std::memory_order_relaxed);
    if (ParameterServerControls* controls = m_trainer->parameterServerControls()) {
        // Parameter servers pace their workers themselves: sleeping here, between updates, would
        // let every worker's gradient wait in the inbox and push them all at one rate.
        if (controls->updateRateLimit() != limit) controls->setUpdateRateLimit(limit);
        return true;
    }
    if (limit <= 0.0) return true;
    const auto period = static_cast<std::int64_t>(1e9 / limit);
    const std::int64_t now = nowNs();
    if (m_nextStepNs == 0 || m_nextStepNs < now - period) m_nextStepNs = now;
    // Sleep in short slices so pause and stop stay responsive at slow speeds; a command ends the
    // wait early but does not bring the step forward.
    while (nowNs() < m_nextStepNs) {
        if (m_hasCommands.load(std::memory_order_acquire)) return false;
        std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(m_nextStepNs - nowNs(), 20'000'000)));
    }
    m_nextStepNs += period;
    return true;
}

bool TrainingSession::runOneStep() {
    if (m_watchChanged.exchange(false, std::memory_order_acq_rel)) {
        std::vector<std::int64_t> flat;
        std::uint32_t generation = 0;
        {
            std::lock_guard lock(m_watchMutex);
            generation = m_watchGeneration;
            const auto& infos = m_trainer->primaryModel().store().infos();
            for (const WatchedValue& watched : m_watched)
                if (watched.parameter >= 0 && watched.parameter < static_cast<int>(infos.size()) && watched.element >= 0 &&
                    watched.element < infos[static_cast<std::size_t>(watched.parameter)].size)
                    flat.push_back(infos[static_cast<std::size_t>(watched.parameter)].offset + watched.element);
                else
                    flat.push_back(-1);
        }
        m_trainer->setWatched(flat);
        m_watchGenerationLocal = generation;
    }
    const StepReport& report = m_trainer->step();
    if (!report.applied) return false;  // every parameter-server worker is paused, or a paced one is still computing
    // An evaluation due now rides on the step's record: it reaches the reader with its step.
    publishTelemetry(report, evaluationIfDue(false));
    // Counted only once its record is published (release, read with acquire by stepsDone()): a
    // reader that sees step N done finds step N's record in the telemetry (seen missing under ASan
    // when the count came first).
    m_stepsDone.store(report.step, std::memory_order_release);
    if (m_scheduleCapture) {
        // Every step counts in the run's bubbles; the schedule itself is taken at the snapshot
        // cadence (a manual step after a pause always), from spans valid until the next step.
        m_scheduleCapture->add(report);
        const std::int64_t now = nowNs();
        if (now - m_lastScheduleNs >= static_cast<std::int64_t>(m_options.snapshotIntervalSeconds * 1e9)) {
            m_lastScheduleNs = now;
            auto schedule = m_scheduleCapture->take(report);
            std::lock_guard lock(m_snapshotMutex);
            m_schedule = std::move(schedule);
        }
    }
    maybeSnapshot(false);
    return true;
}

void TrainingSession::publishTelemetry(const StepReport& report, const std::optional<EvalRecord>& evaluation) {
    StepRecord step = toStepRecord(report);
    if (evaluation) step.evaluation = *evaluation;
    m_telemetry.stepChannel().publish(step);
    for (int r = 0; r < static_cast<int>(report.replicas.size()); ++r) {
        if (!report.replicas[static_cast<std::size_t>(r)].active) continue;  // an asynchronous worker that did not contribute
        m_telemetry.replica(r).tryPush(toReplicaRecord(report, r, m_watchGenerationLocal));
    }
}

void TrainingSession::maybeEvaluate(bool force) {
    if (const std::optional<EvalRecord> record = evaluationIfDue(force)) m_telemetry.evals().tryPush(*record);
}

std::optional<EvalRecord> TrainingSession::evaluationIfDue(bool force) {
    const std::int64_t now = nowNs();
    // Evaluate every evalIntervalSeconds of wall time, and also every `eval_every` steps (or, for a
    // run with a step limit, about 200 times over the run), so a fast run still draws a test curve.
    const std::int64_t steps = m_trainer->stepsDone();
    const std::int64_t everySteps = m_config.evalEvery > 0 ? m_config.evalEvery
                                    : m_stepLimit > 0      ? std::max<std::int64_t>(1, m_stepLimit / 200)
                                                           : 0;
    const bool dueByTime = now - m_lastEvalNs >= static_cast<std::int64_t>(m_options.evalIntervalSeconds * 1e9);
    const bool dueBySteps = everySteps > 0 && steps - m_lastEvalStep >= everySteps;
    if (!force && !dueByTime && !dueBySteps) return std::nullopt;
    m_lastEvalNs = now;
    m_lastEvalStep = steps;
    EvalRecord record;
    record.step = m_trainer->stepsDone();
    record.wallNs = m_trainer->clockNs();
    const Dataset& test = m_trainer->data().test;
    if (!test.empty()) {
        const EvalResult result = m_trainer->evaluate(test, m_options.evalMaxExamples);
        record.hasTest = true;
        record.testLoss = result.loss;
        record.testAccuracy = result.accuracy;
    }
    return record;
}

void TrainingSession::maybeSnapshot(bool force) {
    const std::int64_t now = nowNs();
    if (!force && now - m_lastSnapshotNs < static_cast<std::int64_t>(m_options.snapshotIntervalSeconds * 1e9)) return;
    m_lastSnapshotNs = now;
    auto snapshot = takeModelSnapshot(*m_trainer, m_options.boundaryResolution);
    std::lock_guard lock(m_snapshotMutex);
    m_snapshot = std::move(snapshot);
}

}  // namespace distlab
