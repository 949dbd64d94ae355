#pragma once
// The step-time model's calibration on disk (docs/interfaces.md §13.5): one small JSON file per
// user, $XDG_CACHE_HOME/distlab/step_times.json (default ~/.cache/distlab/), holding the
// measurements of one machine. A file of another machine (CPU, cores or engine version), a
// corrupt or unreadable one, is ignored and replaced on the next save; a model or algorithm not
// in it is measured and added. Nothing here ever stops a study: a failed save only costs the
// next run its measurements.
#include <map>
#include <string>
#include <string_view>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/study/step_time_model.hpp"

namespace distlab {

/// Everything the model measured: per model (by modelKey) and per machine.
struct StepTimeCalibration {
    std::map<std::string, ModelCalibration> models;
    MachineCalibration machine;
    bool operator==(const StepTimeCalibration&) const = default;
};

/// This machine: its CPU model, its hardware threads and the engine's version, as one line.
std::string machineKey();
/// A model's timings depend on its layers, loss, initialisation-free shape, data (its width and
/// size), optimizer kind, precision, threads and how many copies compute at once: the config with
/// everything else (name, seed, steps, rates, strategy, batch) reset, as JSON, plus the copies. Pure.
std::string modelKey(const RunConfig& config, int threads, int concurrent);

/// The cache file: $DISTLAB_STEP_TIME_CACHE when set ("off" or empty: none), else
/// $XDG_CACHE_HOME/distlab/step_times.json, else $HOME/.cache/distlab/step_times.json, else none.
std::string stepTimeCachePath();

/// The calibration as the file's JSON text, under `machine`. Pure.
std::string calibrationToJson(const StepTimeCalibration& calibration, const std::string& machine);
/// Parses a file's text; an error when it is not such a file or belongs to another machine. Pure.
Result<StepTimeCalibration> calibrationFromJson(std::string_view text, const std::string& machine);
/// The calibration in `path` for `machine`; empty when missing, unreadable, corrupt or another
/// machine's. Never throws.
StepTimeCalibration loadCalibration(const std::string& path, const std::string& machine);
/// Writes it atomically (writeFileAtomically), creating the folder. Never throws.
Status saveCalibration(const std::string& path, const StepTimeCalibration& calibration, const std::string& machine);

}  // namespace distlab
