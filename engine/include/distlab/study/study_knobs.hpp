#pragma once
// "Vary one or two knobs of this run": the knobs a study varies most (issue 15's list), as the
// dotted keys a variant's `set` takes, with the values a menu offers; and the study that varies
// them over a base run. The app's study set-up reads this list instead of keeping its own.
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/study/study.hpp"

namespace distlab {

struct StudyKnob {
    std::string key;    ///< dotted key path, e.g. "strategy.cross_device_ops"
    std::string label;  ///< e.g. "cross-device reduction"
    /// JSON values a menu offers ("\"ring\"", "4"); empty for a free number (learning rate, batch size).
    std::vector<std::string> choices;
};

/// Strategy, replicas, cross-device reduction, packing, batch size, accumulation, optimizer and
/// learning rate, in that order. Any thread.
const std::vector<StudyKnob>& studyKnobs();

/// One knob and the JSON values it takes in the study (e.g. {"strategy.replicas", {"1", "2", "4"}}).
struct KnobValues {
    std::string key;
    std::vector<std::string> values;
};

/// Why the knob `key` cannot vary a study of `base` (a sentence for the person choosing), or empty
/// when it can: accumulation under parameter servers, which never accumulate. Any thread.
std::string knobUnavailableReason(const RunConfig& base, const std::string& key);

/// The study of `base` varied over one or two knobs: a variant for each value (each pair of values
/// for two knobs), labelled by its values ("ring", "ring, 4"), the base written inline, the first
/// variant the baseline. The strategy knob and the replicas knob work from every strategy: they
/// write the variant's whole strategy (replicas of a parameter-server run are its workers; of a
/// one-device run, mirrored replicas). Errors: an unavailable knob (knobUnavailableReason), fewer
/// than 2 or more than 6 variants, or a variant whose config is invalid (named as parseStudy names
/// it, `fileName` standing for the study).
Result<Study> studyVarying(const RunConfig& base, const std::vector<KnobValues>& knobs, const std::string& fileName = "study");

}  // namespace distlab
