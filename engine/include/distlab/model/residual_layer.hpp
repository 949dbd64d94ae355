#pragma once
// A residual block y = x + f_1(x) + ... + f_k(x): x feeds the skip connection and every branch, so
// its gradient has k + 1 terms, summed by the model's aggregation method (tf.AggregationMethod):
// add_n holds every term and sums them in one op; tree adds each branch's term as soon as that
// branch's backward pass produces it. The sums are taken in the same order, so they are identical.
#include <memory>
#include <vector>

#include "distlab/model/layer.hpp"

namespace distlab {

/// What a backward pass of the aggregating layers held and did.
struct GradientAggregationStats {
    std::int64_t peakBytes = 0;  ///< gradient-term bytes alive at once while summing
    std::int64_t addOps = 0;     ///< add operations issued (add_n: one per tensor; tree: one per extra term)
};

class ResidualLayer final : public Layer {
public:
    /// Builds the branches of `config` (a residual LayerConfig) for inputs of `width` values.
    /// Throws std::invalid_argument when a branch does not end with `width` units.
    ResidualLayer(std::string name, std::int64_t width, const LayerConfig& config, AggregationMethod method);

    const std::string& name() const override { return m_name; }
    Shape outputShape(const Shape& input) const override;
    void declareParameters(ParameterStore& store) override;
    void bindParameters(ParameterStore& store) override;
    void initialize(InitKind init, Rng& rng) override;
    std::unique_ptr<LayerContext> makeContext() const override;
    const Tensor& forward(ConstTensorView input, LayerContext& context) const override;
    const Tensor& backward(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context) override;
    std::int64_t weightCount() const override;
    /// What the last backward pass through `context` held and did.
    static GradientAggregationStats aggregationStats(const LayerContext& context);

private:
    struct Context;
    using Branch = std::vector<std::unique_ptr<Layer>>;
    const Tensor& branchBackward(std::size_t branch, ConstTensorView input, const Tensor& gradOutput, Context& context);

    std::string m_name;
    std::int64_t m_width;
    AggregationMethod m_method;
    std::vector<Branch> m_branches;
};

}  // namespace distlab
