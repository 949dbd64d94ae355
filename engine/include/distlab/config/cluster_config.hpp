#pragma once
// The tasks of a run in several processes, as TensorFlow names them: TF_CONFIG's `cluster` (chief,
// worker and ps addresses) and `task` (this process's type and index). Pure functions, any thread.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "distlab/config/run_config.hpp"
#include "distlab/core/error.hpp"

namespace distlab {

/// One task of the cluster: "chief:0", "worker:1", "ps:0".
struct TaskId {
    enum class Type { Chief, Worker, Ps };
    Type type = Type::Worker;
    std::int64_t index = 0;
    /// "worker:1": how messages, the rendezvous and the command line name it.
    std::string name() const;
    bool operator==(const TaskId&) const = default;
};

/// TF_CONFIG: the cluster and, when given, this process's task.
struct TfConfig {
    ClusterSpec cluster;
    std::optional<TaskId> task;
};

/// A listening address "host:port" split; host "localhost" is kept as written.
struct HostPort {
    std::string host;
    int port = 0;
    std::string toString() const { return host + ":" + std::to_string(port); }
};

/// Parses TF_CONFIG's JSON, e.g. {"cluster": {"worker": ["localhost:12345", "localhost:12346"]},
/// "task": {"type": "worker", "index": 0}}; errors read "<source>: <json.path>: <what>".
/// `environment` and `evaluator` task types are not run by DistLab and are refused by name.
Result<TfConfig> parseTfConfig(std::string_view json, const std::string& source);
/// Parses "worker:1" (the --task option); `field` names the option in messages.
Result<TaskId> parseTaskName(std::string_view text, const std::string& field);
/// Splits "host:port" (port 1-65535, a host of letters, digits, '.', '-', or a bracketed IPv6 address).
Result<HostPort> parseHostPort(std::string_view text, const std::string& where);

/// The addresses of tasks of `type`.
const std::vector<std::string>& tasksOf(const ClusterSpec& cluster, TaskId::Type type);
/// The task's "host:port" in the cluster; an error naming the task when the cluster has no such task.
Result<HostPort> taskAddress(const ClusterSpec& cluster, const TaskId& task);
/// The task that serves the rendezvous and writes weights and backups: the chief, else worker 0.
TaskId coordinatorTask(const ClusterSpec& cluster);
/// The rank of a computing task among the workers (the chief first, then worker 0, 1, ...); -1 for ps.
std::int64_t workerRank(const ClusterSpec& cluster, const TaskId& task);
/// The task of worker rank `rank` (workerRank's inverse).
TaskId taskOfWorkerRank(const ClusterSpec& cluster, std::int64_t rank);
/// The rank of a task in the group of every task a parameter-server run in processes joins: the
/// chief 0, then worker 0, 1, ..., then ps 0, 1, ... (such a run always has a chief).
std::int64_t allTasksRank(const ClusterSpec& cluster, const TaskId& task);
/// How many tasks the cluster lists: chief, workers and parameter servers.
std::int64_t allTasksCount(const ClusterSpec& cluster);

}  // namespace distlab
