#include "distribute/copy_state.hpp"

#include <algorithm>

namespace distlab {

void copyTrainingState(const Model& fromModel, Optimizer& fromOptimizer, Model& toModel, Optimizer& toOptimizer) {
    std::ranges::copy(fromModel.store().values(), toModel.store().values().begin());
    for (std::size_t s = 0; s < fromOptimizer.slotNames().size(); ++s)
        std::ranges::copy(fromOptimizer.slot(s), toOptimizer.slot(s).begin());
    toOptimizer.setIterations(fromOptimizer.iterations());
}

}  // namespace distlab
