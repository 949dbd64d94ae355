#include "pipeline_summary.hpp"

#include "distlab/distribute/pipeline_placement.hpp"

namespace distlab::cli {

bool splitsModel(const RunConfig& config) {
    return config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel;
}

void addPipelineFigures(nlohmann::ordered_json& out, const Trainer& trainer, const BubbleMeter& meter) {
    const RunConfig& config = trainer.config();
    out["clock"] = configName(config.clock);
    out["bubble_fraction"] = meter.fractions();
    const std::optional<double> theory = bubbleTheory(config, placeLayers(config, trainer.replicaModel(0)));
    out["bubble_fraction_theory"] = theory ? nlohmann::ordered_json(*theory) : nlohmann::ordered_json();
}

}  // namespace distlab::cli
