#include "parameter_server_task.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/distribute/parameter_server_cluster.hpp"
#include "distlab/distribute/trainer.hpp"
#include "interrupts.hpp"
#include "run_setup.hpp"

namespace distlab::cli {

bool servesParameterServerRun(const RunConfig& config, const ClusterTask& member) {
    return config.strategy.type == StrategyKind::ParameterServer && member.task().type != TaskId::Type::Chief;
}

int runParameterServerTask(const RunConfig& config, ClusterTask& member, const std::string& configPath) {
    auto data = loadTrainingData(config);
    if (!data) return inputError(configPath + ": " + data.error().message);
    // Ctrl-C in the terminal of every task reaches the chief too, which stops the run: this task
    // then ends with the others instead of leaving the chief a lost task.
    catchInterrupts();
    const std::int64_t startNs = nowNs();
    const std::unique_ptr<Communicator> group = member.takeWorkers();
    ParameterServerTaskResult result;
    int exitCode = 0;
    std::string failure;
    try {
        result = runParameterServerTask(config, member.task(), *group, *data);
        exitCode = result.exitCode;
        if (exitCode != 0)
            failure = "the chief stopped the run after " + std::to_string(result.steps) + " updates: it failed (its message says why)";
    } catch (const TrainingError& error) {
        failure = member.describeFailure(error.what());
        exitCode = 3;
    }
    const bool server = member.task().type == TaskId::Type::Ps;
    nlohmann::ordered_json summary;
    summary["steps"] = result.steps;
    summary["wall_seconds"] = double(nowNs() - startNs) * 1e-9;
    summary["task"] = member.task().name();
    summary["workers"] = member.workerCount();
    summary["coordinator"] = false;
    if (server) {
        summary["reads"] = result.reads;
        summary["updates"] = result.updates;
        summary["elements"] = result.elements;
    } else {
        summary["gradients"] = result.gradients;
    }
    if (interrupted()) summary["interrupted"] = true;
    if (exitCode != 3) member.leave();
    std::puts(summary.dump().c_str());
    if (!failure.empty()) std::fprintf(stderr, "error: %s\n", failure.c_str());
    if (interrupted() && exitCode != 2) return 130;
    return exitCode;
}

}  // namespace distlab::cli
