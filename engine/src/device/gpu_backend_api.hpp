#pragma once
// What the CUDA backend module (libdistlab-cuda.so, built from engine/cuda/) gives the engine's
// device module: its identity and the GPU probe, in a table returned by the module's exported
// function distlab_gpu_backend. The engine loads the module with dlopen only when something asks
// for a GPU (gpu_backend.hpp), so a program that never does maps no CUDA library, and one package
// runs on machines without the CUDA runtime. Both sides are compiled from these headers by one
// build and pass C++ objects across: the table names its version and ABI, and the engine refuses a
// module of another build. The module's trainer factory is a second table, a module higher up
// (distribute/gpu_trainer_api.hpp).
#include "distlab/device/device_info.hpp"

namespace distlab {

/// Raised when a table or a type it passes changes shape.
inline constexpr int kGpuBackendAbi = 1;

struct GpuBackendApi {
    int abi = kGpuBackendAbi;
    const char* version = "";  ///< the project version the module was built as (DISTLAB_VERSION)
    /// Fills the report's GPU fields (gpus, CUDA and NCCL versions and whether they are in,
    /// gpuUnavailableReason) from the CUDA runtime. Never throws; blocks while it initialises.
    void (*probeGpus)(DeviceReport& report) = nullptr;
};

/// The module's exported function: extern "C" const GpuBackendApi* distlab_gpu_backend();
inline constexpr const char* kGpuBackendEntry = "distlab_gpu_backend";
/// The module's file name, as the build and the package install it.
inline constexpr const char* kGpuBackendFile = "libdistlab-cuda.so";

}  // namespace distlab
