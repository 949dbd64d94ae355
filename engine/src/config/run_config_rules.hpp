#pragma once
// What this version of the engine implements, shared by the parser (which checks a type before the
// keys that depend on it) and validateRunConfig (which checks structs built without JSON).
#include <distlab/config/run_config.hpp>

#include <cstdint>
#include <string>

namespace distlab::run_config_detail {

/// At most this many devices in strategy.devices (or strategy.replicas); bounds memory and threads.
inline constexpr std::int64_t kMaxReplicas = 1024;
/// Largest K accepted in "cpu:K" / "gpu:K".
inline constexpr int kMaxDeviceIndex = 65535;
/// Widest layer accepted (model.layers[i].units); the model's parameter count and this machine's
/// memory are checked too when the trainer is built (Model::kMaxParameters, checkFitsInMemory).
inline constexpr std::int64_t kMaxUnits = std::int64_t{1} << 20;
/// Most compute threads (`threads`): past a few per core they only take turns.
inline constexpr std::int64_t kMaxThreads = 256;
/// strategy.gpu: logical GPUs per physical GPU (TF carves any number; 8 keeps each one useful).
inline constexpr std::int64_t kMaxLogicalPerPhysical = 8;
/// strategy.gpu.memory_limit_mb: 1 TiB, beyond any GPU made.
inline constexpr std::int64_t kMaxGpuMemoryLimitMb = std::int64_t{1} << 20;

/// "" when layers of this type can be built; otherwise what is wrong (for model.layers[i].type).
std::string layerTypeProblem(const std::string& type);
/// "" when the strategy is implemented; otherwise the "not available yet" message.
std::string strategyProblem(StrategyKind type);
/// "" when the precision is implemented; otherwise the "not available yet" message.
std::string precisionProblem(Precision precision);

}  // namespace distlab::run_config_detail
