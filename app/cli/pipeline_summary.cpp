#include "pipeline_summary.hpp"

#include "distlab/distribute/pipeline_placement.hpp"

namespace distlab::cli {

bool splitsModel(const RunConfig& config) {
    return config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel;
}

void addPipelineFigures(nlohmann::ordered_json& out, const Trainer& trainer, const BubbleMeter& meter, const StepReport& last) {
    const RunConfig& config = trainer.config();
    out["clock"] = configName(config.clock);
    out["bubble_fraction"] = meter.fractions();
    const std::optional<double> theory = bubbleTheory(config, placeLayers(config, trainer.replicaModel(0)));
    out["bubble_fraction_theory"] = theory ? nlohmann::ordered_json(*theory) : nlohmann::ordered_json();
    // The schedule at each stage's mean pass times in this run: the theory without its equal stages and 1:2 passes.
    const std::vector<double> simulated = simulatedBubbles(config, meter.meanStageTimes());
    out["bubble_fraction_simulated"] = simulated.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(simulated);
    std::vector<std::int64_t> bytes;
    std::vector<int> micro;
    for (const ReplicaStepStats& lane : last.replicas) {
        bytes.push_back(lane.activationPeakBytes);
        micro.push_back(lane.activationPeakMicroBatches);
    }
    out["activation_peak_bytes"] = bytes;
    out["activation_peak_micro_batches"] = micro;
}

}  // namespace distlab::cli
