// The CUDA backend module's entries (device/gpu_backend_api.hpp, distribute/gpu_trainer_api.hpp):
// the GPU probe over the C bridge of device_query.h and the GpuTrainer, handed to the engine that
// loaded this module.
#include <string>
#include <utility>

#include "device/gpu_backend_api.hpp"
#include "device_query.h"
#include "distribute/gpu_trainer.hpp"
#include "distribute/gpu_trainer_api.hpp"

#ifndef DISTLAB_VERSION
#define DISTLAB_VERSION "unknown"
#endif

namespace distlab {
namespace {

void probeGpus(DeviceReport& report) {
    DistlabCudaStatus status;
    distlabCudaQueryStatus(&status);
    report.cudaBuiltIn = true;
    report.cudaRuntimeVersion = formatCudaVersion(status.runtimeVersion);
    report.cudaDriverVersion = status.driverVersion > 0 ? formatCudaVersion(status.driverVersion) : "none";
    report.ncclBuiltIn = status.ncclBuiltIn != 0;
    report.ncclVersion = !report.ncclBuiltIn ? "not built in" : status.ncclVersion > 0 ? formatNcclVersion(status.ncclVersion) : "unknown";
    if (status.errorCode != 0) {
        report.gpuUnavailableReason = describeCudaError(status.errorCode, status.errorName, status.errorString, status.driverVersion);
        return;
    }
    std::string lastError;
    for (int index = 0; index < status.deviceCount; ++index) {
        DistlabGpuProperties properties;
        if (distlabCudaQueryGpu(index, &properties) != 0) {
            lastError = "GPU " + std::to_string(index) + ": " + properties.errorString;
            continue;
        }
        GpuInfo gpu;
        gpu.index = index;
        gpu.name = properties.name;
        gpu.memoryBytes = properties.totalMemoryBytes;
        gpu.computeMajor = properties.computeMajor;
        gpu.computeMinor = properties.computeMinor;
        gpu.multiprocessors = properties.multiprocessors;
        report.gpus.push_back(std::move(gpu));
    }
    if (report.gpus.empty()) report.gpuUnavailableReason = lastError.empty() ? "no CUDA device" : lastError;
}

std::unique_ptr<Trainer> makeTrainer(const RunConfig& config, DataSplit data, GpuPlan plan) {
    return std::make_unique<GpuTrainer>(config, std::move(data), std::move(plan));
}

const GpuBackendApi kBackend{kGpuBackendAbi, DISTLAB_VERSION, &probeGpus};
const GpuTrainerApi kTrainer{&makeTrainer};

}  // namespace
}  // namespace distlab

// The module's two exported symbols (gpu_backend_api.hpp, gpu_trainer_api.hpp); all else is hidden.
extern "C" __attribute__((visibility("default"))) const distlab::GpuBackendApi* distlab_gpu_backend() { return &distlab::kBackend; }

extern "C" __attribute__((visibility("default"))) const distlab::GpuTrainerApi* distlab_gpu_trainer_api() { return &distlab::kTrainer; }
