// The app's Run ▸ Equivalence lab: a ready equivalence study of the current run
// (docs/interfaces.md §13.7), so that a learner sees the rule on their own model and data without writing a file.
#include "distlab/study/equivalence.hpp"

#include "distlab/io/run_config_json.hpp"

namespace distlab {

namespace {

/// Overrides that turn any run into the named synchronous strategy (every knob the other
/// strategies set is put back, so the variant is exactly what its label says).
std::vector<std::pair<std::string, std::string>> synchronous(const char* type, std::int64_t replicas, const char* ops,
                                                             std::int64_t accumulation) {
    return {{"strategy.type", std::string("\"") + type + "\""},
            {"strategy.replicas", std::to_string(replicas)},
            {"strategy.cross_device_ops", std::string("\"") + ops + "\""},
            {"strategy.num_packs", "1"},
            {"strategy.bytes_per_pack", "0"},
            {"strategy.gradient_accumulation_steps", std::to_string(accumulation)}};
}

}  // namespace

Result<Study> equivalenceStudyOf(const RunConfig& run, std::int64_t steps) {
    StudySpec spec;
    spec.name = run.name + " equivalence";
    spec.equivalence = true;
    spec.steps = steps;
    spec.baseConfigJson = runConfigToJson(run);
    const std::int64_t batch = run.data.globalBatchSize;
    spec.variants.push_back({"one device", {}, synchronous("one_device", 1, "ring", 1)});
    // Only what the global batch allows: G must divide by replicas × accumulation (docs/semantics.md §4.3).
    if (batch % 2 == 0) spec.variants.push_back({"mirrored 2, ring", {}, synchronous("mirrored", 2, "ring", 1)});
    if (batch % 4 == 0) spec.variants.push_back({"mirrored 4, hierarchical copy", {}, synchronous("mirrored", 4, "hierarchical_copy", 1)});
    if (batch % 2 == 0) spec.variants.push_back({"accumulation 2", {}, synchronous("one_device", 1, "ring", 2)});
    spec.variants.push_back({"async parameter servers (2 workers)",
                             {},
                             {{"strategy.type", "\"parameter_server\""},
                              {"strategy.workers", "2"},
                              {"strategy.mode", "\"async\""},
                              {"strategy.gradient_accumulation_steps", "1"}}});
    return buildStudy(std::move(spec), "equivalence lab of " + run.name, run.baseDirectory);
}

}  // namespace distlab
