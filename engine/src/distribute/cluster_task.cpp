#include "distlab/distribute/cluster_task.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <thread>

#include "distlab/comm/cluster_store.hpp"
#include "distlab/comm/gloo_group.hpp"
#include "distlab/config/run_config_json.hpp"

namespace distlab {

namespace {

/// Gloo and the store listen on what the cluster names; "localhost" as IPv4 loopback, so every
/// task resolves it the same way.
std::string listenHost(const std::string& host) { return host == "localhost" ? "127.0.0.1" : host; }

/// "2 s", "0.5 s".
std::string formatSeconds(double seconds) {
    std::string text = std::to_string(seconds);
    text.erase(text.find_last_not_of('0') + 1);
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text + " s";
}

}  // namespace

std::string ClusterTask::configHash(const RunConfig& config) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : runConfigToJson(config)) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    std::array<char, 17> text{};
    std::snprintf(text.data(), text.size(), "%016llx", static_cast<unsigned long long>(hash));
    return text.data();
}

Result<std::unique_ptr<ClusterTask>> ClusterTask::join(const RunConfig& config, const TaskId& task, const ClusterJoinOptions& options) {
    std::unique_ptr<ClusterTask> self(new ClusterTask());
    self->m_task = task;
    const ClusterSpec& cluster = config.cluster;
    // Multi-worker mirrored joins one rank per worker; a parameter-server run joins every task (its
    // chief, workers and servers talk point to point: parameter_server_cluster.hpp).
    const bool everyTask = config.strategy.type == StrategyKind::ParameterServer;
    if (task.type == TaskId::Type::Ps && !everyTask)
        return Error{"task " + task.name() + ": multi_worker_mirrored has no parameter servers"};
    Result<HostPort> own = taskAddress(cluster, task);
    if (!own) return own.error();
    const TaskId coordinator = coordinatorTask(cluster);
    Result<HostPort> coordinatorAddress = taskAddress(cluster, coordinator);
    if (!coordinatorAddress) return coordinatorAddress.error();
    self->m_coordinator = task == coordinator;
    self->m_coordinatorName = coordinator.name();
    self->m_workerRank = static_cast<int>(everyTask ? allTasksRank(cluster, task) : distlab::workerRank(cluster, task));
    self->m_workerCount = static_cast<int>(everyTask ? static_cast<std::int64_t>(cluster.worker.size()) : cluster.workerCount());
    const int groupSize = static_cast<int>(everyTask ? allTasksCount(cluster) : cluster.workerCount());
    const auto timeout = std::chrono::milliseconds(static_cast<std::int64_t>(config.strategy.timeoutSeconds * 1000.0));
    const std::string hash = configHash(config);

    if (!options.redis) {
        if (self->m_coordinator) {
            if (options.token.empty()) return Error{"task " + task.name() + ": the run has no token (ClusterJoinOptions::token)"};
            self->m_token = options.token;
            auto server = ClusterStoreServer::start(listenHost(coordinatorAddress->host), coordinatorAddress->port, self->m_token, hash);
            if (!server) return Error{"task " + task.name() + " serves the rendezvous: " + server.error().message};
            self->m_server = std::move(*server);
        } else {
            if (options.token.empty())
                return Error{"task " + task.name() + ": DISTLAB_CLUSTER_TOKEN is not set: give every task the token " + coordinator.name() +
                             " printed (or one of your own to every task)"};
            self->m_token = options.token;
        }
        auto client = ClusterStoreClient::connect(listenHost(coordinatorAddress->host), coordinatorAddress->port,
                                                  ClusterIdentity{self->m_token, hash, task.name()}, timeout);
        if (!client) return Error{"task " + task.name() + ": " + client.error().message};
        self->m_client = std::move(*client);
    } else {
        self->m_token = options.token;
    }

    GlooRendezvous rendezvous;
    rendezvous.chiefStore = self->m_client.get();
    if (options.redis) {
        rendezvous.redisHost = options.redis->host;
        rendezvous.redisPort = options.redis->port;
    }
    // One prefix per run config and token: a Redis server shared by several runs keeps them apart.
    rendezvous.prefix = "distlab/" + hash + "/" + self->m_token.substr(0, 8);
    GlooGroupOptions group;
    group.rank = self->m_workerRank;
    group.size = groupSize;
    group.listenHost = listenHost(own->host);
    group.timeout = timeout;
    group.alwaysRing = config.strategy.communication == CollectiveImplementation::Ring;
    group.pointToPoint = everyTask;
    // The tasks wait for the chief twice as long as it waits for them (it tells them it lives a
    // quarter of the timeout apart): a chief held up by its link to a lost server still reaches
    // them with its Stop before they give up on it.
    if (everyTask) group.rankZeroTimeout = 2 * timeout;
    auto workers = connectGlooGroup(rendezvous, group);
    if (!workers) {
        // The coordinator knows who came: a task that never did is named, not a store key.
        std::string missing;
        if (self->m_server) {
            const std::vector<std::string> joined = self->m_server->joinedTasks();
            for (std::int64_t rank = 0; rank < cluster.workerCount(); ++rank) {
                const std::string name = taskOfWorkerRank(cluster, rank).name();
                if (std::find(joined.begin(), joined.end(), name) == joined.end()) missing += (missing.empty() ? "" : ", ") + name;
            }
        }
        if (!missing.empty())
            return Error{"task " + task.name() + ": " + missing + " never came to the rendezvous within timeout_seconds (" +
                         formatSeconds(config.strategy.timeoutSeconds) + "): is it started, with this config and token? (" +
                         workers.error().message + ")"};
        return Error{"task " + task.name() + ": " + workers.error().message};
    }
    self->m_workers = std::move(*workers);
    return self;
}

ClusterTask::~ClusterTask() = default;

std::vector<std::string> ClusterTask::lostTasks() {
    if (m_server) return m_server->lostTasks();
    if (m_client) return m_client->lostTasks();
    return {};
}

std::string ClusterTask::describeFailure(const std::string& cause) {
    // The store notices a closed connection a moment after Gloo's pair does.
    std::vector<std::string> lost;
    for (int attempt = 0; attempt < 20 && lost.empty() && (m_server || m_client); ++attempt) {
        try {
            lost = lostTasks();
        } catch (const std::exception&) {
            // The coordinator's store is gone with it.
            return "lost " + m_coordinatorName + " (the coordinator: its rendezvous connection closed); " + cause;
        }
        if (lost.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (lost.empty()) return cause;
    std::string names;
    for (const std::string& task : lost) names += (names.empty() ? "" : ", ") + task;
    return "lost task " + names + " (its connection closed without goodbye); " + cause;
}

void ClusterTask::leave() {
    if (m_client) m_client->goodbye();
}

}  // namespace distlab
