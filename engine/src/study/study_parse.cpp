// The study file (docs/interfaces.md §13): JSON <-> StudySpec. Keys and types here; limits and the
// variants' configs in study_build.cpp. Read with the run config's helpers, so errors read alike:
// "<file>: <json.path>: <what is wrong>".
#include "distlab/study/study.hpp"

#include "config/run_config_json_reader.hpp"

#include <filesystem>
#include <system_error>

#include "distlab/files/input_file.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

constexpr std::array<EnumName<StudyMode>, 2> kStudyModeNames{
    {{StudyMode::Sequential, "sequential"}, {StudyMode::Simultaneous, "simultaneous"}}};

StudyVariantSpec parseVariant(const Json& value, const std::string& path, const std::string& file) {
    const ObjectReader reader(value, path, file);
    reader.allowOnly({"label", "config", "set"});
    StudyVariantSpec variant;
    if (!reader.has("label")) reader.fail("label", "required key is missing (each variant needs a label for the table)");
    variant.label = reader.string("label", "");
    variant.configPath = reader.string("config", "");
    if (reader.has("config") && variant.configPath.empty()) reader.fail("config", "must name a run config file");
    if (const Json* set = reader.find("set")) {
        if (!set->is_object())
            reader.fail("set",
                        "must be an object of dotted keys and values, e.g. {\"strategy.replicas\": 4} (got " + describeType(*set) + ")");
        for (const auto& item : set->items()) variant.overrides.emplace_back(item.key(), item.value().dump());
    }
    if (!reader.has("config") && !reader.has("set"))
        fail(file, path, "give the variant a config file (\"config\") or overrides of the base (\"set\")");
    return variant;
}

// The study's base: a file name, or a run config object written inline.
void parseBase(const ObjectReader& reader, StudySpec& spec) {
    const Json* base = reader.find("base");
    if (base == nullptr) return;
    if (base->is_string()) {
        spec.baseConfigPath = base->get<std::string>();
        if (spec.baseConfigPath.empty()) reader.fail("base", "must name a run config file or be a run config object");
    } else if (base->is_object()) {
        spec.baseConfigJson = dumpJson(*base);
    } else {
        reader.fail("base", "must be a run config file name or a run config object (got " + describeType(*base) + ")");
    }
}

// A study without a name is called after its file: "runs/reductions.study.json" -> "reductions".
std::string defaultName(const std::string& file) {
    std::string name = std::filesystem::path(file).filename().string();
    for (std::string_view suffix : {".json", ".study"})
        if (name.size() > suffix.size() && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
    return name.empty() ? std::string("study") : name;
}

StudySpec parseSpec(const std::string& text, const std::string& file) {
    const Json document = parseJsonDocument(text, file);
    const ObjectReader reader(document, "", file);
    reader.allowOnly({"name", "base", "variants", "baseline", "target_accuracy", "steps", "eval_every", "mode", "equivalence"});
    StudySpec spec;
    spec.name = reader.string("name", defaultName(file));
    parseBase(reader, spec);
    const Json* variants = reader.find("variants");
    if (variants == nullptr) reader.fail("variants", "required key is missing (a study compares 2 to 6 variants)");
    if (!variants->is_array()) reader.fail("variants", "must be an array (got " + describeType(*variants) + ")");
    for (std::size_t i = 0; i < variants->size(); ++i)
        spec.variants.push_back(parseVariant((*variants)[i], indexPath("variants", i), file));
    if (const Json* baseline = reader.find("baseline")) {
        const std::string label = readString(*baseline, "baseline", file);
        std::size_t index = 0;
        while (index < spec.variants.size() && spec.variants[index].label != label) ++index;
        if (index == spec.variants.size()) reader.fail("baseline", "no variant is labelled " + quotedJson(label));
        spec.baseline = static_cast<int>(index);
    }
    if (reader.has("target_accuracy")) spec.targetAccuracy = reader.number("target_accuracy", 0.0);
    if (reader.has("steps")) spec.steps = reader.integer("steps", 0);
    spec.evalEvery = reader.integer("eval_every", spec.evalEvery);
    spec.mode = reader.choice("mode", spec.mode, kStudyModeNames);
    spec.equivalence = reader.boolean("equivalence", false);
    return spec;
}

}  // namespace

const char* studyModeName(StudyMode mode) { return mode == StudyMode::Simultaneous ? "simultaneous" : "sequential"; }

Result<Study> parseStudy(const std::string& jsonText, const std::string& fileName, const std::string& baseDirectory) {
    auto spec = captureErrors([&] { return parseSpec(jsonText, fileName); });
    if (!spec) return spec.error();
    return buildStudy(std::move(*spec), fileName, baseDirectory);
}

Result<Study> loadStudy(const std::string& path, const std::string& field) {
    auto text = readInputFile(InputKind::Config, {field, path, {}});
    if (!text) return text.error();
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(std::filesystem::path(path), error);
    return parseStudy(*text, path, (error ? std::filesystem::path(path) : absolute).parent_path().lexically_normal().string());
}

std::string studyToJson(const StudySpec& spec) {
    Json out = Json::object();
    out["name"] = spec.name;
    if (!spec.baseConfigPath.empty())
        out["base"] = spec.baseConfigPath;
    else if (!spec.baseConfigJson.empty())
        out["base"] = parseJsonDocument(spec.baseConfigJson, "base");
    if (spec.steps) out["steps"] = *spec.steps;
    if (spec.evalEvery > 0) out["eval_every"] = spec.evalEvery;
    out["mode"] = studyModeName(spec.mode);
    if (spec.equivalence) out["equivalence"] = true;
    if (spec.baseline >= 0 && spec.baseline < static_cast<int>(spec.variants.size()))
        out["baseline"] = spec.variants[static_cast<std::size_t>(spec.baseline)].label;
    if (spec.targetAccuracy) out["target_accuracy"] = *spec.targetAccuracy;
    Json variants = Json::array();
    for (const StudyVariantSpec& variant : spec.variants) {
        Json entry = Json::object();
        entry["label"] = variant.label;
        if (!variant.configPath.empty()) entry["config"] = variant.configPath;
        // A variant that is the base unchanged keeps its empty "set": without it the file would not read back.
        if (!variant.overrides.empty() || variant.configPath.empty()) {
            Json set = Json::object();
            for (const auto& [key, value] : variant.overrides) set[key] = parseJsonDocument(value, "set");
            entry["set"] = std::move(set);
        }
        variants.push_back(std::move(entry));
    }
    out["variants"] = std::move(variants);
    return dumpJson(out) + "\n";
}

}  // namespace distlab
