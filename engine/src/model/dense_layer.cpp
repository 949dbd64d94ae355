#include "distlab/model/dense_layer.hpp"

#include <cmath>
#include <stdexcept>

#include "model/dense_kernels.hpp"

namespace distlab {

/// What backward needs of one micro-batch beyond its output.
struct DenseLayer::Context final : LayerContext {
    Tensor preActivation;  ///< z = x W + b (the activation's derivative needs it)
    Tensor gradPre;        ///< dz
};

DenseLayer::DenseLayer(std::string name, std::int64_t inputs, std::int64_t units, Activation activation)
    : m_name(std::move(name)), m_inputs(inputs), m_units(units), m_activation(activation) {}

Shape DenseLayer::outputShape(const Shape& input) const {
    if (input.empty() || input.back() != m_inputs)
        throw std::invalid_argument(m_name + ": expects inputs of " + std::to_string(m_inputs) + " features, got " +
                                    shapeToString(input));
    Shape output = input;
    output.back() = m_units;
    return output;
}

void DenseLayer::declareParameters(ParameterStore& store) {
    m_kernel.index = store.add(m_name + "/kernel", {m_inputs, m_units});
    m_bias.index = store.add(m_name + "/bias", {m_units});
}

void DenseLayer::bindParameters(ParameterStore& store) {
    for (ParameterSlot* slot : {&m_kernel, &m_bias}) {
        slot->value = store.valueSpan(slot->index);
        slot->grad = store.gradSpan(slot->index);
    }
}

void DenseLayer::initialize(InitKind init, Rng& rng) {
    float* kernel = m_kernel.value.data();
    const std::int64_t n = m_inputs * m_units;
    switch (init) {
    case InitKind::GlorotUniform: {
        const double limit = std::sqrt(6.0 / static_cast<double>(m_inputs + m_units));
        for (std::int64_t i = 0; i < n; ++i) kernel[i] = static_cast<float>(rng.uniform(-limit, limit));
        break;
    }
    case InitKind::HeNormal: {
        // Keras' he_normal: a normal truncated at two standard deviations, stddev sqrt(2 / fan_in)
        // corrected for the truncation (0.87962566103423978).
        const double stddev = std::sqrt(2.0 / static_cast<double>(m_inputs)) / 0.87962566103423978;
        for (std::int64_t i = 0; i < n; ++i) {
            double value = rng.normal();
            while (std::abs(value) > 2.0) value = rng.normal();
            kernel[i] = static_cast<float>(value * stddev);
        }
        break;
    }
    case InitKind::Zeros:
        std::fill_n(kernel, n, 0.0f);
        break;
    }
    std::fill(m_bias.value.begin(), m_bias.value.end(), 0.0f);
}

std::unique_ptr<LayerContext> DenseLayer::makeContext() const { return std::make_unique<Context>(); }

const Tensor& DenseLayer::forward(const Tensor& input, LayerContext& base) const {
    auto& context = static_cast<Context&>(base);
    const std::int64_t batch = matrixRows(input, m_inputs);
    context.preActivation.resize2d(batch, m_units);
    context.output.resize2d(batch, m_units);
    kernels::denseForward(input.data(), m_kernel.value.data(), m_bias.value.data(), context.preActivation.data(), batch,
                          m_inputs, m_units);
    kernels::activate(m_activation, context.preActivation.data(), context.output.data(), batch * m_units);
    return context.output;
}

const Tensor& DenseLayer::backward(const Tensor& input, const Tensor& gradOutput, bool needInputGrad, LayerContext& base) {
    auto& context = static_cast<Context&>(base);
    const std::int64_t batch = matrixRows(input, m_inputs);
    context.gradPre.resize2d(batch, m_units);
    if (needInputGrad) context.gradInput.resize2d(batch, m_inputs);
    kernels::activationBackward(m_activation, context.preActivation.data(), context.output.data(), gradOutput.data(),
                                context.gradPre.data(), batch * m_units);
    kernels::denseBackward(input.data(), m_kernel.value.data(), context.gradPre.data(), m_kernel.grad.data(),
                           m_bias.grad.data(), needInputGrad ? context.gradInput.data() : nullptr, batch, m_inputs, m_units,
                           /*accumulate=*/!context.overwriteGradients);
    return context.gradInput;
}

}  // namespace distlab
