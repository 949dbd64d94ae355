#include "distlab/study/study_knobs.hpp"

#include "config/run_config_json_reader.hpp"
#include "study/strategy_override.hpp"

#include "distlab/config/run_config_json.hpp"

namespace distlab {

namespace {

std::string quoted(const char* name) { return run_config_detail::quotedJson(name); }

// A value as a label: a JSON string without its quotes, anything else as written.
std::string labelOf(const std::string& jsonValue) {
    if (jsonValue.size() >= 2 && jsonValue.front() == '"' && jsonValue.back() == '"') return jsonValue.substr(1, jsonValue.size() - 2);
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

constexpr const char* kStrategyTypeKey = "strategy.type";
constexpr const char* kReplicasKey = "strategy.replicas";
constexpr const char* kAccumulationKey = "strategy.gradient_accumulation_steps";

// The variant's overrides for one value per knob. The strategy's kind and its lanes are applied to
// the strategy itself and written as one whole "strategy" object (strategy_override.hpp), first,
// so that the other knobs' keys apply on top of it.
std::vector<std::pair<std::string, std::string>> variantOverrides(const RunConfig& base, const std::vector<KnobValues>& knobs,
                                                                  const std::vector<const std::string*>& values) {
    std::vector<std::pair<std::string, std::string>> overrides;
    StrategyConfig strategy = base.strategy;
    bool wholeStrategy = false;
    for (std::size_t k = 0; k < knobs.size(); ++k) {
        const std::string& key = knobs[k].key;
        const std::string& value = *values[k];
        if (key == kStrategyTypeKey) {
            for (const StrategyKind kind :
                 {StrategyKind::OneDevice, StrategyKind::Mirrored, StrategyKind::CentralStorage, StrategyKind::ParameterServer})
                if (value == quoted(configName(kind))) {
                    strategy = strategyOfKind(strategy, kind);
                    wholeStrategy = true;
                }
        } else if (key == kReplicasKey && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos) {
            strategy = strategyWithLanes(strategy, std::stoll(value));
            wholeStrategy = true;
        } else {
            overrides.push_back(overrideOf(base, key, value));
        }
    }
    if (wholeStrategy) overrides.insert(overrides.begin(), strategyOverride(base, strategy));
    return overrides;
}

}  // namespace

std::string knobUnavailableReason(const RunConfig& base, const std::string& key) {
    if (key == kAccumulationKey && base.strategy.type == StrategyKind::ParameterServer)
        return "Parameter servers apply every gradient as it comes: they do not accumulate gradients. Vary the "
               "strategy first, or study accumulation from a one-device or mirrored run.";
    return {};
}

const std::vector<StudyKnob>& studyKnobs() {
    static const std::vector<StudyKnob> knobs{
        {"strategy.type",
         "strategy",
         {quoted(configName(StrategyKind::OneDevice)), quoted(configName(StrategyKind::Mirrored)),
          quoted(configName(StrategyKind::CentralStorage)), quoted(configName(StrategyKind::ParameterServer))}},
        {"strategy.replicas", "replicas", {"1", "2", "4", "8"}},
        {"strategy.cross_device_ops",
         "cross-device reduction",
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
    for (const KnobValues& knob : knobs)
        if (const std::string reason = knobUnavailableReason(base, knob.key); !reason.empty()) return Error{reason};
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
            std::vector<const std::string*> values{&a};
            if (knobs.size() > 1) {
                variant.label += ", " + labelOf(b);
                values.push_back(&b);
            }
            variant.overrides = variantOverrides(base, knobs, values);
            spec.variants.push_back(std::move(variant));
        }
    }
    return buildStudy(std::move(spec), fileName, base.baseDirectory);
}

}  // namespace distlab
