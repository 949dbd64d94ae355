#pragma once
// A layer of a model. It owns its parameters (its slices of the model's flat value and gradient
// buffers, bound once the store is allocated) and nothing of a batch: the activations forward
// keeps for backward live in a LayerContext the caller passes in, one per micro-batch in flight,
// so several micro-batches (accumulation, pipeline schedules) can be between forward and backward
// at once.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "distlab/core/rng.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/model/parameter_store.hpp"
#include "distlab/tensor/tensor.hpp"

namespace distlab {

/// One micro-batch's activations in one layer. Buffers grow to the largest batch seen and are
/// reused, so a warmed-up context never allocates.
struct LayerContext {
    virtual ~LayerContext() = default;
    Tensor output;     ///< forward's result
    Tensor gradInput;  ///< backward's d(loss)/d(input), when asked for
    /// Set by the model before backward: true when the gradients are due to be zero, so backward
    /// writes them instead of adding to them (saving a pass over every gradient per step).
    bool overwriteGradients = false;
};

/// A parameter as its layer holds it: its slices of the model's value and gradient buffers.
struct ParameterSlot {
    int index = -1;  ///< in the store (its name and shape)
    std::span<float> value;
    std::span<float> grad;
};

class Layer {
public:
    virtual ~Layer() = default;

    virtual const std::string& name() const = 0;
    /// The shape of the output for an input of `input` ([batch, ..., features]).
    virtual Shape outputShape(const Shape& input) const = 0;
    /// Declares this layer's parameters (named "<layer name>/<param>").
    virtual void declareParameters(ParameterStore& store) = 0;
    /// Takes this layer's slices of `store` once it is allocated; the layer reads and writes
    /// nothing else of it.
    virtual void bindParameters(ParameterStore& store) = 0;
    /// Fills this layer's parameters from the initialiser and a generator dedicated to it.
    virtual void initialize(InitKind init, Rng& rng) = 0;
    /// A context for one micro-batch in flight (empty buffers; they grow on first use).
    virtual std::unique_ptr<LayerContext> makeContext() const = 0;
    /// Computes context.output for `input` [batch, features] and keeps in `context` what
    /// backward needs. Reads the parameters only. Allocation-free once the context has grown.
    virtual const Tensor& forward(ConstTensorView input, LayerContext& context) const = 0;
    /// Accumulates this layer's parameter gradients for the micro-batch whose forward filled
    /// `context` (writes them when context.overwriteGradients) and returns d(loss)/d(input)
    /// (context.gradInput; only computed when needInputGrad). `input` is what that forward
    /// received. What a training step may fuse into it is not asked here: a layer with fused
    /// kernels is a FusingLayer (model/fused_step.hpp), which the model's step plan runs.
    virtual const Tensor& backward(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context) = 0;
    /// The first half of backward (zero-bubble pipeline schedules): d(loss)/d(input) alone
    /// (context.gradInput; only computed when needInputGrad), keeping in `context` what
    /// backwardWeight needs (`gradOutput` must stay unchanged until then). Only for the layer
    /// types whose LayerType::splitsBackward (config/layer_types.hpp; the config's rules refuse
    /// zero-bubble schedules for the others); std::logic_error otherwise.
    virtual const Tensor& backwardInput(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context);
    /// The second half: accumulates the parameter gradients (writes them when
    /// context.overwriteGradients) of the micro-batch whose backwardInput ran on `context`. With
    /// backwardInput it computes what backward does.
    virtual void backwardWeight(ConstTensorView input, LayerContext& context);
    /// Multiply-accumulates per sample in the forward pass (for FLOP counts).
    virtual std::int64_t weightCount() const = 0;

    /// The width of the output for inputs of `inputs` features.
    std::int64_t outputFeatures(std::int64_t inputs) const { return outputShape({1, inputs}).back(); }
};

/// Rows of a [batch, ..., features] input seen as a matrix [rows, features].
inline std::int64_t matrixRows(ConstTensorView input, std::int64_t features) { return features > 0 ? input.size() / features : 0; }

}  // namespace distlab
