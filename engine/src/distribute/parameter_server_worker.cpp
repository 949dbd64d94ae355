// The worker side of parameter-server training: wait for a permit, read the parameters, compute
// one gradient (synchronously over the worker's replicas), push it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/parameter_server_worker.hpp"
#include "distribute/parameter_transport.hpp"

namespace distlab {

void ParameterServerTrainer::workerLoop(Worker& worker) {
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_workerWake.wait(lock, [&] { return m_stopping || worker.killed || worker.state == Worker::State::Permitted; });
            if (m_stopping || worker.killed) {
                if (worker.state == Worker::State::Permitted) m_redo.push_back(worker.batch);
                worker.alive = false;
                worker.state = Worker::State::Idle;
                m_inboxReady.notify_all();
                return;
            }
            worker.state = Worker::State::Computing;
        }
        try {
            computeGradient(worker);
        } catch (const std::exception& error) {
            // The worker's thread ends; the coordinator stops the run with this message (the
            // worker's own replicas were released by its pool, so nothing waits for it).
            std::lock_guard lock(m_mutex);
            if (m_workerFailure.empty())
                m_workerFailure = "parameter-server worker " + std::to_string(worker.index) + " failed: " + error.what();
            worker.alive = false;
            worker.state = Worker::State::Idle;
            m_inboxReady.notify_all();
            return;
        }
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping || worker.killed) {  // died before its push: another worker redoes the step
                m_redo.push_back(worker.batch);
                worker.alive = false;
                worker.state = Worker::State::Idle;
                m_inboxReady.notify_all();
                return;
            }
            worker.state = Worker::State::Pushed;
            ++worker.gradients;
            m_inbox.push_back(worker.index);
            worker.stats.commEndNs = clockNs();
        }
        m_inboxReady.notify_all();
    }
}

void ParameterServerTrainer::computeGradient(Worker& worker) {
    ReplicaStepStats& stats = worker.stats;  // reset by grantPermit, which also sent the parameters
    worker.spans.clear();
    const std::int64_t pullBegin = clockNs();
    WorkerGradient& replicas = *worker.replicas;
    for (int r = 0; r < replicas.replicaCount(); ++r)
        m_transport->receiveParameters(worker.index, replicas.replica(r).model.store().values());
    const std::int64_t computeStart = clockNs();
    worker.spans.add(Span{pullBegin, computeStart, static_cast<std::int64_t>(replicas.replica(0).model.store().values().size_bytes()), 0,
                          -1, -1, SpanKind::Pull});
    const LossStats loss = replicas.compute(m_loss, m_data.train, worker.batch, &worker.spans, m_clockOriginNs);
    stats.lossSum = loss.sum;
    stats.correct = loss.correct;
    stats.examples = static_cast<std::int64_t>(worker.batch.size());
    const auto gradient = replicas.gradient();                 // replica 0's: the worker's, reduced
    stats.gradNormBefore = std::sqrt(sumOfSquares(gradient));  // the norm every strategy reports (reductions.hpp)
    const std::int64_t pushBegin = clockNs();
    m_transport->sendGradient(worker.index, gradient);  // the push; queued in the inbox by workerLoop
    const std::int64_t pushEnd = clockNs();
    // A straggler: a worker at speed s takes 1/s times as long. Under an update-rate limit its
    // gradient takes at least pacedGradientNs() at full speed, and 1/s times that, so the limit
    // slows every worker alike and a straggler still pushes proportionally less often. Sleeps in
    // short slices, re-reading the speed and the limit, so a kill, a shutdown or a new speed is
    // noticed at once.
    const double worked = double(clockNs() - computeStart);
    for (;;) {
        if (worker.killed || m_stopping) break;
        const double target = std::max(worked, pacedGradientNs()) / worker.speed.load();
        const std::int64_t remaining = computeStart + static_cast<std::int64_t>(target) - clockNs();
        if (remaining <= 0) break;
        std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(remaining, 5'000'000)));
    }
    stats.computeEndNs = clockNs();
    // A straggler's delay comes after the copy into the transport: the coordinator sees the push
    // only when the delay is over.
    worker.spans.add(Span{pushBegin, pushEnd, static_cast<std::int64_t>(gradient.size_bytes()), 0, -1, -1, SpanKind::Push});
    if (stats.computeEndNs > pushEnd) worker.spans.add(Span{pushEnd, stats.computeEndNs, 0, 0, -1, -1, SpanKind::Delay});
}

}  // namespace distlab
