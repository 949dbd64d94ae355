#pragma once
// Dense layer y = act(x W + b): kernel [inputs, units], bias [units].
#include "distlab/model/fused_step.hpp"

namespace distlab {

/// Its fused kernels: SGD's step inside the weight-gradient product, a ReLU output's derivative
/// left to the layer after, and the derivative of a ReLU before it applied as the input-gradient
/// product writes its tiles.
class DenseLayer final : public FusingLayer {
public:
    DenseLayer(std::string name, std::int64_t inputs, std::int64_t units, Activation activation);

    const std::string& name() const override { return m_name; }
    Shape outputShape(const Shape& input) const override;
    void declareParameters(ParameterStore& store) override;
    void bindParameters(ParameterStore& store) override;
    void initialize(InitKind init, Rng& rng) override;
    std::unique_ptr<LayerContext> makeContext() const override;
    const Tensor& forward(ConstTensorView input, LayerContext& context) const override;
    const Tensor& backward(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context) override;
    FusionCapabilities fusionCapabilities() const override {
        return {.appliesSgdStep = true, .endsInRelu = m_activation == Activation::Relu, .foldsReluBelow = true};
    }
    const Tensor& backwardFused(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context,
                                const LayerFusions& fusions, FusedSgdStep* sgd) override;
    std::int64_t weightCount() const override { return m_inputs * m_units; }
    const Tensor& backwardInput(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context) override;
    void backwardWeight(ConstTensorView input, LayerContext& context) override;

private:
    struct Context;
    /// backwardFused's tail when the step's update is fused into it (`sgd`); `maskInputGradient`
    /// as LayerFusions has it.
    /// d(loss)/d(z) for `gradOutput`: gradOutput itself where the activation is linear (or the
    /// layer after applied its derivative), else computed into context.gradPre.
    const float* preActivationGradient(const Tensor& gradOutput, std::int64_t batch, bool gradOutputIsPreActivation,
                                       Context& context) const;
    void applyFusedSgd(ConstTensorView input, const float* dz, bool needInputGrad, bool maskInputGradient, FusedSgdStep& sgd,
                       Context& context) const;
    std::string m_name;
    std::int64_t m_inputs;
    std::int64_t m_units;
    Activation m_activation;
    ParameterSlot m_kernel;
    ParameterSlot m_bias;
};

}  // namespace distlab
