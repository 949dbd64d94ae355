#pragma once
// Data-parallel copies of a split model (tensor_parallel, pipeline with data_parallel > 1) keep a
// model and an optimizer each, as mirrored replicas do; they start from copy 0's state.
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"

namespace distlab {

/// Makes `toModel` and `toOptimizer` equal to `fromModel` and `fromOptimizer`: the variables, every
/// slot and the update count (Adam's t). The two must be built from one config.
void copyTrainingState(const Model& fromModel, Optimizer& fromOptimizer, Model& toModel, Optimizer& toOptimizer);

}  // namespace distlab
