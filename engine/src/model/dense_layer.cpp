#include "distlab/model/dense_layer.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "model/dense_kernels.hpp"
#include "distlab/tensor/reductions.hpp"
#include "optim/sgd_step.hpp"

namespace distlab {

/// What backward needs of one micro-batch beyond its output.
struct DenseLayer::Context final : LayerContext {
    Tensor preActivation;            ///< z = x W + b, where the activation's derivative needs it (not linear or ReLU)
    Tensor gradPre;                  ///< dz, where backward computes it (not linear, not applied by the layer after)
    const float* splitDz = nullptr;  ///< backwardInput's dz, which backwardWeight reads
    std::vector<double> stepSums;    ///< the fused SGD step's scratch: its tiles' or blocks' Σ g²
};

DenseLayer::DenseLayer(std::string name, std::int64_t inputs, std::int64_t units, Activation activation)
    : m_name(std::move(name)), m_inputs(inputs), m_units(units), m_activation(activation) {}

Shape DenseLayer::outputShape(const Shape& input) const {
    if (input.empty() || input.back() != m_inputs)
        throw std::invalid_argument(m_name + ": expects inputs of " + std::to_string(m_inputs) + " features, got " + shapeToString(input));
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

const Tensor& DenseLayer::forward(ConstTensorView input, LayerContext& base) const {
    auto& context = static_cast<Context&>(base);
    const std::int64_t batch = matrixRows(input, m_inputs);
    context.output.resize2d(batch, m_units);
    if (kernels::activationDerivativeFromOutput(m_activation)) {  // y written directly, z not kept
        kernels::denseForward(input.data(), m_kernel.value.data(), m_bias.value.data(), context.output.data(), batch, m_inputs, m_units,
                              /*relu=*/m_activation == Activation::Relu);
        return context.output;
    }
    context.preActivation.resize2d(batch, m_units);
    kernels::denseForward(input.data(), m_kernel.value.data(), m_bias.value.data(), context.preActivation.data(), batch, m_inputs, m_units);
    kernels::activate(m_activation, context.preActivation.data(), context.output.data(), batch * m_units);
    return context.output;
}

const Tensor& DenseLayer::backward(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& context) {
    return backwardFused(input, gradOutput, needInputGrad, context, LayerFusions{}, nullptr);
}

const Tensor& DenseLayer::backwardFused(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& base,
                                        const LayerFusions& fusions, FusedSgdStep* sgd) {
    auto& context = static_cast<Context&>(base);
    const std::int64_t batch = matrixRows(input, m_inputs);
    if (needInputGrad) context.gradInput.resize2d(batch, m_inputs);
    const float* dz = preActivationGradient(gradOutput, batch, fusions.gradOutputIsPreActivation, context);
    if (sgd != nullptr) {
        applyFusedSgd(input, dz, needInputGrad, fusions.maskInputGradient, *sgd, context);
        return context.gradInput;
    }
    kernels::denseBackward(input.data(), m_kernel.value.data(), dz, m_kernel.grad.data(), m_bias.grad.data(),
                           needInputGrad ? context.gradInput.data() : nullptr, batch, m_inputs, m_units,
                           /*accumulate=*/!context.overwriteGradients, /*dxRelu=*/fusions.maskInputGradient);
    return context.gradInput;
}

const float* DenseLayer::preActivationGradient(const Tensor& gradOutput, std::int64_t batch, bool gradOutputIsPreActivation,
                                               Context& context) const {
    if (gradOutputIsPreActivation || m_activation == Activation::Linear) return gradOutput.data();
    context.gradPre.resize2d(batch, m_units);
    // Where the derivative is read off y, y stands in for z (ReLU's y > 0 exactly where z > 0).
    const Tensor& z = kernels::activationDerivativeFromOutput(m_activation) ? context.output : context.preActivation;
    kernels::activationBackward(m_activation, z.data(), context.output.data(), gradOutput.data(), context.gradPre.data(), batch * m_units);
    return context.gradPre.data();
}

const Tensor& DenseLayer::backwardInput(ConstTensorView input, const Tensor& gradOutput, bool needInputGrad, LayerContext& base) {
    auto& context = static_cast<Context&>(base);
    const std::int64_t batch = matrixRows(input, m_inputs);
    context.splitDz = preActivationGradient(gradOutput, batch, false, context);
    if (needInputGrad) {
        context.gradInput.resize2d(batch, m_inputs);
        kernels::inputGradient(context.splitDz, m_kernel.value.data(), static_cast<const float*>(nullptr), context.gradInput.data(), batch,
                               m_inputs, m_units);
    }
    return context.gradInput;
}

void DenseLayer::backwardWeight(ConstTensorView input, LayerContext& base) {
    auto& context = static_cast<Context&>(base);
    if (context.splitDz == nullptr) throw std::logic_error(m_name + ": backwardWeight before its backwardInput");
    const std::int64_t batch = matrixRows(input, m_inputs);
    // denseBackward's products without the input gradient (backwardInput's).
    kernels::denseBackward(input.data(), m_kernel.value.data(), context.splitDz, m_kernel.grad.data(), m_bias.grad.data(),
                           static_cast<float*>(nullptr), batch, m_inputs, m_units, /*accumulate=*/!context.overwriteGradients);
    context.splitDz = nullptr;
}

void DenseLayer::applyFusedSgd(ConstTensorView input, const float* dz, bool needInputGrad, bool maskInputGradient, FusedSgdStep& sgd,
                               Context& context) const {
    const std::int64_t batch = matrixRows(input, m_inputs);
    const float rate = sgd.rate;
    // dx first: it reads the kernel as the forward pass did, before the step changes it.
    if (needInputGrad)
        kernels::inputGradient(dz, m_kernel.value.data(), maskInputGradient ? input.data() : nullptr, context.gradInput.data(), batch,
                               m_inputs, m_units);
    // A written gradient's step, as the optimizer's pass applies it (the same bits), with Σ g².
    const auto stepOverGradient = [&](const ParameterSlot& slot) {
        const auto blocks = squareSumBlocks(slot.grad.size());
        if (context.stepSums.size() < blocks) context.stepSums.resize(blocks);  // grows once
        const std::span<double> sums(context.stepSums.data(), blocks);
        sgdPass(0x44454E5345000000ull ^ slot.grad.size(), slot.value, slot.grad, rate, sums);
        return sumOfBlockSums(sums);
    };
    double squares = 0.0;
    if (kernels::fusedSgdStepAvailable(m_inputs, m_units, batch)) {  // in the product: W read and written once
        const auto tiles = static_cast<std::size_t>(kernels::sgdWeightStepScratch(m_inputs, m_units));
        if (context.stepSums.size() < tiles) context.stepSums.resize(tiles);  // grows once
        squares = kernels::sgdWeightStep(kernels::Op::Transpose, kernels::Op::None, m_inputs, m_units, batch, input.data(), dz, rate,
                                         m_kernel.value.data(), context.stepSums);
    } else {
        // A product the packed kernel does not run here (a small or 10-wide one, OpenBLAS's), or a
        // batch past one block of k: the gradient written, then the step over it.
        kernels::matrixProduct(kernels::Op::Transpose, kernels::Op::None, m_inputs, m_units, batch, input.data(), dz, 0.0f,
                               m_kernel.grad.data());
        squares = stepOverGradient(m_kernel);
    }
    // The bias's gradient is a few kilobytes: written, then stepped over.
    kernels::biasGradient(dz, m_bias.grad.data(), batch, m_units, /*accumulate=*/false);
    squares += stepOverGradient(m_bias);
    sgd.squareSum += squares;
}

}  // namespace distlab
