#pragma once
// The CUDA backend module's second table (the first, its identity and GPU probe, is
// device/gpu_backend_api.hpp): the GpuTrainer factory, returned by the module's exported function
// distlab_gpu_trainer_api. Looked up in the module gpuBackend() loaded and checked.
#include <memory>

#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

struct GpuTrainerApi {
    /// A GpuTrainer on the plan. Throws TrainingError naming the device as its constructor does.
    std::unique_ptr<Trainer> (*makeTrainer)(const RunConfig& config, DataSplit data, GpuPlan plan) = nullptr;
};

/// The module's exported function: extern "C" const GpuTrainerApi* distlab_gpu_trainer_api();
inline constexpr const char* kGpuTrainerEntry = "distlab_gpu_trainer_api";

}  // namespace distlab
