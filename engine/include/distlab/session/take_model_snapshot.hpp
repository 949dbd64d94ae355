#pragma once
// The picture of a trainer's model the views draw (the network diagram, the decision boundary):
// made by the session for a run of the app's own, and by a cluster's coordinator task for the app
// that watches it (distlab-worker --telemetry).
#include <memory>

#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/model_snapshot.hpp"

namespace distlab {

/// Replica 0's parameters at the trainer's current step and, for 2-D data when
/// `boundaryResolution` > 0, the model's output over a grid of that many cells a side. Runs on the
/// thread that drives the trainer.
std::shared_ptr<ModelSnapshot> takeModelSnapshot(Trainer& trainer, int boundaryResolution);

}  // namespace distlab
