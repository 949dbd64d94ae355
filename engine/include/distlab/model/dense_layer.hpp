#pragma once
// Dense layer y = act(x W + b): kernel [inputs, units], bias [units].
#include "distlab/model/layer.hpp"

namespace distlab {

class DenseLayer final : public Layer {
public:
    DenseLayer(std::string name, std::int64_t inputs, std::int64_t units, Activation activation);

    const std::string& name() const override { return m_name; }
    Shape outputShape(const Shape& input) const override;
    void declareParameters(ParameterStore& store) override;
    void bindParameters(ParameterStore& store) override;
    void initialize(InitKind init, Rng& rng) override;
    std::unique_ptr<LayerContext> makeContext() const override;
    const Tensor& forward(ConstTensorView input, LayerContext& context) const override;
    const Tensor& backward(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad,
                           LayerContext& context) override;
    bool supportsFusedSgd() const override { return true; }
    bool endsInRelu() const override { return m_activation == Activation::Relu; }
    bool masksInputGradient() const override { return true; }
    std::int64_t weightCount() const override { return m_inputs * m_units; }

private:
    struct Context;
    /// backward's tail when the step's update is fused into it (context.fusedSgd).
    void applyFusedSgd(ConstTensorView input, const float* dz, bool needInputGrad, Context& context) const;
    std::string m_name;
    std::int64_t m_inputs;
    std::int64_t m_units;
    Activation m_activation;
    ParameterSlot m_kernel;
    ParameterSlot m_bias;
};

}  // namespace distlab
