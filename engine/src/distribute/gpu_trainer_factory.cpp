#include "distribute/gpu_trainer_factory.hpp"

#include <dlfcn.h>

#include "device/gpu_backend.hpp"
#include "distlab/device/device_info.hpp"
#include "distribute/gpu_trainer_api.hpp"

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
    using Entry = const GpuTrainerApi* (*)();
    const auto entry = reinterpret_cast<Entry>(::dlsym(backend.library, kGpuTrainerEntry));
    const GpuTrainerApi* api = entry != nullptr ? entry() : nullptr;
    if (api == nullptr || api->makeTrainer == nullptr)
        throw TrainingError("strategy.devices: the CUDA backend module " + backend.module + " has no " + kGpuTrainerEntry);
    return api->makeTrainer(config, std::move(data), std::move(plan));
}

}  // namespace distlab
