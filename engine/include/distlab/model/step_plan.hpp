#pragma once
// The fusions of a model's backward pass, decided once from its layers' capabilities
// (fused_step.hpp) and from what follows backward in a step (the strategy and the optimizer),
// rather than asked of each layer every step. Model::planStep makes it; Model::backward follows it.
#include <span>
#include <vector>

#include "distlab/model/fused_step.hpp"

namespace distlab {

/// What the step does with the gradient after backward, as the strategy and the optimizer decide.
struct StepUpdate {
    /// The update is SGD's plain step, value -= rate * gradient, and nothing else: no slot
    /// (Optimizer::isPlainStep: SGD without momentum).
    bool plainSgd = false;
    /// The update takes the gradient of one backward pass as it is: one replica (no reduction) and
    /// one micro-batch (no accumulation).
    bool gradientStraightToUpdate = false;
};

/// What a model's backward pass fuses.
struct StepPlan {
    /// One per layer of the model, in order.
    std::vector<LayerFusions> layers;
    /// Backward applies the update itself (Model::backward with a FusedSgdStep), layer by layer.
    bool fusesSgd = false;
};

/// The plan for layers with `capabilities` (a layer without fused kernels declares none) under
/// `update`. SGD's step is fused where the update is the plain step taken straight from one
/// gradient and every layer can apply it (otherwise the optimizer's pass would have to skip some
/// parameters); a ReLU's derivative is folded where a layer ending in one feeds a layer that can
/// apply it.
StepPlan planStep(std::span<const FusionCapabilities> capabilities, const StepUpdate& update);

}  // namespace distlab
