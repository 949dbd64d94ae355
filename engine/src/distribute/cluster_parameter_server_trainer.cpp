#include "distribute/cluster_parameter_server_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "distlab/tensor/reductions.hpp"
#include "distribute/model_evaluation.hpp"

namespace distlab {

ClusterParameterServerTrainer::ClusterParameterServerTrainer(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> group)
    : m_config(config),
      m_data(std::move(data)),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_layout{static_cast<int>(config.cluster.worker.size()), static_cast<int>(config.cluster.ps.size())},
      m_group(std::move(group)),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)),
      m_keepalivePeriod(std::chrono::milliseconds(static_cast<std::int64_t>(config.strategy.timeoutSeconds * 1000.0 / 4.0) + 1)),
      m_clockOriginNs(nowNs()) {
    // The initial values are ParameterServerTrainer's: the chief makes them and loads the servers.
    m_model = std::make_unique<Model>(config.model, m_data.train.features);
    m_evaluation = std::make_unique<EvaluationBuffers>(*m_model);
    m_model->initialize(config.model.init, config.seed);
    const std::int64_t parameters = m_model->store().totalSize();
    m_optimizer = makeOptimizer(config.optimizer, parameters);
    m_placements = placeShards(m_model->store(), config.strategy.partitioner, m_layout.servers);
    m_transport = std::make_unique<ProcessParameterTransport>(*m_group, m_layout, m_placements, parameters);
    m_aggregate.assign(static_cast<std::size_t>(parameters), 0.0f);
    for (int w = 0; w < m_layout.workers; ++w) {
        auto worker = std::make_unique<RemoteWorker>();
        worker->index = w;
        worker->batch.reserve(static_cast<std::size_t>(config.data.globalBatchSize));
        m_workers.push_back(std::move(worker));
    }
    m_report.replicas.resize(m_workers.size());
    broadcastParameters();
    for (auto& worker : m_workers) worker->link = std::thread([this, w = worker.get()] { link(*w); });
}

ClusterParameterServerTrainer::~ClusterParameterServerTrainer() { shutdown(); }

void ClusterParameterServerTrainer::shutdown() {
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping) return;
        m_stopping = true;
    }
    m_changed.notify_all();
    // The servers first: each sends the reads it still holds, then stops. Each worker's link
    // finishes the exchange in flight (the answer, or the worker lost within the timeout), then
    // sends the worker its Stop.
    // Each server's Stop on a thread of its own: a send to a server that is gone may wait out the
    // timeout (Gloo releases a send queued to a dead peer only then), and the others, on links of
    // their own, must have theirs before their own wait for the chief times out.
    const PsHeader stop = stopMessage();
    std::vector<std::thread> stops;
    for (int server = 0; server < m_layout.servers; ++server)
        stops.emplace_back([this, stop, rank = m_layout.serverRank(server)] {
            try {
                sendHeader(*m_group, stop, rank);
            } catch (const std::exception&) {  // lost: nothing to stop
            }
        });
    for (std::thread& thread : stops) thread.join();
    for (auto& worker : m_workers)
        if (worker->link.joinable()) worker->link.join();
}

PsHeader ClusterParameterServerTrainer::stopMessage() const {
    PsHeader stop;
    stop.kind = PsMessage::Stop;
    stop.code = m_failed ? 3 : 0;
    stop.count = m_version;
    return stop;
}

void ClusterParameterServerTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    std::lock_guard lock(m_mutex);  // the links send them with each permit
    m_watched.fill(-1);
    const std::int64_t total = m_model->store().totalSize();
    for (std::size_t i = 0; i < std::min<std::size_t>(flatIndices.size(), m_watched.size()); ++i)
        m_watched[i] = flatIndices[i] >= 0 && flatIndices[i] < total ? flatIndices[i] : -1;
}

void ClusterParameterServerTrainer::loseWorker(RemoteWorker& worker, const std::string& cause) {
    if (m_firstLoss.empty()) m_firstLoss = "worker:" + std::to_string(worker.index) + ": " + cause;
    // Its step goes to another worker, as a killed worker's does in one process (at-least-once).
    if (worker.state == RemoteWorker::State::Permitted) m_redo.push_back(worker.batch);
    worker.alive = false;
    worker.state = RemoteWorker::State::Idle;
    m_changed.notify_all();
}

void ClusterParameterServerTrainer::link(RemoteWorker& worker) {
    const int rank = m_layout.workerRank(worker.index);
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (!worker.alive) return;
        if (worker.state == RemoteWorker::State::Permitted) {
            PsHeader permit;
            permit.kind = PsMessage::Permit;
            permit.count = static_cast<std::int64_t>(worker.batch.size());
            permit.version = worker.readVersion;
            permit.watchedIndex = m_watched;
            const std::vector<std::int64_t> batch = worker.batch;
            lock.unlock();
            PsHeader answer;
            std::string failure;
            try {
                sendHeader(*m_group, permit, rank);
                sendIndices(*m_group, batch, rank);
                answer = receiveHeader(*m_group, rank);
                if (answer.kind == PsMessage::Result)
                    m_transport->takeGradient(worker.index);
                else
                    failure = receiveText(*m_group, answer.count, rank);
            } catch (const std::exception& error) {
                // Killed, crashed, or silent past the timeout.
                lock.lock();
                loseWorker(worker, error.what());
                continue;
            }
            lock.lock();
            if (!failure.empty()) {
                if (m_failure.empty()) m_failure = "worker:" + std::to_string(worker.index) + " could not compute its gradient: " + failure;
                worker.state = RemoteWorker::State::Idle;
                m_changed.notify_all();
                continue;
            }
            ReplicaStepStats& stats = worker.stats;
            stats.lossSum = answer.value;
            stats.correct = answer.code;
            stats.examples = answer.examples;
            stats.gradNormBefore = answer.norm;
            std::copy(answer.watched.begin(), answer.watched.end(), std::begin(stats.watched));
            stats.computeEndNs = stats.commEndNs = clockNs();
            worker.state = RemoteWorker::State::Pushed;
            m_inbox.push_back(worker.index);
            m_changed.notify_all();
            continue;
        }
        if (m_stopping) {
            lock.unlock();
            try {
                sendHeader(*m_group, stopMessage(), rank);
            } catch (const std::exception&) {  // lost since: nothing to stop
            }
            return;
        }
        if (m_changed.wait_for(lock, m_keepalivePeriod) == std::cv_status::timeout && !m_stopping &&
            worker.state != RemoteWorker::State::Permitted) {
            PsHeader keepalive;
            keepalive.kind = PsMessage::Keepalive;
            lock.unlock();
            std::string lost;
            try {
                sendHeader(*m_group, keepalive, rank);
            } catch (const std::exception& error) {
                lost = error.what();
            }
            lock.lock();
            if (!lost.empty()) loseWorker(worker, lost);
        }
    }
}

void ClusterParameterServerTrainer::grantPermit(RemoteWorker& worker) {
    if (!worker.alive || worker.state != RemoteWorker::State::Idle) return;
    worker.batch.clear();
    if (!m_redo.empty()) {  // a lost worker's step runs again here (at-least-once)
        worker.batch = std::move(m_redo.front());
        m_redo.pop_front();
    } else {
        const auto next = m_sampler.next();
        worker.batch.assign(next.begin(), next.end());
    }
    worker.stats = ReplicaStepStats{};
    worker.stats.startNs = clockNs();
    worker.readVersion = m_version;
    worker.state = RemoteWorker::State::Permitted;  // its link sends the permit
    m_changed.notify_all();
    // The read: every server answers it now, before any later update (they take the chief's
    // messages in order), so the worker computes on the parameters of this version.
    PsHeader pull;
    pull.kind = PsMessage::Pull;
    pull.worker = worker.index;
    sendToServers(pull);
}

void ClusterParameterServerTrainer::grantIdleWorkers() {
    for (auto& worker : m_workers) grantPermit(*worker);  // in worker order, so batches are deterministic
}

void ClusterParameterServerTrainer::sendToServers(const PsHeader& header) {
    // A lost server throws TrainingError (Gloo's, naming the call); the run cannot go on without its shards.
    for (int server = 0; server < m_layout.servers; ++server) sendHeader(*m_group, header, m_layout.serverRank(server));
}

void ClusterParameterServerTrainer::waitForInbox(std::unique_lock<std::mutex>& lock) {
    for (;;) {
        if (!m_failure.empty()) throw TrainingError(m_failure + " (at update " + std::to_string(m_version) + ")");
        if (!m_inbox.empty()) return;
        grantIdleWorkers();  // a lost worker's batch goes to the next free one
        const bool anyAlive = std::any_of(m_workers.begin(), m_workers.end(), [](const auto& worker) { return worker->alive; });
        if (!anyAlive)
            throw TrainingError("every worker was lost at update " + std::to_string(m_version) +
                                "; no worker is left to compute gradients (the first: " + m_firstLoss + ")");
        if (m_changed.wait_for(lock, m_keepalivePeriod) == std::cv_status::timeout) keepServersWaiting();
    }
}

void ClusterParameterServerTrainer::keepServersWaiting() {
    PsHeader keepalive;
    keepalive.kind = PsMessage::Keepalive;
    sendToServers(keepalive);
}

void ClusterParameterServerTrainer::applyUpdate(std::span<const float> gradient) {
    PsHeader apply;
    apply.kind = PsMessage::Apply;
    apply.value = learningRate();
    for (int server = 0; server < m_layout.servers; ++server) {
        const ServerShards& shards = m_transport->shards(server);
        m_slice.resize(static_cast<std::size_t>(shards.size()));
        shards.gather(gradient, m_slice);
        const int rank = m_layout.serverRank(server);
        sendHeader(*m_group, apply, rank);
        m_group->send(m_slice, rank).wait();
    }
    ++m_version;
}

const StepReport& ClusterParameterServerTrainer::step() {
    for (auto& lane : m_report.replicas) lane.active = false;
    m_report.droppedStale = 0;
    try {
        return m_config.strategy.mode == ParameterServerMode::Async ? stepAsync() : stepSync();
    } catch (const TrainingError&) {
        m_failed = true;
        throw;
    }
}

const StepReport& ClusterParameterServerTrainer::stepAsync() {
    const std::int64_t start = clockNs();
    std::unique_lock lock(m_mutex);
    grantIdleWorkers();
    waitForInbox(lock);
    RemoteWorker& worker = *m_workers[static_cast<std::size_t>(m_inbox.front())];
    m_inbox.pop_front();
    lock.unlock();

    const std::int64_t staleness = m_version - worker.readVersion;
    applyUpdate(m_transport->receivedGradient(worker.index));
    ReplicaStepStats& lane = m_report.replicas[static_cast<std::size_t>(worker.index)];
    lane = worker.stats;
    lane.updateEndNs = clockNs();
    lane.staleness = staleness;
    lane.gradNormAfter = lane.gradNormBefore;
    m_report.worker = worker.index;
    m_report.staleness = staleness;
    fillReport(start, worker.stats.examples, worker.stats.lossSum, worker.stats.correct);

    lock.lock();
    worker.state = RemoteWorker::State::Idle;
    grantPermit(worker);  // it reads the new parameters and goes on while the chief reports
    return m_report;
}

const StepReport& ClusterParameterServerTrainer::stepSync() {
    const std::int64_t start = clockNs();
    std::unique_lock lock(m_mutex);
    grantIdleWorkers();
    std::vector<RemoteWorker*>& fresh = m_fresh;
    for (;;) {
        int alive = 0, inFlight = 0;
        for (const auto& worker : m_workers) {
            if (worker->alive) ++alive;
            if (worker->state == RemoteWorker::State::Permitted) ++inFlight;
        }
        const std::int64_t wanted = m_config.strategy.gradientsToAggregate > 0
                                        ? std::min<std::int64_t>(m_config.strategy.gradientsToAggregate, std::max(alive, 1))
                                        : std::max(alive, 1);
        if (static_cast<std::int64_t>(fresh.size()) >= wanted) break;
        if (m_inbox.empty() && inFlight == 0 && !fresh.empty()) break;  // workers lost: aggregate what came
        waitForInbox(lock);
        RemoteWorker& worker = *m_workers[static_cast<std::size_t>(m_inbox.front())];
        m_inbox.pop_front();
        if (worker.readVersion != m_version) {  // computed on parameters that have moved on: drop it
            ++m_report.droppedStale;
            worker.state = RemoteWorker::State::Idle;
            grantPermit(worker);
            continue;
        }
        fresh.push_back(&worker);
    }
    lock.unlock();

    // ParameterServerTrainer::stepSync's average, in the same order, so the same bits.
    std::sort(fresh.begin(), fresh.end(), [](const RemoteWorker* a, const RemoteWorker* b) { return a->index < b->index; });
    std::fill(m_aggregate.begin(), m_aggregate.end(), 0.0f);
    double lossSum = 0.0;
    std::int64_t correct = 0, examples = 0;
    for (RemoteWorker* worker : fresh) {
        const auto grads = m_transport->receivedGradient(worker->index);
        for (std::size_t i = 0; i < grads.size(); ++i) m_aggregate[i] += grads[i];
        lossSum += worker->stats.lossSum;
        correct += worker->stats.correct;
        examples += worker->stats.examples;
    }
    const float scale = 1.0f / static_cast<float>(fresh.size());
    for (float& value : m_aggregate) value *= scale;
    const double normAfter = std::sqrt(sumOfSquares(m_aggregate));
    applyUpdate(m_aggregate);
    const std::int64_t end = clockNs();
    for (RemoteWorker* worker : fresh) {
        ReplicaStepStats& lane = m_report.replicas[static_cast<std::size_t>(worker->index)];
        lane = worker->stats;
        lane.updateEndNs = end;
        lane.staleness = 0;
        lane.gradNormAfter = normAfter;
    }
    m_report.worker = -1;
    m_report.staleness = 0;
    fillReport(start, examples, lossSum, correct);
    lock.lock();
    for (RemoteWorker* worker : fresh) worker->state = RemoteWorker::State::Idle;  // permits come with the next update
    fresh.clear();
    return m_report;
}

void ClusterParameterServerTrainer::fillReport(std::int64_t startNs, std::int64_t samples, double lossSum, std::int64_t correct) {
    m_report.applied = true;
    m_report.step = m_version;
    m_report.epoch = m_sampler.epoch();
    m_report.samples = samples;
    m_report.loss = samples > 0 ? lossSum / double(samples) : 0.0;
    m_report.accuracy = m_data.train.isClassification() && samples > 0 ? double(correct) / double(samples) : -1.0;
    m_report.learningRate = learningRate();
    m_report.startNs = startNs;
    m_report.endNs = clockNs();
    m_report.serverBusyNs = 0;  // the servers' time is spent in their own processes
}

}  // namespace distlab
