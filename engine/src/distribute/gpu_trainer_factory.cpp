#include "distribute/gpu_trainer_factory.hpp"

#include "distlab/device/device_info.hpp"

#if DISTLAB_HAVE_CUDA
#include "distribute/gpu_trainer.hpp"
#endif

namespace distlab {
namespace {
constexpr const char* kNoCuda = "this distlab was built without CUDA (no toolkit was found when it was configured); "
                                "use cpu:K devices";
}  // namespace

Result<GpuPlan> planGpuRunHere(const RunConfig& config) {
#if DISTLAB_HAVE_CUDA
    return planGpuRun(config, queryDevices());
#else
    const std::string first = config.strategy.devices.empty() ? "gpu:0" : config.strategy.devices.front().toString();
    return Error{"strategy.devices[0]: " + first + ": " + kNoCuda};
#endif
}

std::unique_ptr<Trainer> makeGpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan) {
#if DISTLAB_HAVE_CUDA
    return std::make_unique<GpuTrainer>(config, std::move(data), std::move(plan));
#else
    (void)config, (void)data, (void)plan;
    throw TrainingError(std::string("strategy.devices: ") + kNoCuda);
#endif
}

}  // namespace distlab
