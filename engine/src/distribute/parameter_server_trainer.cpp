#include "distlab/distribute/parameter_server_trainer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/model_evaluation.hpp"
#include "distribute/parameter_transport.hpp"
#include "distribute/parameter_server_worker.hpp"
#include "tensor/parallel_ranges.hpp"

namespace distlab {
namespace {
constexpr auto kIdleWait = std::chrono::milliseconds(20);
// Under an update-rate limit the coordinator gives the session back its thread after this long
// without a gradient (step() returns with nothing applied), so pause and stop stay prompt.
constexpr auto kPacedWait = std::chrono::milliseconds(40);
constexpr std::int64_t kParallelApplyElements = std::int64_t{1} << 18;  // 1 MiB of float32 parameters
}  // namespace

ParameterServerTrainer::ParameterServerTrainer(const RunConfig& config, DataSplit data)
    : m_config(config),
      m_data(std::move(data)),
      m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_serverCount(static_cast<int>(std::max<std::int64_t>(1, config.strategy.parameterServers))),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)),
      m_mode(config.strategy.mode),
      m_clockOriginNs(nowNs()) {
    m_serverModel = std::make_unique<Model>(config.model, m_data.train.features);
    m_evaluation = std::make_unique<EvaluationBuffers>(*m_serverModel);
    m_serverModel->initialize(config.model.init, config.seed);
    const std::int64_t parameters = m_serverModel->store().totalSize();
    m_optimizer = makeOptimizer(config.optimizer, parameters);
    m_placements = placeShards(m_serverModel->store(), config.strategy.partitioner, m_serverCount);
    m_aggregate.assign(static_cast<std::size_t>(parameters), 0.0f);
    m_serverBusyNs.assign(static_cast<std::size_t>(m_serverCount), 0);

    const auto workers = static_cast<int>(std::max<std::int64_t>(1, config.strategy.workers));
    m_transport = std::make_unique<InProcessParameterTransport>(workers, parameters);
    const auto replicasPerWorker = static_cast<int>(std::max<std::int64_t>(1, config.strategy.replicasPerWorker));
    for (int w = 0; w < workers; ++w) {
        auto worker = std::make_unique<Worker>();
        worker->index = w;
        worker->replicas =
            std::make_unique<WorkerGradient>(config.model, m_data.train.features, replicasPerWorker, config.strategy.crossDeviceOps);
        for (int r = 0; r < replicasPerWorker; ++r) {
            const auto initial = m_serverModel->store().values();
            std::copy(initial.begin(), initial.end(), worker->replicas->replica(r).model.store().values().begin());
        }
        worker->batch.reserve(static_cast<std::size_t>(config.data.globalBatchSize));
        if (static_cast<std::size_t>(w) < config.strategy.workerSpeed.size())
            worker->speed = std::clamp(config.strategy.workerSpeed[static_cast<std::size_t>(w)], 0.1, 1.0);
        m_workers.push_back(std::move(worker));
    }
    m_report.replicas.resize(static_cast<std::size_t>(workers));
    m_syncFresh.reserve(static_cast<std::size_t>(workers));
    m_reportSpans.assign(static_cast<std::size_t>(workers), std::vector<Span>(SpanRecorder::kCapacity));
    m_servers = std::make_unique<ReplicaPool>(
        m_serverCount, 1, [this](int server) { serverTask(server); }, nullptr, "parameter server");
    m_coordinatorThreads = coordinatorThreads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())), workers);
    for (auto& worker : m_workers) worker->thread = std::thread([this, w = worker.get()] { workerLoop(*w); });
}

ParameterServerTrainer::~ParameterServerTrainer() { shutdown(); }

void ParameterServerTrainer::shutdown() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_workerWake.notify_all();
    m_inboxReady.notify_all();
    for (auto& worker : m_workers)
        if (worker->thread.joinable()) worker->thread.join();
}

std::int64_t ParameterServerTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

Model& ParameterServerTrainer::replicaModel(int worker) { return m_workers[static_cast<std::size_t>(worker)]->replicas->replica(0).model; }
const Model& ParameterServerTrainer::replicaModel(int worker) const {
    return m_workers[static_cast<std::size_t>(worker)]->replicas->replica(0).model;
}

void ParameterServerTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    std::lock_guard lock(m_mutex);  // workers copy watched values at their pull
    m_watchedCount = static_cast<int>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues));
    for (int i = 0; i < m_watchedCount; ++i) {
        const std::int64_t index = flatIndices[static_cast<std::size_t>(i)];
        m_watched[static_cast<std::size_t>(i)] = index < m_serverModel->store().totalSize() ? index : -1;
    }
}

void ParameterServerTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    std::lock_guard lock(m_mutex);
    m_version = stepsDone;
    m_sampler.restore(epoch, cursor);
}

void ParameterServerTrainer::setWorkerSpeed(int worker, double speed) {
    if (worker < 0 || worker >= workerCount()) return;
    m_workers[static_cast<std::size_t>(worker)]->speed.store(std::clamp(speed, 0.1, 1.0));
}

void ParameterServerTrainer::setUpdateRateLimit(double updatesPerSecond) {
    m_rateLimit.store(std::isfinite(updatesPerSecond) ? std::max(0.0, updatesPerSecond) : 0.0, std::memory_order_relaxed);
}

double ParameterServerTrainer::pacedGradientNs() const {
    const double limit = updateRateLimit();
    if (limit <= 0.0) return 0.0;
    // Asynchronous: W workers at full speed push W gradients per period, one update each, so each
    // takes W / limit. Synchronous: an update needs every worker's gradient of the same period.
    const double workers = mode() == ParameterServerMode::Async ? double(workerCount()) : 1.0;
    return 1e9 * workers / limit;
}

void ParameterServerTrainer::setWorkerPaused(int worker, bool paused) {
    if (worker < 0 || worker >= workerCount()) return;
    m_workers[static_cast<std::size_t>(worker)]->paused.store(paused);
    m_inboxReady.notify_all();
}

void ParameterServerTrainer::killWorker(int worker) {
    if (worker < 0 || worker >= workerCount()) return;
    m_workers[static_cast<std::size_t>(worker)]->killed.store(true);
    m_workerWake.notify_all();
    m_inboxReady.notify_all();
}

void ParameterServerTrainer::killParameterServer(int server) {
    if (server < 0 || server >= m_serverCount) return;
    m_lostServer.store(server);
    m_inboxReady.notify_all();
}

WorkerStatus ParameterServerTrainer::workerStatus(int worker) const {
    const Worker& w = *m_workers[static_cast<std::size_t>(worker)];
    std::lock_guard lock(m_mutex);
    return {w.alive && !w.killed.load(), w.paused.load(), w.speed.load(), w.gradients, w.updates};
}

void ParameterServerTrainer::restoreWorkerCounts(int worker, std::int64_t gradients, std::int64_t updates) {
    if (worker < 0 || worker >= workerCount()) return;
    Worker& w = *m_workers[static_cast<std::size_t>(worker)];
    std::lock_guard lock(m_mutex);
    w.gradients = gradients;
    w.updates = updates;
}

void ParameterServerTrainer::grantPermit(Worker& worker) {
    if (!worker.alive || worker.killed || worker.paused || worker.state != Worker::State::Idle) return;
    worker.batch.clear();
    if (!m_redo.empty()) {  // a killed worker's step runs again here (at-least-once)
        worker.batch = std::move(m_redo.front());
        m_redo.pop_front();
    } else {
        const auto next = m_sampler.next();
        worker.batch.assign(next.begin(), next.end());
    }
    // The pull: the servers answer a free worker's read at once with the current parameters.
    // Serving it here (rather than when the worker's thread next gets a core) keeps staleness what
    // the protocol makes it, not what the operating system's scheduler happens to do.
    ReplicaStepStats& stats = worker.stats;
    stats = ReplicaStepStats{};
    stats.startNs = clockNs();
    const auto server = m_serverModel->store().values();
    m_transport->sendParameters(worker.index, server);  // the worker takes it on its own thread
    worker.readVersion = m_version;
    for (int w = 0; w < m_watchedCount; ++w) {
        const std::int64_t index = m_watched[static_cast<std::size_t>(w)];
        stats.watched[w] = index >= 0 ? server[static_cast<std::size_t>(index)] : 0.0f;
    }
    worker.state = Worker::State::Permitted;
    m_workerWake.notify_all();
}

bool ParameterServerTrainer::waitForInbox(std::unique_lock<std::mutex>& lock) {
    const auto started = std::chrono::steady_clock::now();
    for (;;) {
        if (!m_workerFailure.empty()) throw TrainingError(m_workerFailure + " (at update " + std::to_string(m_version) + ")");
        if (const int lost = m_lostServer.load(); lost >= 0)
            throw TrainingError("parameter server ps:" + std::to_string(lost) + " was lost at update " + std::to_string(m_version) +
                                "; training stopped (resume from the last checkpoint)");
        if (!m_inbox.empty()) return true;
        bool anyAlive = false, anyBusy = false;
        for (const auto& worker : m_workers) {
            anyAlive = anyAlive || (worker->alive && !worker->killed);
            anyBusy = anyBusy || worker->state == Worker::State::Permitted || worker->state == Worker::State::Computing;
        }
        if (!anyAlive)
            throw TrainingError("every worker has been killed at update " + std::to_string(m_version) +
                                "; no worker is left to compute gradients");
        if (!anyBusy) {
            for (auto& worker : m_workers) grantPermit(*worker);  // a worker may have been resumed
            bool granted = false;
            for (const auto& worker : m_workers) granted = granted || worker->state == Worker::State::Permitted;
            if (!granted) {
                m_inboxReady.wait_for(lock, kIdleWait);
                return false;  // every live worker is paused
            }
        }
        m_inboxReady.wait_for(lock, kIdleWait);
        if (m_inbox.empty() && updateRateLimit() > 0.0 && std::chrono::steady_clock::now() - started >= kPacedWait)
            return false;  // paced: the gradients come slowly; let the session look at its commands
    }
}

void ParameterServerTrainer::applyUpdate(std::span<const float> gradient) {
    m_optimizer->beginUpdate();
    m_applyGradient = gradient;
    std::fill(m_serverBusyNs.begin(), m_serverBusyNs.end(), 0);
    // Each server applies its own shards. Waking P threads costs more than a small update itself
    // (a wake-up can wait for a scheduler tick when the cores are busy with workers), so below
    // kParallelApplyElements the servers' work runs here, server by server, timed the same way.
    if (static_cast<std::int64_t>(gradient.size()) >= kParallelApplyElements) {
        m_servers->run();
    } else {
        for (int server = 0; server < m_serverCount; ++server) serverTask(server);
    }
    ++m_version;
}

void ParameterServerTrainer::serverTask(int server) {
    const std::int64_t start = nowNs();
    auto values = m_serverModel->store().values();
    const float rate = learningRate();
    for (const ShardPlacement& shard : m_placements) {
        if (shard.server != server) continue;
        const auto offset = static_cast<std::size_t>(shard.offset), size = static_cast<std::size_t>(shard.size);
        m_optimizer->applyRange(values.subspan(offset, size), m_applyGradient.subspan(offset, size), rate, shard.offset);
    }
    m_serverBusyNs[static_cast<std::size_t>(server)] = nowNs() - start;
}

const StepReport& ParameterServerTrainer::step() {
    const ScopedTeamSize team(m_coordinatorThreads);
    for (auto& replica : m_report.replicas) replica.active = false;
    m_report.applied = false;
    m_report.droppedStale = 0;
    return mode() == ParameterServerMode::Async ? stepAsync() : stepSync();
}

const StepReport& ParameterServerTrainer::stepAsync() {
    const std::int64_t start = clockNs();
    std::unique_lock lock(m_mutex);
    // Switched from sync while gathering: the gradients gathered so far are applied first, in order.
    for (auto it = m_syncFresh.rbegin(); it != m_syncFresh.rend(); ++it) m_inbox.push_front((*it)->index);
    m_syncFresh.clear();
    for (auto& worker : m_workers) grantPermit(*worker);
    if (!waitForInbox(lock)) return m_report;
    Worker& worker = *m_workers[static_cast<std::size_t>(m_inbox.front())];
    m_inbox.pop_front();
    lock.unlock();

    const std::int64_t applyStart = clockNs();
    const std::int64_t staleness = m_version - worker.readVersion;
    applyUpdate(m_transport->receivedGradient(worker.index));
    worker.stats.updateEndNs = clockNs();
    worker.stats.staleness = staleness;
    worker.stats.gradNormAfter = worker.stats.gradNormBefore;
    reportWorker(worker);
    m_report.worker = worker.index;
    m_report.staleness = staleness;
    m_report.samples = worker.stats.examples;
    m_report.loss = worker.stats.localLoss();
    m_report.accuracy =
        m_data.train.isClassification() && worker.stats.examples > 0 ? double(worker.stats.correct) / double(worker.stats.examples) : -1.0;
    fillReport(start);
    m_report.startNs = std::min(start, applyStart);

    lock.lock();
    ++worker.updates;
    worker.state = Worker::State::Idle;
    grantPermit(worker);  // it reads the new parameters and goes on while we report
    return m_report;
}

const StepReport& ParameterServerTrainer::stepSync() {
    const std::int64_t start = clockNs();
    std::unique_lock lock(m_mutex);
    for (auto& worker : m_workers) grantPermit(*worker);  // in worker order, so batches are deterministic
    // The gradients gathered so far: kept across calls, since a paced step returns before it has them all.
    std::vector<Worker*>& fresh = m_syncFresh;
    for (;;) {
        int alive = 0, inFlight = 0;
        for (const auto& worker : m_workers) {
            if (worker->alive && !worker->killed && !worker->paused) ++alive;
            if (worker->state == Worker::State::Permitted || worker->state == Worker::State::Computing) ++inFlight;
        }
        const std::int64_t wanted = m_config.strategy.gradientsToAggregate > 0
                                        ? std::min<std::int64_t>(m_config.strategy.gradientsToAggregate, std::max(alive, 1))
                                        : std::max(alive, 1);
        if (static_cast<std::int64_t>(fresh.size()) >= wanted) break;
        if (m_inbox.empty() && inFlight == 0 && !fresh.empty()) break;  // workers left: aggregate what came
        if (!waitForInbox(lock)) {
            if (fresh.empty() || updateRateLimit() > 0.0) return m_report;  // paced: the rest come later
            continue;
        }
        Worker& worker = *m_workers[static_cast<std::size_t>(m_inbox.front())];
        m_inbox.pop_front();
        if (worker.readVersion != m_version) {  // computed on parameters that have moved on: drop it
            ++m_report.droppedStale;
            worker.state = Worker::State::Idle;
            grantPermit(worker);
            continue;
        }
        fresh.push_back(&worker);
    }
    lock.unlock();

    std::sort(fresh.begin(), fresh.end(), [](const Worker* a, const Worker* b) { return a->index < b->index; });
    std::fill(m_aggregate.begin(), m_aggregate.end(), 0.0f);
    double lossSum = 0.0;
    std::int64_t correct = 0, examples = 0;
    for (Worker* worker : fresh) {
        const auto grads = m_transport->receivedGradient(worker->index);
        for (std::size_t i = 0; i < grads.size(); ++i) m_aggregate[i] += grads[i];
        lossSum += worker->stats.lossSum;
        correct += worker->stats.correct;
        examples += worker->stats.examples;
    }
    // The average of the workers' gradients: with every worker, exactly mirrored training on
    // their batches together (each worker's loss is already divided by its own batch).
    const float scale = 1.0f / static_cast<float>(fresh.size());
    for (float& value : m_aggregate) value *= scale;
    const double normAfter = std::sqrt(sumOfSquares(m_aggregate));  // the norm every strategy reports (reductions.hpp)
    applyUpdate(m_aggregate);
    const std::int64_t end = clockNs();
    for (Worker* worker : fresh) {
        worker->stats.updateEndNs = end;
        worker->stats.staleness = 0;
        worker->stats.gradNormAfter = normAfter;
        reportWorker(*worker);
    }
    m_report.worker = -1;
    m_report.staleness = 0;
    m_report.samples = examples;  // every averaged worker's batch
    m_report.loss = examples > 0 ? lossSum / double(examples) : 0.0;
    m_report.accuracy = m_data.train.isClassification() && examples > 0 ? double(correct) / double(examples) : -1.0;
    fillReport(start);
    lock.lock();
    for (Worker* worker : fresh) {
        ++worker->updates;
        worker->state = Worker::State::Idle;  // permits come with the next update
    }
    fresh.clear();
    return m_report;
}

void ParameterServerTrainer::fillReport(std::int64_t startNs) {
    m_report.applied = true;
    m_report.step = m_version;
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_report.startNs = startNs;
    m_report.endNs = clockNs();
    m_report.serverBusyNs = 0;
    for (std::int64_t busy : m_serverBusyNs) m_report.serverBusyNs += busy;
}

void ParameterServerTrainer::reportWorker(const Worker& worker) {
    // The report keeps its own copy of the spans: the worker records its next gradient's while
    // the report is read.
    const auto index = static_cast<std::size_t>(worker.index);
    ReplicaStepStats& lane = m_report.replicas[index];
    lane = worker.stats;
    const auto spans = worker.spans.spans();
    std::copy(spans.begin(), spans.end(), m_reportSpans[index].begin());
    lane.spans = {m_reportSpans[index].data(), spans.size()};
}

const Tensor& ParameterServerTrainer::predict(const Tensor& input) {
    const ScopedTeamSize team(m_coordinatorThreads);
    return m_serverModel->forward(input, m_evaluation->context);
}

GradientAggregationStats ParameterServerTrainer::gradientAggregation() const {
    return Model::aggregationStats(m_workers[0]->replicas->replica(0).batch.context);
}

EvalResult ParameterServerTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    const ScopedTeamSize team(m_coordinatorThreads);
    return evaluateModel(*m_serverModel, m_loss, data, maxExamples, *m_evaluation);
}

}  // namespace distlab
