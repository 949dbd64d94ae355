#pragma once
// One thread per logical CPU device. The caller's thread runs replica 0, so a step costs two
// handoffs (start, finish) and no thread is left idle spinning for the coordinator.
//
// A replica whose task throws does not take the process down: the pool catches it, calls the
// failure hook (which aborts the replicas' communicator group, so peers blocked in a collective
// for the failed one are released), waits for every replica, and run() throws a TrainingError
// naming the replica and the cause. The pool refuses to run again after that.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace distlab {

/// Each of `replicas` lanes' share of the engine's threads (`threads` of the config, 0: every
/// core), at least 1: the team size a ReplicaPool gives each lane.
int threadsPerReplica(std::int64_t threads, int replicas);

class ReplicaPool {
public:
    /// task(replica) is called once per replica per run(). threadsPerReplica sets each replica
    /// thread's OpenMP team size for Eigen's parallel products. onFailure is called once, on the
    /// failing replica's thread, when a task throws (e.g. to abort the group's collectives).
    /// `laneName` names a replica in messages ("replica", "server", ...).
    ReplicaPool(int replicas, int threadsPerReplica, std::function<void(int)> task, std::function<void()> onFailure = {},
                std::string laneName = "replica");
    ~ReplicaPool();
    ReplicaPool(const ReplicaPool&) = delete;
    ReplicaPool& operator=(const ReplicaPool&) = delete;

    /// Runs the task on every replica (replica 0 on the calling thread) and blocks until all
    /// have finished. Not reentrant; call from one thread. Allocation-free while no task throws.
    /// Throws TrainingError ("replica 2 failed: ...") when a task threw, then on every later call.
    void run();
    int replicas() const { return m_replicas; }

private:
    void workerLoop(int replica);
    /// Runs the task of one replica, recording (not propagating) what it throws.
    void runGuarded(int replica);
    [[noreturn]] void throwFailure();

    int m_replicas;
    int m_threadsPerReplica;
    std::function<void(int)> m_task;
    std::function<void()> m_onFailure;
    std::string m_laneName;
    alignas(64) std::atomic<std::uint32_t> m_startGeneration{0};
    alignas(64) std::atomic<std::uint32_t> m_finished{0};
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_failed{false};
    std::unique_ptr<std::exception_ptr[]> m_errors;  ///< one slot per replica, written by its thread only
    std::string m_failure;                           ///< the message run() throws, once failed
    std::vector<std::thread> m_threads;
};

}  // namespace distlab
