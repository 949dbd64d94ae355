#pragma once
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/model_snapshot.hpp"

namespace distlab {

/// Fills snapshot.grid with the model's output over a square grid spanning the 2-D training
/// data (with a margin): P(class 1) for two classes, the arg-max class / (classes - 1) for more,
/// the first output for regression. Runs on the session thread.
void computeBoundaryGrid(Trainer& trainer, int resolution, ModelSnapshot& snapshot);

}  // namespace distlab
