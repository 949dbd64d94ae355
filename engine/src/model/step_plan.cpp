#include "distlab/model/step_plan.hpp"

#include <algorithm>

namespace distlab {

StepPlan planStep(std::span<const FusionCapabilities> capabilities, const StepUpdate& update) {
    StepPlan plan;
    plan.layers.resize(capabilities.size());
    for (std::size_t i = 1; i < capabilities.size(); ++i) {
        const bool folds = capabilities[i - 1].endsInRelu && capabilities[i].foldsReluBelow;
        plan.layers[i].maskInputGradient = folds;
        plan.layers[i - 1].gradOutputIsPreActivation = folds;
    }
    plan.fusesSgd = update.plainSgd && update.gradientStraightToUpdate && !capabilities.empty() &&
                    std::ranges::all_of(capabilities, &FusionCapabilities::appliesSgdStep);
    return plan;
}

}  // namespace distlab
