#pragma once
// Weights and checkpoints as safetensors files (docs/interfaces.md §6). A checkpoint adds the
// optimizer slots ("optimizer/<parameter>/<slot>"), the step, the data position (the sampler's
// epoch and cursor: with the seed, that is the whole RNG state) and the run config in
// "__metadata__". Every write is atomic; a failed load changes nothing.
#include <string>

#include "distlab/core/error.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/formats/safetensors.hpp"

namespace distlab {

/// Writes a model's parameters (F32, named as docs/interfaces.md §2 says). Blocks (disk I/O).
Status saveWeights(const Model& model, const std::string& path);
/// Loads a weights file into every replica of the trainer. The file must hold exactly the
/// model's parameters; errors name the file and the first mismatch, and `field` (e.g.
/// "--init-weights") when it cannot be read at all. Not while a step runs.
Status loadWeights(Trainer& trainer, const std::string& path, const std::string& field = "weights");
/// Writes a checkpoint of the trainer's state. Not while a step runs.
Status saveCheckpoint(Trainer& trainer, const std::string& path);
/// What saveCheckpoint writes, in memory: for a file that is a checkpoint and more (a saved run,
/// distlab/formats/saved_run.hpp). Not while a step runs.
SafeTensorsFile checkpointContents(Trainer& trainer);
/// Tensors under this prefix are a saved run's curves: loading weights and resuming ignore them.
inline constexpr std::string_view kSavedRunTensorPrefix = "history/";
/// Restores a checkpoint into a trainer built from the same config, so that the next step is
/// the one an uninterrupted run would take; `field` as for loadWeights. Not while a step runs.
Status resumeCheckpoint(Trainer& trainer, const std::string& path, const std::string& field = "checkpoint");
/// The run config stored in a checkpoint's metadata (JSON text), for `train --resume` without a config.
Result<std::string> checkpointConfigJson(const std::string& path, const std::string& field = "checkpoint");

}  // namespace distlab
