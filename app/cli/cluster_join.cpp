#include "cluster_join.hpp"

#include <cstdio>
#include <cstdlib>

#include "distlab/comm/cluster_store.hpp"
#include "distlab/config/cluster_config.hpp"
#include "distlab/config/run_config_json.hpp"

#include <nlohmann/json.hpp>

namespace distlab::cli {

Result<std::unique_ptr<ClusterTask>> joinCluster(RunConfig& config, const std::string& configPath, const std::string& taskOption,
                                                 const std::string& redisOption) {
    std::optional<TaskId> task;
    if (const char* tfConfig = std::getenv("TF_CONFIG"); tfConfig != nullptr && *tfConfig != '\0') {
        Result<TfConfig> parsed = parseTfConfig(tfConfig, "TF_CONFIG");
        if (!parsed) return parsed.error();
        config.cluster = parsed->cluster;  // TensorFlow's precedence: the environment names the cluster
        task = parsed->task;
    }
    if (!taskOption.empty()) {
        Result<TaskId> named = parseTaskName(taskOption, "--task");
        if (!named) return named.error();
        task = *named;
    }
    if (config.strategy.type != StrategyKind::MultiWorkerMirrored && config.strategy.type != StrategyKind::ParameterServer)
        return Error{configPath + ": strategy.type: distlab-worker runs multi_worker_mirrored and parameter_server tasks (got \"" +
                     configName(config.strategy.type) + "\"; distlab-cli train runs the others)"};
    if (config.cluster.empty())
        return Error{configPath + ": cluster: no cluster: set TF_CONFIG, or give the config a \"cluster\" (docs/cluster.md)"};
    if (!task) return Error{"no task: set TF_CONFIG's \"task\", or pass --task TYPE:INDEX"};
    if (Status valid = validateRunConfig(config, configPath); !valid) return valid.error();

    ClusterJoinOptions options;
    if (const char* token = std::getenv("DISTLAB_CLUSTER_TOKEN"); token != nullptr) options.token = token;
    if (!redisOption.empty()) {
        Result<HostPort> redis = parseHostPort(redisOption, "--redis");
        if (!redis) return redis.error();
        options.redis = *redis;
        if (options.token.empty()) return Error{"--redis: set DISTLAB_CLUSTER_TOKEN to the same value for every task"};
    }
    const bool madeUpToken = options.token.empty() && !options.redis;
    if (madeUpToken && *task == coordinatorTask(config.cluster)) {
        // The coordinator needs its token before it waits for the others, so it is printed first.
        options.token = makeClusterToken();
        std::fprintf(stderr, "%s: the run's token is %s: start the other tasks with DISTLAB_CLUSTER_TOKEN=%s\n", task->name().c_str(),
                     options.token.c_str(), options.token.c_str());
    }
    return ClusterTask::join(config, *task, options);
}

}  // namespace distlab::cli

namespace distlab::cli {

std::string lostTasksMember(ClusterTask& member) {
    if (!member.coordinator()) return {};
    std::vector<std::string> lost;
    try {
        lost = member.lostTasks();
    } catch (const std::exception&) {
        return {};
    }
    if (lost.empty()) return {};
    return ",\"lost_tasks\":" + nlohmann::json(lost).dump();
}

}  // namespace distlab::cli
