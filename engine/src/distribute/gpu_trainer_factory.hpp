#pragma once
// Trainer::create's way to GPU runs, compiled in every build: where the CUDA backend module loads
// (gpu_backend.hpp) it plans the run on this machine's GPUs and has the module build a GpuTrainer;
// elsewhere it refuses gpu:K devices saying why the module did not load.
#include <memory>

#include "distlab/core/error.hpp"
#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

/// Plans a config whose devices are gpu:K on this machine (queryDevices: blocks up to about a
/// second). Errors name the key and the cause, as planGpuRun's, or say why the CUDA backend did not load.
Result<GpuPlan> planGpuRunHere(const RunConfig& config);

/// The GPU trainer for a planned config. Throws TrainingError naming the device when a logical GPU
/// cannot be opened or its memory runs out (and, where the CUDA backend did not load, always).
std::unique_ptr<Trainer> makeGpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan);

}  // namespace distlab
