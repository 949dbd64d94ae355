#pragma once
// What a layer can fuse into a training step's backward pass beyond what Layer computes, and the
// interface it runs those fused kernels through. A layer opts in by implementing FusingLayer and
// declaring its FusionCapabilities; the model reads them once, when it plans its step
// (step_plan.hpp), and tells each layer's backwardFused which fusions the plan gives it. Layers
// that do not implement it (a residual block, and any new layer until it has fused kernels) only
// compute, through Layer::backward, and the plan fuses nothing across them. The fusions are why
// the one-device benchmarks beat PyTorch: SGD's step applied inside backward, and a ReLU's
// derivative applied by the next layer's input-gradient product instead of a pass of its own.
#include "distlab/model/layer.hpp"

namespace distlab {

/// A plain SGD step (value -= rate * gradient: Keras' SGD without momentum) that backward applies
/// to each parameter as soon as its gradient is finished, instead of leaving the gradient for the
/// optimizer's pass: a lone replica's step then reads and writes its weights once (W3's optimizer
/// pass moved 50 MB a step). Backward adds Σ gradient² of what it updated to squareSum, the
/// step's gradient norm.
struct FusedSgdStep {
    float rate = 0.0f;
    double squareSum = 0.0;
};

/// What a layer's backwardFused can do; a layer declares it once and it does not change.
struct FusionCapabilities {
    /// Can apply a FusedSgdStep to its parameters as their gradients are finished.
    bool appliesSgdStep = false;
    /// Its output is a ReLU's (y = max(z, 0)), so the layer after may apply the ReLU's derivative
    /// for it; it can then take gradOutput as d(loss)/d(z) (LayerFusions::gradOutputIsPreActivation).
    bool endsInRelu = false;
    /// Can apply the derivative of a ReLU that produced its input (input > 0) as it writes the
    /// input gradient (LayerFusions::maskInputGradient).
    bool foldsReluBelow = false;
};

/// The fusions a step plan gives one layer's backward pass (StepPlan::layers).
struct LayerFusions {
    /// The layer before ends in a ReLU: return d(loss)/d(input) already times that ReLU's
    /// derivative, which makes it the gradient of the layer before's pre-activation.
    bool maskInputGradient = false;
    /// The layer after applied this layer's ReLU derivative (maskInputGradient there): gradOutput
    /// is d(loss)/d(z) already.
    bool gradOutputIsPreActivation = false;

    friend bool operator==(const LayerFusions&, const LayerFusions&) = default;
};

/// A layer with fused kernels for a training step's backward pass.
class FusingLayer : public Layer {
public:
    /// What backwardFused can do (constant for the layer's life).
    virtual FusionCapabilities fusionCapabilities() const = 0;
    /// Layer::backward with `fusions` applied (only those fusionCapabilities allows). With `sgd`
    /// (only where appliesSgdStep) it applies that step to the layer's parameters instead of
    /// leaving their gradients, adds their Σ g² to sgd->squareSum and leaves the gradients
    /// unwritten but for the bias's. backward(...) is backwardFused(..., {}, nullptr).
    virtual const Tensor& backwardFused(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context,
                                        const LayerFusions& fusions, FusedSgdStep* sgd) = 0;
};

}  // namespace distlab
