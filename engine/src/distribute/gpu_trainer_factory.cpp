#include "distribute/gpu_trainer_factory.hpp"

#include "device/gpu_backend.hpp"
#include "distlab/device/device_info.hpp"

namespace distlab {

Result<GpuPlan> planGpuRunHere(const RunConfig& config) {
    const GpuBackend& backend = gpuBackend();
    if (backend.api == nullptr) {
        const std::string first = config.strategy.devices.empty() ? "gpu:0" : config.strategy.devices.front().toString();
        return Error{"strategy.devices[0]: " + first + ": " + backend.whyNot};
    }
    return planGpuRun(config, queryDevices());
}

std::unique_ptr<Trainer> makeGpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan) {
    const GpuBackend& backend = gpuBackend();
    if (backend.api == nullptr) throw TrainingError("strategy.devices: " + backend.whyNot);
    return backend.api->makeTrainer(config, std::move(data), std::move(plan));
}

}  // namespace distlab
