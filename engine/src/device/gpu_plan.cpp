#include "distlab/device/gpu_plan.hpp"

#include <algorithm>
#include <set>

namespace distlab {
namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

std::string devicePath(std::size_t i) { return "strategy.devices[" + std::to_string(i) + "]"; }

std::string mib(std::uint64_t bytes) { return std::to_string(bytes / kMiB) + " MiB"; }

// The strategies whose variables live on the replicas' own devices; the others keep them on the host.
std::string strategyProblem(StrategyKind type) {
    switch (type) {
        case StrategyKind::OneDevice:
        case StrategyKind::Mirrored:
            return {};
        case StrategyKind::CentralStorage:
            return "strategy.type: \"central_storage\" keeps the variables on the host CPU; on GPUs use \"mirrored\"";
        case StrategyKind::ParameterServer:
            return "strategy.type: \"parameter_server\" exchanges variables with host-side servers; it runs on cpu:K only in "
                   "this version";
        default:
            return std::string("strategy.type: \"") + configName(type) + "\" is not available on GPUs";
    }
}

// Replicas that share one physical GPU cannot use NCCL (it refuses two ranks on one GPU), and the
// logical-GPU ring reads peers' memory on one GPU only, so a plan uses exactly one of the two.
Result<GpuReduction> chooseReduction(const RunConfig& config, const std::vector<LogicalGpuPlacement>& replicas,
                                     const DeviceReport& report) {
    if (replicas.size() == 1) return GpuReduction::None;
    std::set<int> physical;
    for (const LogicalGpuPlacement& replica : replicas) physical.insert(replica.physical);
    const CrossDeviceOps ops = config.strategy.crossDeviceOps;
    const std::string opsName = std::string("\"") + configName(ops) + "\"";
    if (physical.size() == 1) {
        if (ops == CrossDeviceOps::Ring) return GpuReduction::LogicalRing;
        if (ops == CrossDeviceOps::Nccl)
            return Error{
                "strategy.cross_device_ops: \"nccl\" cannot reduce between logical GPUs of one physical GPU "
                "(NCCL refuses two ranks on one GPU); use \"ring\", the in-process ring over device memory"};
        return Error{"strategy.cross_device_ops: " + opsName +
                     " is not implemented on GPUs; logical GPUs of one physical GPU reduce with \"ring\""};
    }
    if (physical.size() != replicas.size())
        return Error{"strategy.devices: " + std::to_string(replicas.size()) + " replicas on " + std::to_string(physical.size()) +
                     " physical GPUs, some sharing one: NCCL refuses two ranks on one GPU and the logical-GPU ring "
                     "stays on one GPU; list one logical GPU per physical GPU, or logical GPUs of one physical GPU"};
    if (ops != CrossDeviceOps::Ring && ops != CrossDeviceOps::Nccl)
        return Error{"strategy.cross_device_ops: " + opsName +
                     " is not implemented on GPUs; distinct physical GPUs reduce with \"nccl\" (or \"ring\", NCCL's ring)"};
    if (!report.ncclBuiltIn)
        return Error{
            "strategy.devices: replicas on distinct physical GPUs reduce with NCCL, which is not built into "
            "this distlab (NCCL " +
            report.ncclVersion + ")"};
    return GpuReduction::Nccl;
}

}  // namespace

std::string gpuTrainingStatus(const DeviceReport& report) {
    if (!report.cudaBuiltIn) return "not available (the CUDA backend module did not load)";
    return kGpuTrainingVerified ? "verified on a GPU" : "built, not yet verified on a GPU";
}

std::string gpuTrainingWarning(const RunConfig& config, bool verified) {
    const auto& devices = config.strategy.devices;
    const bool onGpus =
        std::any_of(devices.begin(), devices.end(), [](const DeviceName& device) { return device.kind == DeviceName::Kind::Gpu; });
    return onGpus && !verified ? "warning: GPU training is built but not yet verified on a GPU" : "";
}

const char* gpuReductionName(GpuReduction reduction) {
    switch (reduction) {
        case GpuReduction::None:
            return "none";
        case GpuReduction::LogicalRing:
            return "logical_ring";
        case GpuReduction::Nccl:
            return "nccl";
    }
    return "none";
}

std::string gpuPathProblem(const RunConfig& config) {
    for (std::size_t i = 0; i < config.model.layers.size(); ++i) {
        const LayerConfig& layer = config.model.layers[i];
        if (layer.type != "dense")
            return "model.layers[" + std::to_string(i) + "].type: \"" + layer.type +
                   "\": the GPU path computes dense layers only in this version";
    }
    if (config.precision != Precision::Float32)
        return std::string("precision: \"") + configName(config.precision) + "\": the GPU path trains in float32 only in this version";
    // The losses (softmax cross-entropy, MSE) and optimizers (SGD with momentum or Nesterov, Adam)
    // are every kind the config can name, and cuda_math has a kernel for each.
    return {};
}

GraphCapture graphCaptureEligibility(const RunConfig& config, GpuReduction reduction) {
    const StrategyConfig& strategy = config.strategy;
    if (strategy.type == StrategyKind::ParameterServer)
        return {false, strategy.mode == ParameterServerMode::Async
                           ? "asynchronous parameter-server steps depend on which worker arrives first"
                           : "parameter-server steps exchange variables with the host between the gradient and the update"};
    if (strategy.type == StrategyKind::CentralStorage) return {false, "central storage updates the variables on the host"};
    // The optimizers read their per-step scalars (learning rate, Adam's bias corrections) from a
    // device buffer written before each launch, so neither a schedule nor Adam freezes in a graph.
    if (reduction == GpuReduction::LogicalRing)
        return {false, "the logical-GPU ring joins several streams with events, and a capture records one stream"};
    if (reduction == GpuReduction::Nccl)
        return {false,
                "replicas on distinct physical GPUs would need a graph per GPU with NCCL's calls in it, which "
                "this version does not capture"};
    // Batch shapes are fixed: the sampler yields only whole global batches, and the shards divide them.
    return {true,
            "a synchronous step of fixed shapes with no host work inside: captured once after a warm-up step, "
            "replayed each step (the learning rate and Adam's corrections are read from device memory)"};
}

GpuStepMode gpuStepMode(bool eligible, std::int64_t eagerStepsDone, bool haveGraph, bool shapesMatch) {
    if (!eligible) return GpuStepMode::Eager;
    if (haveGraph) return shapesMatch ? GpuStepMode::Replay : GpuStepMode::Eager;
    return eagerStepsDone >= 1 ? GpuStepMode::Capture : GpuStepMode::Eager;
}

Result<GpuPlan> planGpuRun(const RunConfig& config, const DeviceReport& report) {
    const StrategyConfig& strategy = config.strategy;
    if (report.gpus.empty()) {
        const std::string first = strategy.devices.empty() ? "gpu:0" : strategy.devices.front().toString();
        return Error{devicePath(0) + ": " + first +
                     ": no usable GPU here: " + (report.gpuUnavailableReason.empty() ? "no GPU found" : report.gpuUnavailableReason)};
    }
    if (const std::string problem = strategyProblem(strategy.type); !problem.empty()) return Error{problem};
    if (const std::string problem = gpuPathProblem(config); !problem.empty()) return Error{problem};

    const auto perPhysical = static_cast<std::uint64_t>(strategy.gpu.logicalPerPhysical);
    const std::uint64_t limitBytes = static_cast<std::uint64_t>(strategy.gpu.memoryLimitMb) * kMiB;
    const std::uint64_t logicalCount = report.gpus.size() * perPhysical;
    GpuPlan plan;
    for (std::size_t i = 0; i < strategy.devices.size(); ++i) {
        const DeviceName& device = strategy.devices[i];
        if (device.kind != DeviceName::Kind::Gpu)
            return Error{devicePath(i) + ": " + device.toString() + ": a GPU run lists only gpu:K devices"};
        const auto logical = static_cast<std::uint64_t>(device.index);
        if (logical >= logicalCount)
            return Error{devicePath(i) + ": " + device.toString() + ": this machine has " + std::to_string(logicalCount) + " logical GPU" +
                         (logicalCount == 1 ? "" : "s") + " (" + std::to_string(report.gpus.size()) + " physical x " +
                         std::to_string(perPhysical) +
                         " per physical, strategy.gpu.logical_per_physical): gpu:0 to gpu:" + std::to_string(logicalCount - 1)};
        const GpuInfo& gpu = report.gpus[logical / perPhysical];
        // TensorFlow carves every logical device of a physical GPU, used or not; so do the limits.
        if (limitBytes > 0 && limitBytes * perPhysical > gpu.memoryBytes)
            return Error{"strategy.gpu.memory_limit_mb: " + std::to_string(perPhysical) + " logical GPUs x " + mib(limitBytes) +
                         " exceed physical GPU " + std::to_string(gpu.index) + " (" + gpu.name + ", " + mib(gpu.memoryBytes) + ")"};
        plan.replicas.push_back({device.index, gpu.index, limitBytes});
    }
    Result<GpuReduction> reduction = chooseReduction(config, plan.replicas, report);
    if (!reduction) return reduction.error();
    plan.reduction = *reduction;
    plan.graph = graphCaptureEligibility(config, plan.reduction);
    return plan;
}

}  // namespace distlab
