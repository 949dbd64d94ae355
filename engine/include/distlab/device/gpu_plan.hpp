#pragma once
// Where a run on gpu:K devices goes, decided on the host before anything touches a GPU: which
// physical GPU and memory limit each logical GPU gets (strategy.gpu's carving, as TensorFlow's
// logical devices), how the replicas reduce (NCCL between physical GPUs, the in-process ring over
// device memory between logical GPUs of one physical GPU), whether a step may be captured in a
// CUDA graph, and what the GPU path cannot run. Pure functions of the config and a DeviceReport, so
// every rule is tested without a GPU (tests/engine/test_gpu_plan.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/device/device_info.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab {

/// One replica's logical GPU.
struct LogicalGpuPlacement {
    int logical = 0;                     ///< K of gpu:K
    int physical = 0;                    ///< the CUDA ordinal of its physical GPU
    std::uint64_t memoryLimitBytes = 0;  ///< its allocator's limit; 0: none (shares the physical GPU)
    bool operator==(const LogicalGpuPlacement&) const = default;
};

/// How the replicas' gradients meet.
enum class GpuReduction {
    None,         ///< one replica: nothing to reduce
    LogicalRing,  ///< logical GPUs of one physical GPU: the ring over device memory (LogicalGpuGroup)
    Nccl,         ///< one replica per physical GPU: NCCL (it refuses two ranks on one GPU)
};

/// Whether a whole step may be recorded once in a CUDA graph and replayed, and why (or why not).
struct GraphCapture {
    bool eligible = false;
    std::string reason;
};

struct GpuPlan {
    std::vector<LogicalGpuPlacement> replicas;  ///< one per strategy device, in the config's order
    GpuReduction reduction = GpuReduction::None;
    GraphCapture graph;
};

/// Whether this version's GPU training path has run on a GPU. It stays false until tests/gpu
/// (test_gpu_trainer, test_cuda_training, test_cuda_math) have passed on a GPU machine: until
/// then `distlab-cli devices` and the app say "built, not yet verified on a GPU".
inline constexpr bool kGpuTrainingVerified = false;

/// What users are told about GPU training here: "not available (the CUDA backend module did not
/// load: …)", "built, not yet verified on a GPU" or "verified on a GPU". Pure; any thread.
std::string gpuTrainingStatus(const DeviceReport& report);

/// The one line `distlab-cli train` prints (on stderr) before a run on gpu:K devices while GPU
/// training is not verified: "warning: GPU training is built but not yet verified on a GPU"; ""
/// for cpu:K runs or once `verified`. Pure; any thread.
std::string gpuTrainingWarning(const RunConfig& config, bool verified = kGpuTrainingVerified);

/// The config's spelling of a reduction path ("none", "logical_ring", "nccl"), for messages and output.
const char* gpuReductionName(GpuReduction reduction);

/// Plans a validated config whose devices are gpu:K on the machine `report` describes. Errors name
/// the key and the cause: no usable GPU ("strategy.devices[0]: gpu:0: no usable GPU here: <the
/// report's reason>"), gpu:K past the carved count, limits the physical GPU cannot hold, a strategy
/// or cross_device_ops that cannot run on GPUs, NCCL not built in, and anything gpuPathProblem
/// reports. Pure; any thread.
Result<GpuPlan> planGpuRun(const RunConfig& config, const DeviceReport& report);

/// "" when the GPU path computes everything the config asks for (dense layers, softmax
/// cross-entropy or MSE, SGD with momentum/Nesterov or Adam, float32); otherwise the first thing
/// it does not, as "<key>: <what>: <why>". Pure; any thread.
std::string gpuPathProblem(const RunConfig& config);

/// Whether a step of `config` reduced by `reduction` may be captured in a CUDA graph, with the
/// reason either way. Pure; any thread.
GraphCapture graphCaptureEligibility(const RunConfig& config, GpuReduction reduction);

/// How a GPU trainer runs its next step.
enum class GpuStepMode {
    Eager,    ///< every kernel queued by the host
    Capture,  ///< queued once more while the stream records them into a graph, then the graph is launched
    Replay,   ///< the recorded graph launched: one call for the whole step
};

/// The step mode: eager while the plan is not eligible (or a capture failed), and for the first
/// step (a warm-up: cuBLAS picks its kernels before any are recorded); then captured once; then
/// replayed, as long as the step's micro-batch shapes are the captured ones (a graph's kernel
/// arguments are fixed; other shapes run eagerly). Pure; any thread.
GpuStepMode gpuStepMode(bool eligible, std::int64_t eagerStepsDone, bool haveGraph, bool shapesMatch);

}  // namespace distlab
