#include "distlab/session/take_model_snapshot.hpp"

#include "session/boundary_grid.hpp"

namespace distlab {

std::shared_ptr<ModelSnapshot> takeModelSnapshot(Trainer& trainer, int boundaryResolution) {
    auto snapshot = std::make_shared<ModelSnapshot>();
    Model& model = trainer.primaryModel();
    snapshot->step = trainer.stepsDone();
    snapshot->parameters = model.store().infos();
    snapshot->values.assign(model.store().values().begin(), model.store().values().end());
    snapshot->layerWidths.push_back(model.inputFeatures());
    snapshot->layerWidths.insert(snapshot->layerWidths.end(), model.layerWidths().begin(), model.layerWidths().end());
    if (trainer.data().train.features == 2 && boundaryResolution > 0) computeBoundaryGrid(trainer, boundaryResolution, *snapshot);
    return snapshot;
}

}  // namespace distlab
