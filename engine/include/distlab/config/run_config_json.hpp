#pragma once
// Reading, validating and writing the run config of docs/interfaces.md §1.
// Every function here is pure (no shared state): any thread may call it, and none blocks except
// loadRunConfig, which reads one file.
#include <distlab/core/error.hpp>
#include <distlab/config/run_config.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace distlab {

/// Parses and validates a run config from JSON text; fileName is used in messages only.
/// Errors read "<fileName>: <json.path>: <what is wrong>" (or "byte B (line L, column C)" for syntax).
Result<RunConfig> parseRunConfig(std::string_view jsonText, const std::string& fileName);

/// Reads a file (InputFile, kind Config: a regular file of at most 16 MiB; blocks), applies
/// `overrides` (applyOverrides) and parses it; baseDirectory of the result = the file's folder
/// (absolute). `field` names the file when it cannot be read ("CONFIG" on the command line).
Result<RunConfig> loadRunConfig(const std::string& path, const std::vector<std::string>& overrides = {},
                                const std::string& field = "config");

/// Checks the ranges and cross-field rules of a config (e.g. one the GUI built without JSON).
/// Messages use the JSON paths, so they read the same as parseRunConfig's.
Status validateRunConfig(const RunConfig& config, const std::string& fileName);

/// Writes the config as JSON: only the keys the run uses (docs/interfaces.md §1.11: the data source's
/// own keys, no devices for parameter servers, ...), stable key order, 2-space indent, devices as an
/// explicit list. parseRunConfig(runConfigToJson(c)) equals withUnusedKeysReset(c) for every valid c
/// (baseDirectory is not written); the two are the same run.
std::string runConfigToJson(const RunConfig& config);

/// `config` with every field its run does not use (another data source's keys, a parameter-server
/// run's devices, the other optimizer's keys, ...) back at its default: what reading a saved config gives.
RunConfig withUnusedKeysReset(const RunConfig& config);

/// Applies "--set key.path=value" overrides to JSON text before parsing, e.g. "optimizer.learning_rate=0.1",
/// "strategy.replicas=4", "model.layers[1].units=64". The value is parsed as JSON if it can be, else
/// taken as a string. Missing objects on the path are created; an index equal to an array's size
/// appends. Setting strategy.replicas drops strategy.devices and vice versa (one replaces the other).
Result<std::string> applyOverrides(std::string_view jsonText, const std::vector<std::string>& overrides, const std::string& fileName);

/// The JSON spelling -> enum value (the inverse of toString in run_config.hpp); false if unknown.
bool fromString(std::string_view text, Activation& value);
bool fromString(std::string_view text, LossKind& value);
bool fromString(std::string_view text, InitKind& value);
bool fromString(std::string_view text, DataSource& value);
bool fromString(std::string_view text, SyntheticKind& value);
bool fromString(std::string_view text, OptimizerKind& value);
bool fromString(std::string_view text, StrategyKind& value);
bool fromString(std::string_view text, CrossDeviceOps& value);
bool fromString(std::string_view text, Precision& value);

/// Parses "cpu:K" or "gpu:K" (K a decimal integer >= 0, no sign, no spaces); false if malformed.
bool parseDeviceName(std::string_view text, DeviceName& device);

}  // namespace distlab
