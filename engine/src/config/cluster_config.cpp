// TF_CONFIG and the run config's `cluster`: addresses, task names, the workers' ranks.
#include "distlab/config/cluster_config.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include "config/cluster_parse.hpp"
#include "distlab/config/run_limits.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

constexpr std::array<std::string_view, 3> kTaskTypeNames{"chief", "worker", "ps"};

std::string_view typeName(TaskId::Type type) { return kTaskTypeNames[static_cast<std::size_t>(type)]; }

/// The message of a bad address, or "" when `text` is "host:port".
std::string addressProblem(std::string_view text, HostPort& out) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return "must be \"host:port\" (got " + quotedJson(text) + ")";
    std::string_view host = text.substr(0, colon);
    const std::string_view portText = text.substr(colon + 1);
    int port = 0;
    const auto [end, error] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (error != std::errc{} || end != portText.data() + portText.size() || port < 1 || port > 65535)
        return "the port must be an integer in [1, 65535] (got " + quotedJson(text) + ")";
    if (host.front() == '[') {  // IPv6, as TensorFlow writes it
        if (host.size() < 3 || host.back() != ']')
            return "an IPv6 host is written in brackets, \"[::1]:port\" (got " + quotedJson(text) + ")";
        host = host.substr(1, host.size() - 2);
    } else {
        for (const char c : host) {
            const bool allowed =
                (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
            if (!allowed) return "the host may hold letters, digits, '.', '-' and '_' (got " + quotedJson(text) + ")";
        }
    }
    out.host = std::string(host);
    out.port = port;
    return {};
}

TaskId readTask(const ObjectReader& reader) {
    reader.allowOnly({"type", "index"});
    const std::string type = reader.string("type", "");
    TaskId task;
    if (type == "evaluator" || type == "environment")
        reader.fail("type", quotedJson(type) + " tasks are not run by DistLab (it runs chief, worker and ps tasks)");
    const auto* known = std::find(kTaskTypeNames.begin(), kTaskTypeNames.end(), type);
    if (known == kTaskTypeNames.end()) reader.fail("type", "must be \"chief\", \"worker\" or \"ps\" (got " + quotedJson(type) + ")");
    task.type = static_cast<TaskId::Type>(known - kTaskTypeNames.begin());
    if (!reader.has("index")) reader.fail("index", "required key is missing");
    task.index = reader.integer("index", 0);
    if (task.index < 0) reader.fail("index", "must be an integer >= 0 (got " + std::to_string(task.index) + ")");
    return task;
}

}  // namespace

namespace run_config_detail {

ClusterSpec parseClusterSpec(const ObjectReader& reader) {
    reader.allowOnly({"chief", "worker", "ps"});
    ClusterSpec cluster;
    std::vector<std::pair<std::string, std::string>> seen;  // address, path
    for (const TaskId::Type type : {TaskId::Type::Chief, TaskId::Type::Worker, TaskId::Type::Ps}) {
        const std::string_view key = typeName(type);
        const Json* list = reader.find(key);
        if (list == nullptr) continue;
        if (!list->is_array()) reader.fail(key, "must be an array of \"host:port\" strings (got " + describeType(*list) + ")");
        if (static_cast<std::int64_t>(list->size()) > run_limits::kMaxWorkers)
            reader.fail(key, "at most " + std::to_string(run_limits::kMaxWorkers) + " tasks (got " + std::to_string(list->size()) + ")");
        std::vector<std::string>& addresses =
            type == TaskId::Type::Chief ? cluster.chief : (type == TaskId::Type::Worker ? cluster.worker : cluster.ps);
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string path = indexPath(reader.pathOf(key), i);
            const std::string address = readString((*list)[i], path, reader.fileName());
            HostPort parsed;
            if (const std::string problem = addressProblem(address, parsed); !problem.empty()) fail(reader.fileName(), path, problem);
            for (const auto& [other, otherPath] : seen)
                if (other == address) fail(reader.fileName(), path, quotedJson(address) + " is listed twice (also at " + otherPath + ")");
            seen.emplace_back(address, path);
            addresses.push_back(address);
        }
    }
    if (cluster.chief.size() > 1)
        reader.fail("chief", "a cluster has at most one chief (got " + std::to_string(cluster.chief.size()) + ")");
    return cluster;
}

}  // namespace run_config_detail

std::string TaskId::name() const { return std::string(typeName(type)) + ":" + std::to_string(index); }

const std::vector<std::string>& tasksOf(const ClusterSpec& cluster, TaskId::Type type) {
    switch (type) {
        case TaskId::Type::Chief:
            return cluster.chief;
        case TaskId::Type::Worker:
            return cluster.worker;
        case TaskId::Type::Ps:
            break;
    }
    return cluster.ps;
}

Result<TfConfig> parseTfConfig(std::string_view json, const std::string& source) {
    return captureErrors([&] {
        const Json document = parseJsonDocument(json, source);
        const ObjectReader reader(document, "", source);
        reader.allowOnly({"cluster", "task", "rpc_layer", "environment"});
        TfConfig config;
        const Json* cluster = reader.find("cluster");
        if (cluster == nullptr) reader.fail("cluster", "required key is missing (TF_CONFIG names the cluster's tasks)");
        config.cluster = parseClusterSpec(ObjectReader(*cluster, "cluster", source));
        if (const Json* task = reader.find("task")) config.task = readTask(ObjectReader(*task, "task", source));
        return config;
    });
}

Result<TaskId> parseTaskName(std::string_view text, const std::string& field) {
    const std::size_t colon = text.find(':');
    const std::string problem = field + ": must be TYPE:INDEX, e.g. worker:1 (got " + quotedJson(text) + ")";
    if (colon == std::string_view::npos) return Error{problem};
    const std::string_view type = text.substr(0, colon);
    const std::string_view indexText = text.substr(colon + 1);
    const auto* known = std::find(kTaskTypeNames.begin(), kTaskTypeNames.end(), type);
    std::int64_t index = -1;
    const auto [end, error] = std::from_chars(indexText.data(), indexText.data() + indexText.size(), index);
    if (known == kTaskTypeNames.end() || error != std::errc{} || end != indexText.data() + indexText.size() || index < 0)
        return Error{problem};
    return TaskId{static_cast<TaskId::Type>(known - kTaskTypeNames.begin()), index};
}

Result<HostPort> parseHostPort(std::string_view text, const std::string& where) {
    HostPort parsed;
    if (const std::string problem = addressProblem(text, parsed); !problem.empty()) return Error{where + ": " + problem};
    return parsed;
}

Result<HostPort> taskAddress(const ClusterSpec& cluster, const TaskId& task) {
    const std::vector<std::string>& addresses = tasksOf(cluster, task.type);
    if (task.index >= static_cast<std::int64_t>(addresses.size()))
        return Error{"task " + task.name() + " is not in the cluster (it has " + std::to_string(addresses.size()) + " " +
                     std::string(typeName(task.type)) + " task" + (addresses.size() == 1 ? "" : "s") + ")"};
    return parseHostPort(addresses[static_cast<std::size_t>(task.index)], "cluster." + std::string(typeName(task.type)));
}

TaskId coordinatorTask(const ClusterSpec& cluster) {
    return cluster.chief.empty() ? TaskId{TaskId::Type::Worker, 0} : TaskId{TaskId::Type::Chief, 0};
}

std::int64_t workerRank(const ClusterSpec& cluster, const TaskId& task) {
    switch (task.type) {
        case TaskId::Type::Chief:
            return 0;
        case TaskId::Type::Worker:
            return static_cast<std::int64_t>(cluster.chief.size()) + task.index;
        case TaskId::Type::Ps:
            break;
    }
    return -1;
}

TaskId taskOfWorkerRank(const ClusterSpec& cluster, std::int64_t rank) {
    if (!cluster.chief.empty()) return rank == 0 ? TaskId{TaskId::Type::Chief, 0} : TaskId{TaskId::Type::Worker, rank - 1};
    return TaskId{TaskId::Type::Worker, rank};
}

std::int64_t allTasksRank(const ClusterSpec& cluster, const TaskId& task) {
    const auto chiefs = static_cast<std::int64_t>(cluster.chief.size());
    switch (task.type) {
        case TaskId::Type::Chief:
            return 0;
        case TaskId::Type::Worker:
            return chiefs + task.index;
        case TaskId::Type::Ps:
            return chiefs + static_cast<std::int64_t>(cluster.worker.size()) + task.index;
    }
    return -1;
}

std::int64_t allTasksCount(const ClusterSpec& cluster) {
    return static_cast<std::int64_t>(cluster.chief.size() + cluster.worker.size() + cluster.ps.size());
}

}  // namespace distlab
