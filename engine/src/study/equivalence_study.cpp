// The app's Run ▸ Equivalence lab: a ready equivalence study of the current run
// (docs/interfaces.md §13.7), so that a learner sees the rule on their own model and data without writing a file.
#include "distlab/study/equivalence.hpp"

#include "distlab/config/run_config_json.hpp"
#include "study/strategy_override.hpp"

namespace distlab {

namespace {

/// The whole strategy of a variant, written from the defaults, so that it is exactly what its label
/// says whatever strategy the run has (a parameter-server run's `workers` would be an unknown key
/// under one_device, were only the type overridden).
std::vector<std::pair<std::string, std::string>> strategyOf(const RunConfig& run, const StrategyConfig& strategy) {
    return {strategyOverride(run, strategy)};
}

std::vector<std::pair<std::string, std::string>> synchronous(const RunConfig& run, StrategyKind type, std::int64_t replicas,
                                                             CrossDeviceOps ops, std::int64_t accumulation) {
    StrategyConfig strategy = strategyWithLanes(strategyOfKind(StrategyConfig{}, type), replicas);
    strategy.crossDeviceOps = ops;
    strategy.gradientAccumulationSteps = accumulation;
    return strategyOf(run, strategy);
}

}  // namespace

Result<Study> equivalenceStudyOf(const RunConfig& run, std::int64_t steps) {
    StudySpec spec;
    spec.name = run.name + " equivalence";
    spec.equivalence = true;
    spec.steps = steps;
    spec.baseConfigJson = runConfigToJson(run);
    const std::int64_t batch = run.data.globalBatchSize;
    using enum StrategyKind;
    spec.variants.push_back({"one device", {}, synchronous(run, OneDevice, 1, CrossDeviceOps::Ring, 1)});
    // Only what the global batch allows: G must divide by replicas × accumulation (docs/semantics.md §4.3).
    if (batch % 2 == 0) spec.variants.push_back({"mirrored 2, ring", {}, synchronous(run, Mirrored, 2, CrossDeviceOps::Ring, 1)});
    if (batch % 4 == 0)
        spec.variants.push_back({"mirrored 4, hierarchical copy", {}, synchronous(run, Mirrored, 4, CrossDeviceOps::HierarchicalCopy, 1)});
    if (batch % 2 == 0) spec.variants.push_back({"accumulation 2", {}, synchronous(run, OneDevice, 1, CrossDeviceOps::Ring, 2)});
    StrategyConfig servers;
    servers.type = ParameterServer;
    servers.workers = 2;
    servers.mode = ParameterServerMode::Async;
    spec.variants.push_back({"async parameter servers (2 workers)", {}, strategyOf(run, servers)});
    return buildStudy(std::move(spec), "equivalence lab of " + run.name, run.baseDirectory);
}

}  // namespace distlab
