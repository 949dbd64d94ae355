#pragma once
// A study: 2 to 6 variants of a run, trained under the same conditions and compared side by side
// (docs/interfaces.md §13). This header is the study file's model and its reader; running it is
// study_runner.hpp. Every function here is pure apart from the file reads: any thread may call it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab {

inline constexpr int kMinStudyVariants = 2;
inline constexpr int kMaxStudyVariants = 6;
/// The most steps a study's variant may train: far past any comparison, and its curves stay bounded anyway.
inline constexpr std::int64_t kMaxStudySteps = 1'000'000'000;

/// One after another (fair timings on few cores) or all at once (their threads share the cores,
/// so speeds are distorted; the app says so).
enum class StudyMode { Sequential, Simultaneous };
const char* studyModeName(StudyMode mode);  ///< "sequential", "simultaneous"

/// A variant as the study file describes it: a config file, or overrides on the base, or both
/// (the overrides then apply to the variant's own config file).
struct StudyVariantSpec {
    std::string label;
    std::string configPath;  ///< empty: the study's base; relative paths resolve against the study's folder
    /// Dotted key paths and their JSON values ("strategy.cross_device_ops" -> "\"ring\""): the
    /// `--set` syntax of docs/interfaces.md §1.10, applied by the same code.
    std::vector<std::pair<std::string, std::string>> overrides;
};

/// The study file as written (what the app saves, what studyToJson writes).
struct StudySpec {
    std::string name = "study";  ///< read from a file without "name": the file's name less ".study.json"
    std::string baseConfigPath;  ///< the base as a file (relative to the study's folder) ...
    std::string baseConfigJson;  ///< ... or inline (a run config's JSON); at most one of the two
    std::vector<StudyVariantSpec> variants;
    int baseline = 0;                      ///< the variant ratios are taken against
    std::optional<double> targetAccuracy;  ///< in (0, 1]: steps and seconds to reach it
    std::optional<std::int64_t> steps;     ///< every variant's step count; absent: each config's `steps`
    std::int64_t evalEvery = 0;            ///< steps between test evaluations; 0: steps / 50 (at least 1)
    StudyMode mode = StudyMode::Sequential;
    /// An equivalence study (`"equivalence": true`, docs/interfaces.md §13.7): the variants step in
    /// lockstep and their weights are compared with the baseline's after every update
    /// (equivalence.hpp) instead of being timed.
    bool equivalence = false;
};

/// A variant ready to run: its label and its whole run config (overrides applied, `steps` set).
struct StudyVariant {
    std::string label;
    RunConfig config;
    /// Whether its seed and data equal the baseline's (a variant made by overrides keeps the base's
    /// unless an override touches them; a variant from another config file may differ).
    bool sameSeedAndDataAsBaseline = true;
};

struct Study {
    StudySpec spec;
    std::vector<StudyVariant> variants;
    std::string fileName;       ///< names the study in messages ("STUDY" file as given, or "study")
    std::string baseDirectory;  ///< where the spec's relative paths resolve (the study file's folder)
    int baseline() const { return spec.baseline; }
    std::int64_t evalEvery(std::int64_t steps) const;  ///< the evaluation period for a variant of `steps`
};

/// Reads a study file (a regular file of at most 16 MiB, like a run config; blocks on file I/O) and
/// builds its variants. Errors name the file and the field: "s.study.json: variants[1].set.strategy.replicas:
/// must be an integer in [1, 1024] (got 0)"; `field` names the path when it cannot be read ("STUDY").
Result<Study> loadStudy(const std::string& path, const std::string& field = "study");

/// Parses a study from JSON text; relative paths resolve against baseDirectory. Blocks when the
/// study names config files.
Result<Study> parseStudy(const std::string& jsonText, const std::string& fileName, const std::string& baseDirectory);

/// Builds the variants of a spec made in memory (the app's "vary one or two knobs of this run":
/// baseConfigJson = runConfigToJson(current), one override set per variant). Checks the limits and
/// every variant's config as parseStudy does; `fileName` names the study in messages.
Result<Study> buildStudy(StudySpec spec, const std::string& fileName, const std::string& baseDirectory);

/// The spec as a study file (2-space indent, stable key order); parseStudy reads it back to the same spec.
std::string studyToJson(const StudySpec& spec);

}  // namespace distlab
