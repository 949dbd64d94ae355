#pragma once
// What the CUDA backend module (libdistlab-cuda.so, built from engine/cuda/) gives the engine: one
// exported function returning a table of entry points. The engine loads the module with dlopen only
// when something asks for a GPU (gpu_backend.hpp), so a program that never does maps no CUDA
// library, and one package runs on machines without the CUDA runtime. Both sides are compiled from
// these headers by one build and pass C++ objects across: the table names its version and ABI, and
// the engine refuses a module of another build.
#include <memory>

#include "distlab/device/device_info.hpp"
#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

/// Raised when the table or a type it passes changes shape.
inline constexpr int kGpuBackendAbi = 1;

struct GpuBackendApi {
    int abi = kGpuBackendAbi;
    const char* version = "";  ///< the project version the module was built as (DISTLAB_VERSION)
    /// Fills the report's GPU fields (gpus, CUDA and NCCL versions and whether they are in,
    /// gpuUnavailableReason) from the CUDA runtime. Never throws; blocks while it initialises.
    void (*probeGpus)(DeviceReport& report) = nullptr;
    /// A GpuTrainer on the plan. Throws TrainingError naming the device as its constructor does.
    std::unique_ptr<Trainer> (*makeTrainer)(const RunConfig& config, DataSplit data, GpuPlan plan) = nullptr;
};

/// The module's one exported symbol: extern "C" const GpuBackendApi* distlab_gpu_backend();
inline constexpr const char* kGpuBackendEntry = "distlab_gpu_backend";
/// The module's file name, as the build and the package install it.
inline constexpr const char* kGpuBackendFile = "libdistlab-cuda.so";

}  // namespace distlab
