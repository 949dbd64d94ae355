#pragma once
// One task of a multi-worker run in its own process (distlab-worker): it finds the others through
// the rendezvous store the coordinator serves (the chief, else worker 0: as PyTorch's TCPStore is
// served by rank 0), proves it belongs to the run (the run's token and its config's hash), and
// joins the Gloo group of one rank per worker that the trainer's replicas reduce through (a
// parameter-server run: of every task, whose pulls and pushes go point to point through it).
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/config/cluster_config.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/core/error.hpp"

namespace distlab {

class ClusterStoreServer;
class ClusterStoreClient;

struct ClusterJoinOptions {
    /// Every task presents it; the coordinator refuses any other (makeClusterToken() makes one).
    std::string token;
    /// Rendezvous through this Redis server (Gloo's RedisStore) instead of the coordinator's store.
    std::optional<HostPort> redis;
};

class ClusterTask {
public:
    /// Joins `task` of the validated `config` (its cluster filled in, from TF_CONFIG or the config).
    /// Blocks until every worker has joined, or fails within strategy.timeout_seconds with a
    /// message naming what: the coordinator's port in use, a refused token or config, a peer
    /// that never came.
    static Result<std::unique_ptr<ClusterTask>> join(const RunConfig& config, const TaskId& task, const ClusterJoinOptions& options);
    ~ClusterTask();
    ClusterTask(const ClusterTask&) = delete;
    ClusterTask& operator=(const ClusterTask&) = delete;

    const TaskId& task() const { return m_task; }
    /// Whether this task serves the rendezvous and writes the run's weights and checkpoints.
    bool coordinator() const { return m_coordinator; }
    /// This task's rank in its Gloo group (multi_worker_mirrored: among the workers; parameter
    /// servers: among every task, allTasksRank), and how many workers compute.
    int workerRank() const { return m_workerRank; }
    int workerCount() const { return m_workerCount; }
    const std::string& token() const { return m_token; }
    /// The communicator of the task's group (one rank per worker; for parameter servers one per
    /// task), for Trainer::create or runParameterServerTask. Once.
    std::unique_ptr<Communicator> takeWorkers() { return std::move(m_workers); }
    /// The tasks whose rendezvous connection ended without goodbye, in the order lost (the
    /// coordinator's store keeps the list). Throws std::runtime_error when the coordinator is gone.
    std::vector<std::string> lostTasks();
    /// Why the run stopped, for a collective that failed with `cause`: the tasks the coordinator
    /// saw leave without saying goodbye (waiting up to a second for it to notice), else the cause.
    std::string describeFailure(const std::string& cause);
    /// Says goodbye: this task is done, not lost. At the end of a run.
    void leave();

    /// The config's fingerprint the tasks compare: FNV-1a (64 bits, hex) of its canonical JSON.
    static std::string configHash(const RunConfig& config);

private:
    ClusterTask() = default;

    TaskId m_task;
    bool m_coordinator = false;
    std::string m_coordinatorName;
    int m_workerRank = 0;
    int m_workerCount = 1;
    std::string m_token;
    std::unique_ptr<ClusterStoreServer> m_server;
    std::unique_ptr<ClusterStoreClient> m_client;
    std::unique_ptr<Communicator> m_workers;
};

}  // namespace distlab
