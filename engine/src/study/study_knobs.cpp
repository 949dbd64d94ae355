#include "distlab/study/study_knobs.hpp"

#include "io/run_config_json_reader.hpp"

#include "distlab/io/run_config_json.hpp"

namespace distlab {

namespace {

std::string quoted(const char* name) { return run_config_detail::quotedJson(name); }

// A value as a label: a JSON string without its quotes, anything else as written.
std::string labelOf(const std::string& jsonValue) {
    if (jsonValue.size() >= 2 && jsonValue.front() == '"' && jsonValue.back() == '"')
        return jsonValue.substr(1, jsonValue.size() - 2);
    return jsonValue;
}

// The override for one knob's value. Another optimizer type refuses the first one's keys (an sgd
// momentum under adam, docs/interfaces.md §1.6), so that knob replaces the whole optimizer, keeping
// the base's learning rate.
std::pair<std::string, std::string> overrideOf(const RunConfig& base, const std::string& key, const std::string& value) {
    if (key != "optimizer.type") return {key, value};
    run_config_detail::Json optimizer = run_config_detail::Json::object();
    optimizer["type"] = run_config_detail::parseJsonDocument(value, key);
    optimizer["learning_rate"] = base.optimizer.learningRate;
    return {"optimizer", optimizer.dump()};
}

}  // namespace

const std::vector<StudyKnob>& studyKnobs() {
    static const std::vector<StudyKnob> knobs{
        {"strategy.type", "strategy",
         {quoted(configName(StrategyKind::OneDevice)), quoted(configName(StrategyKind::Mirrored)),
          quoted(configName(StrategyKind::CentralStorage)), quoted(configName(StrategyKind::ParameterServer))}},
        {"strategy.replicas", "replicas", {"1", "2", "4", "8"}},
        {"strategy.cross_device_ops", "cross-device reduction",
         {quoted(configName(CrossDeviceOps::Ring)), quoted(configName(CrossDeviceOps::HierarchicalCopy)),
          quoted(configName(CrossDeviceOps::ReductionToOneDevice)), quoted(configName(CrossDeviceOps::Tree))}},
        {"strategy.num_packs", "packs", {"1", "2", "4"}},
        {"data.global_batch_size", "global batch size", {}},
        {"strategy.gradient_accumulation_steps", "accumulation steps", {"1", "2", "4", "8"}},
        {"optimizer.type", "optimizer", {quoted(configName(OptimizerKind::Sgd)), quoted(configName(OptimizerKind::Adam))}},
        {"optimizer.learning_rate", "learning rate", {}},
    };
    return knobs;
}

Result<Study> studyVarying(const RunConfig& base, const std::vector<KnobValues>& knobs, const std::string& fileName) {
    if (knobs.empty() || knobs.size() > 2) return Error{fileName + ": vary one or two knobs (got " + std::to_string(knobs.size()) + ")"};
    StudySpec spec;
    spec.name = base.name;
    spec.baseConfigJson = runConfigToJson(base);
    // Every value of the first knob, times every value of the second (if any).
    const std::vector<std::string> none{""};
    const std::vector<std::string>& second = knobs.size() > 1 ? knobs[1].values : none;
    for (const std::string& a : knobs[0].values) {
        for (const std::string& b : second) {
            StudyVariantSpec variant;
            variant.label = labelOf(a);
            variant.overrides.push_back(overrideOf(base, knobs[0].key, a));
            if (knobs.size() > 1) {
                variant.label += ", " + labelOf(b);
                variant.overrides.push_back(overrideOf(base, knobs[1].key, b));
            }
            spec.variants.push_back(std::move(variant));
        }
    }
    return buildStudy(std::move(spec), fileName, base.baseDirectory);
}

}  // namespace distlab
