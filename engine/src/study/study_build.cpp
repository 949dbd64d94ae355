// StudySpec -> Study: the limits of a study and each variant's run config, built from the base (or
// its own file) with its overrides applied by the same code as `--set` (setAtKeyPath), then read
// and checked by the run config's reader, so a variant's error reads like a config's.
#include "distlab/study/study.hpp"

#include "config/run_config_json_reader.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include "distlab/files/input_file.hpp"
#include "distlab/config/run_config_json.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

constexpr std::size_t kMaxLabelLength = 64;

/// A run config's text and the folder its relative data paths resolve against.
struct ConfigSource {
    std::string text;
    std::string baseDirectory;
    std::string displayName;  ///< names it in messages
};

std::string resolvedPath(const std::string& path, const std::string& baseDirectory) {
    const std::filesystem::path given(path);
    if (given.is_absolute() || baseDirectory.empty()) return given.lexically_normal().string();
    return (std::filesystem::path(baseDirectory) / given).lexically_normal().string();
}

/// Reads a config file the study names (relative to the study's folder); `field` is the study key.
ConfigSource readConfigFile(const std::string& path, const std::string& field, const Study& study) {
    const std::string resolved = resolvedPath(path, study.baseDirectory);
    const InputFile file = InputFile::open(InputKind::Config, {study.fileName + ": " + field, path, resolved});
    return {file.readAll(), std::filesystem::path(resolved).parent_path().string(), path};
}

void checkLimits(const StudySpec& spec, const std::string& file) {
    if (spec.name.empty()) fail(file, "name", "must not be empty");
    const auto count = static_cast<int>(spec.variants.size());
    if (count < kMinStudyVariants || count > kMaxStudyVariants)
        fail(file, "variants",
             "a study compares " + std::to_string(kMinStudyVariants) + " to " + std::to_string(kMaxStudyVariants) + " variants (got " +
                 std::to_string(count) + ")");
    std::set<std::string> labels;
    for (std::size_t i = 0; i < spec.variants.size(); ++i) {
        const std::string& label = spec.variants[i].label;
        const std::string path = indexPath("variants", i) + ".label";
        if (label.empty()) fail(file, path, "must not be empty");
        if (label.size() > kMaxLabelLength)
            fail(file, path, "at most " + std::to_string(kMaxLabelLength) + " bytes (got " + std::to_string(label.size()) + ")");
        if (!labels.insert(label).second) fail(file, path, quotedJson(label) + " labels another variant already");
        if (spec.variants[i].configPath.empty() && spec.baseConfigPath.empty() && spec.baseConfigJson.empty())
            fail(file, indexPath("variants", i), "has no config file and the study has no base to apply its set to");
    }
    if (!spec.baseConfigPath.empty() && !spec.baseConfigJson.empty()) fail(file, "base", "give a file or an object, not both");
    if (spec.baseline < 0 || spec.baseline >= count)
        fail(file, "baseline", "must name one of the variants (index " + std::to_string(spec.baseline) + ")");
    if (spec.targetAccuracy && !(*spec.targetAccuracy > 0.0 && *spec.targetAccuracy <= 1.0))
        fail(file, "target_accuracy", "must be a fraction in (0, 1] (got " + std::to_string(*spec.targetAccuracy) + ")");
    if (spec.steps && (*spec.steps < 1 || *spec.steps > kMaxStudySteps))
        fail(file, "steps", "must be an integer in [1, " + std::to_string(kMaxStudySteps) + "] (got " + std::to_string(*spec.steps) + ")");
    if (spec.evalEvery < 0) fail(file, "eval_every", "must be >= 0 (got " + std::to_string(spec.evalEvery) + ")");
}

/// The variant's config: its source's JSON with its overrides set, read as a run config.
RunConfig buildVariant(const StudySpec& spec, std::size_t index, const ConfigSource& source, const std::string& file) {
    const StudyVariantSpec& variant = spec.variants[index];
    const std::string path = indexPath("variants", index);
    Json document = parseJsonDocument(source.text, source.displayName);
    if (!document.is_object()) fail(source.displayName, "", "must be an object (got " + describeType(document) + ")");
    for (const auto& [key, value] : variant.overrides) {
        const std::string where = path + ".set." + key;
        if (!setAtKeyPath(document, key, parseJsonDocument(value, file + ": " + where), file, where))
            fail(file, where, "expected a dotted key path, e.g. optimizer.learning_rate or model.layers[1].units");
    }
    // Errors name the study, the variant and the config key: "s.study.json: variants[1]: strategy.replicas: ...".
    auto config = parseRunConfig(dumpJson(document), file + ": " + path);
    if (!config) throw InputError(config.error().message);
    config->baseDirectory = source.baseDirectory;
    if (spec.steps) config->steps = *spec.steps;
    if (config->steps < 1) fail(file, path, "trains 0 steps (no limit in the app); give the study a \"steps\" count");
    if (spec.targetAccuracy && config->model.loss == LossKind::MeanSquaredError)
        fail(file, "target_accuracy", "variant " + quotedJson(variant.label) + " is a regression (loss mse) and has no accuracy");
    return std::move(*config);
}

bool sameSeedAndData(const RunConfig& a, const RunConfig& b) {
    // The batch size is a knob of the run, not the data; files are the same data only when their
    // relative paths resolve against the same folder.
    DataConfig other = b.data;
    other.globalBatchSize = a.data.globalBatchSize;
    const bool files = a.data.source == DataSource::Csv || a.data.source == DataSource::Idx;
    return a.seed == b.seed && a.data == other && (!files || a.baseDirectory == b.baseDirectory);
}

void buildVariants(Study& study) {
    const StudySpec& spec = study.spec;
    const std::string& file = study.fileName;
    checkLimits(spec, file);
    std::optional<ConfigSource> base;
    if (!spec.baseConfigPath.empty()) {
        base = readConfigFile(spec.baseConfigPath, "base", study);
    } else if (!spec.baseConfigJson.empty()) {
        base = ConfigSource{spec.baseConfigJson, study.baseDirectory, file + ": base"};
    }
    // A base that is wrong on its own is reported against the base, not against every variant.
    if (base)
        if (auto alone = parseRunConfig(base->text, base->displayName); !alone) throw InputError(alone.error().message);
    for (std::size_t i = 0; i < spec.variants.size(); ++i) {
        const StudyVariantSpec& variant = spec.variants[i];
        const ConfigSource source =
            variant.configPath.empty() ? *base : readConfigFile(variant.configPath, indexPath("variants", i) + ".config", study);
        study.variants.push_back({variant.label, buildVariant(spec, i, source, file), true});
    }
    const RunConfig& baseline = study.variants[static_cast<std::size_t>(spec.baseline)].config;
    for (StudyVariant& variant : study.variants) variant.sameSeedAndDataAsBaseline = sameSeedAndData(variant.config, baseline);
}

}  // namespace

std::int64_t Study::evalEvery(std::int64_t steps) const {
    if (spec.evalEvery > 0) return spec.evalEvery;
    return std::max<std::int64_t>(1, steps / 50);
}

Result<Study> buildStudy(StudySpec spec, const std::string& fileName, const std::string& baseDirectory) {
    Study study;
    study.spec = std::move(spec);
    study.fileName = fileName;
    study.baseDirectory = baseDirectory;
    return captureErrors([&] {
        buildVariants(study);
        return std::move(study);
    });
}

}  // namespace distlab
