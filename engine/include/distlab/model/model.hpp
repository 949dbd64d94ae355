#pragma once
// A sequential model: its layers and one ParameterStore (values and gradients). Each replica owns
// one Model, so a replica's copy of every variable is real memory that can be shown and compared.
// A model holds no activations: each micro-batch in flight has its own ModelContext, which the
// caller owns and passes to forward and backward.
#include <cstdint>
#include <memory>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/model/layer.hpp"
#include "distlab/core/error.hpp"
#include "distlab/model/parameter_store.hpp"
#include "distlab/model/residual_layer.hpp"
#include "distlab/model/step_plan.hpp"

namespace distlab {

/// One micro-batch in flight through a model: every layer's activations. Buffers grow to the
/// largest batch seen and are reused.
struct ModelContext {
    std::vector<std::unique_ptr<LayerContext>> layers;
    /// The last forward's output.
    const Tensor& output() const { return layers.back()->output; }
};

/// Told by backward as it finishes each layer, e.g. to start reducing gradients while backward
/// goes on. On backward's thread.
class BackwardListener {
public:
    /// Layer `layer`'s gradients ([gradientBegin(layer), gradientBegin(layer + 1)) of the store)
    /// are written; layers after it were finished before.
    virtual void layerFinished(std::size_t layer) = 0;

protected:
    ~BackwardListener() = default;
};

class Model {
public:
    /// Builds the layers of a validated config for inputs of `inputFeatures` values, and plans a
    /// step for an update that fuses nothing (planStep({})).
    Model(const ModelConfig& config, std::int64_t inputFeatures);
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    /// Initialises every parameter from the seed (each layer from its own derived stream).
    void initialize(InitKind init, std::uint64_t seed);
    /// A context for one micro-batch in flight.
    ModelContext makeContext() const;
    /// Forward pass of `input` [batch, inputFeatures]; returns the last layer's output
    /// [batch, outputFeatures] (in `context`). Reads the parameters only. Allocation-free once
    /// the context has grown.
    const Tensor& forward(ConstTensorView input, ModelContext& context) const;
    /// Plans backward's fusions for what follows it in a step (step_plan.hpp), once the strategy
    /// and the optimizer are known: from then on backward runs each layer's fused kernels where
    /// the plan allows.
    void planStep(const StepUpdate& update);
    const StepPlan& stepPlan() const { return m_plan; }
    /// Backward pass from d(loss)/d(output) of the micro-batch whose forward filled `context`;
    /// accumulates into store().grads(), with the plan's fusions (the same gradients as each
    /// layer's Layer::backward alone). The input's own gradient is never computed (nothing
    /// consumes it). With `fusedSgd` (only where stepPlan().fusesSgd; std::logic_error otherwise)
    /// it applies that SGD step to every parameter instead, layer by layer as each gradient is
    /// finished, and leaves store().grads() unwritten but for the biases'.
    /// With `listener`, tells it as each layer is finished (last layer first).
    void backward(ConstTensorView input, const Tensor& gradOutput, ModelContext& context, FusedSgdStep* fusedSgd = nullptr,
                  BackwardListener* listener = nullptr);
    /// Layer `layer`'s part of backward as backward runs it (the plan's fusions; no SGD step;
    /// gradients written or added as its context's overwriteGradients says), to time one layer
    /// alone. `input` is what its forward received.
    const Tensor& backwardLayer(std::size_t layer, ConstTensorView input, const Tensor& gradOutput, ModelContext& context);
    /// Layer `layer`'s backward in two (zero-bubble schedules; Layer::splitsBackward): its input
    /// gradient (none for the first layer, whose input needs none), then its parameter gradients
    /// (written or added as its context's overwriteGradients says). No fusions.
    const Tensor& backwardInputLayer(std::size_t layer, ConstTensorView input, const Tensor& gradOutput, ModelContext& context) {
        return m_layers[layer]->backwardInput(input, gradOutput, layer > 0, *context.layers[layer]);
    }
    void backwardWeightLayer(std::size_t layer, ConstTensorView input, ModelContext& context) {
        m_layers[layer]->backwardWeight(input, *context.layers[layer]);
    }
    /// Makes the gradients zero for the next backward, which then writes them rather than adding
    /// to them: no pass over the buffer. Until that backward, store().grads() keeps old values.
    void zeroGradients() { m_gradientsZeroed = true; }

    ParameterStore& store() { return m_store; }
    const ParameterStore& store() const { return m_store; }
    const std::vector<std::unique_ptr<Layer>>& layers() const { return m_layers; }
    /// Layer `layer`'s first element in the store's flat buffers: layers lay their parameters out
    /// in order, so layer i's are [gradientBegin(i), gradientBegin(i + 1)), the last's up to the end.
    std::int64_t gradientBegin(std::size_t layer) const { return m_gradientBegins[layer]; }
    std::int64_t inputFeatures() const { return m_inputFeatures; }
    std::int64_t outputFeatures() const { return m_layerWidths.back(); }
    /// Each layer's output width, in order.
    const std::vector<std::int64_t>& layerWidths() const { return m_layerWidths; }
    /// Peak gradient-term bytes and add ops of the residual blocks in the last backward pass
    /// through `context`.
    static GradientAggregationStats aggregationStats(const ModelContext& context);
    /// What one copy of a model needs, known before anything is allocated.
    struct Footprint {
        std::int64_t parameters = 0;       ///< values in the parameter store (weights and biases)
        std::int64_t activationWidth = 0;  ///< sum of the layers' output widths (activations per sample)
    };
    /// Whether a config builds for this input width (a residual block's branches must end with
    /// its input width, at most kMaxParameters parameters); the error names the problem. Builds the
    /// layers but allocates no parameter or activation buffer.
    static Result<Footprint> check(const ModelConfig& config, std::int64_t inputFeatures);
    /// The most parameters one model copy may have: 2^28 (1 GiB of float32 values, as much again
    /// for gradients and up to twice that for optimizer slots).
    static constexpr std::int64_t kMaxParameters = std::int64_t{1} << 28;
    /// Weight-matrix entries (biases excluded), as the benchmark FLOP convention counts them.
    std::int64_t weightCount() const;

private:
    /// Layer i's backward as the plan runs it, with the step's `fusedSgd` (or none).
    const Tensor& layerBackward(std::size_t i, ConstTensorView input, const Tensor& gradOutput, ModelContext& context,
                                FusedSgdStep* fusedSgd);

    std::int64_t m_inputFeatures;
    ParameterStore m_store;  // before m_layers: the layers declare their parameters in it
    // Each layer's first element in the store, filled as m_layers is built.
    std::vector<std::int64_t> m_gradientBegins;
    std::vector<std::unique_ptr<Layer>> m_layers;
    std::vector<FusingLayer*> m_fusing;  // each layer as a FusingLayer, null where it has no fused kernels
    StepPlan m_plan;
    std::vector<std::int64_t> m_layerWidths;
    bool m_gradientsZeroed = false;  // the next backward writes the gradients (zeroGradients)
};

}  // namespace distlab
