#pragma once
// The bounds a run config's numbers must keep, as the engine checks them (validateRunConfig, the
// parser). Public so the app's controls offer exactly what the engine accepts: one source for both,
// and a config the engine accepts is never clamped (and silently rewritten) by a control.
#include <cstdint>

namespace distlab::run_limits {

/// At most this many devices in strategy.devices (or strategy.replicas); bounds memory and threads.
inline constexpr std::int64_t kMaxReplicas = 1024;
/// Largest K accepted in "cpu:K" / "gpu:K".
inline constexpr int kMaxDeviceIndex = 65535;
/// Widest layer accepted (model.layers[i].units); the model's parameter count and this machine's
/// memory are checked too when the trainer is built (Model::kMaxParameters, checkFitsInMemory).
inline constexpr std::int64_t kMaxUnits = std::int64_t{1} << 20;
/// A residual layer's branches (model.layers[i].branches): 1 to this many.
inline constexpr std::int64_t kMaxResidualBranches = 16;
/// Most compute threads (`threads`): past a few per core they only take turns.
inline constexpr std::int64_t kMaxThreads = 256;
/// strategy.gpu: logical GPUs per physical GPU (TF carves any number; 8 keeps each one useful).
inline constexpr std::int64_t kMaxLogicalPerPhysical = 8;
/// strategy.gpu.memory_limit_mb: 1 TiB, beyond any GPU made.
inline constexpr std::int64_t kMaxGpuMemoryLimitMb = std::int64_t{1} << 20;
/// Parameter servers: strategy.workers, strategy.parameter_servers and
/// strategy.replicas_per_worker are each 1 to this many.
inline constexpr std::int64_t kMaxWorkers = 64;
/// The longest a multi-worker collective or rendezvous may wait for a peer (strategy.timeout_seconds): a day.
inline constexpr double kMaxTimeoutSeconds = 86400.0;
inline constexpr std::int64_t kMaxParameterServers = 64;
inline constexpr std::int64_t kMaxReplicasPerWorker = 64;
/// strategy.worker_speed[i]: 1 is full speed, 0.5 twice as slow, down to this.
inline constexpr double kMinWorkerSpeed = 0.1;
inline constexpr double kMaxWorkerSpeed = 1.0;
/// A pipeline's devices (p) and virtual stages a device (v): every micro-batch's pass is a span of
/// the step's timeline (telemetry/span.hpp keeps 256 a lane), so m·v forwards and as many
/// backwards must fit: m·v ≤ kMaxPipelinePasses.
inline constexpr std::int64_t kMaxPipelineStages = 64;
/// tensor_parallel's devices: each holds 1/tp of every split layer's columns or rows.
inline constexpr std::int64_t kMaxTensorParallel = 64;
inline constexpr std::int64_t kMaxVirtualStages = 16;
inline constexpr std::int64_t kMaxPipelinePasses = 120;
// strategy.gradient_accumulation_steps has no bound of its own: at least 1, and the global batch
// must divide among replicas × steps (validateRunConfig).

}  // namespace distlab::run_limits
