#include "distlab/distribute/replica_pool.hpp"

#include <omp.h>

#include <algorithm>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/error.hpp"

namespace distlab {

int threadsPerReplica(std::int64_t threads, int replicas) {
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t total = threads > 0 ? threads : cores;
    return static_cast<int>(std::max<std::int64_t>(1, total / std::max(1, replicas)));
}

ReplicaPool::ReplicaPool(int replicas, int threadsPerReplica, std::function<void(int)> task, std::function<void()> onFailure,
                         std::string laneName)
    : m_replicas(replicas),
      m_threadsPerReplica(threadsPerReplica),
      m_task(std::move(task)),
      m_onFailure(std::move(onFailure)),
      m_laneName(std::move(laneName)),
      m_errors(std::make_unique<std::exception_ptr[]>(static_cast<std::size_t>(replicas))) {
    for (int replica = 1; replica < replicas; ++replica) m_threads.emplace_back([this, replica] { workerLoop(replica); });
}

ReplicaPool::~ReplicaPool() {
    m_stopping.store(true, std::memory_order_release);
    m_startGeneration.fetch_add(1, std::memory_order_acq_rel);
    m_startGeneration.notify_all();
    for (auto& thread : m_threads) thread.join();
}

void ReplicaPool::run() {
    if (m_failed.load(std::memory_order_acquire)) throwFailure();
    omp_set_num_threads(m_threadsPerReplica);
    m_finished.store(0, std::memory_order_relaxed);
    m_startGeneration.fetch_add(1, std::memory_order_acq_rel);
    m_startGeneration.notify_all();
    runGuarded(0);
    // Wait until every worker has counted itself finished (a failed one counts too).
    for (std::uint32_t done = m_finished.load(std::memory_order_acquire); done != static_cast<std::uint32_t>(m_replicas - 1);
         done = m_finished.load(std::memory_order_acquire))
        spinWaitWhileEqual(m_finished, done);
    if (m_failed.load(std::memory_order_acquire)) throwFailure();
}

void ReplicaPool::runGuarded(int replica) {
    try {
        m_task(replica);
    } catch (...) {
        m_errors[static_cast<std::size_t>(replica)] = std::current_exception();
        if (!m_failed.exchange(true, std::memory_order_acq_rel) && m_onFailure) m_onFailure();
    }
}

void ReplicaPool::throwFailure() {
    if (m_failure.empty()) {
        // The cause is the first replica that failed on its own; the others were released from
        // their collectives by the abort (CollectiveAborted) and only report that.
        int cause = -1;
        std::string what = "unknown error";
        for (int replica = 0; replica < m_replicas; ++replica) {
            const std::exception_ptr& error = m_errors[static_cast<std::size_t>(replica)];
            if (!error) continue;
            try {
                std::rethrow_exception(error);
            } catch (const CollectiveAborted& aborted) {
                if (cause < 0) {
                    cause = replica;
                    what = aborted.what();
                }
                continue;
            } catch (const std::exception& failure) {
                what = failure.what();
            } catch (...) {
                what = "a non-standard exception";
            }
            cause = replica;
            break;
        }
        m_failure = m_laneName + " " + std::to_string(cause) + " failed: " + what;
    }
    throw TrainingError(m_failure);
}

void ReplicaPool::workerLoop(int replica) {
    omp_set_num_threads(m_threadsPerReplica);
    std::uint32_t seen = 0;
    for (;;) {
        spinWaitWhileEqual(m_startGeneration, seen);
        seen = m_startGeneration.load(std::memory_order_acquire);
        if (m_stopping.load(std::memory_order_acquire)) return;
        runGuarded(replica);
        m_finished.fetch_add(1, std::memory_order_acq_rel);
        m_finished.notify_one();
    }
}

}  // namespace distlab
