#include "distlab/model/residual_layer.hpp"

#include <algorithm>
#include <stdexcept>

#include "distlab/model/layer_registry.hpp"

namespace distlab {

/// One micro-batch in the block: every inner layer's context, branch by branch.
struct ResidualLayer::Context final : LayerContext {
    std::vector<std::vector<std::unique_ptr<LayerContext>>> branches;
    std::vector<const float*> terms;  ///< add_n: every term's values, held until the one sum
    GradientAggregationStats stats;
};

ResidualLayer::ResidualLayer(std::string name, std::int64_t width, const LayerConfig& config, AggregationMethod method)
    : m_name(std::move(name)), m_width(width), m_method(method) {
    for (std::int64_t b = 0; b < std::max<std::int64_t>(1, config.branches); ++b) {
        Branch branch;
        std::int64_t inputs = width;
        for (std::size_t i = 0; i < config.layers.size(); ++i) {
            const LayerConfig& inner = config.layers[i];
            std::string innerName = inner.name.empty() ? inner.type + "_" + std::to_string(i) : inner.name;
            const std::string prefix = config.branches > 1 ? m_name + "/branch_" + std::to_string(b) + "/" : m_name + "/";
            branch.push_back(makeLayer(inner, prefix + innerName, inputs, method));
            inputs = branch.back()->outputFeatures(inputs);
        }
        if (inputs != width)
            throw std::invalid_argument("the residual block's inner layers end with " + std::to_string(inputs) +
                                        " units but its input has " + std::to_string(width) + " (they must match to be added)");
        m_branches.push_back(std::move(branch));
    }
}

Shape ResidualLayer::outputShape(const Shape& input) const {
    if (input.empty() || input.back() != m_width)
        throw std::invalid_argument(m_name + ": expects inputs of " + std::to_string(m_width) + " features, got " + shapeToString(input));
    return input;
}

void ResidualLayer::declareParameters(ParameterStore& store) {
    for (auto& branch : m_branches)
        for (auto& layer : branch) layer->declareParameters(store);
}

void ResidualLayer::bindParameters(ParameterStore& store) {
    for (auto& branch : m_branches)
        for (auto& layer : branch) layer->bindParameters(store);
}

void ResidualLayer::initialize(InitKind init, Rng& rng) {
    for (auto& branch : m_branches)
        for (auto& layer : branch) layer->initialize(init, rng);
}

std::unique_ptr<LayerContext> ResidualLayer::makeContext() const {
    auto context = std::make_unique<Context>();
    for (const auto& branch : m_branches) {
        auto& contexts = context->branches.emplace_back();
        for (const auto& layer : branch) contexts.push_back(layer->makeContext());
    }
    context->terms.reserve(m_branches.size() + 1);
    return context;
}

std::int64_t ResidualLayer::weightCount() const {
    std::int64_t total = 0;
    for (const auto& branch : m_branches)
        for (const auto& layer : branch) total += layer->weightCount();
    return total;
}

GradientAggregationStats ResidualLayer::aggregationStats(const LayerContext& context) {
    const auto* residual = dynamic_cast<const Context*>(&context);
    return residual ? residual->stats : GradientAggregationStats{};
}

const Tensor& ResidualLayer::forward(ConstTensorView input, LayerContext& base) const {
    auto& context = static_cast<Context&>(base);
    const std::int64_t n = input.size();
    context.output.resize2d(matrixRows(input, m_width), m_width);
    float* out = context.output.data();
    std::copy_n(input.data(), n, out);  // the skip connection
    for (std::size_t b = 0; b < m_branches.size(); ++b) {
        ConstTensorView current = input;
        for (std::size_t i = 0; i < m_branches[b].size(); ++i) current = m_branches[b][i]->forward(current, *context.branches[b][i]);
        const float* term = current.data();
        for (std::int64_t i = 0; i < n; ++i) out[i] += term[i];
    }
    return context.output;
}

const Tensor& ResidualLayer::branchBackward(std::size_t b, ConstTensorView input, const Tensor& gradOutput, Context& context) {
    Branch& branch = m_branches[b];
    auto& contexts = context.branches[b];
    const Tensor* grad = &gradOutput;
    for (std::size_t i = branch.size(); i-- > 0;) {
        const ConstTensorView layerInput = i == 0 ? input : contexts[i - 1]->output.view();
        contexts[i]->overwriteGradients = context.overwriteGradients;
        grad = &branch[i]->backward(layerInput, *grad, /*needInputGrad=*/true, *contexts[i]);
    }
    return *grad;
}

const Tensor& ResidualLayer::backward(ConstTensorView input, const Tensor& gradOutput, bool, LayerContext& base) {
    // The input's gradient always flows on: a residual block is never the first consumer of data
    // whose gradient is unneeded in a way that saves work here (its branches need it anyway).
    auto& context = static_cast<Context&>(base);
    const std::int64_t n = gradOutput.size();
    const std::int64_t termBytes = n * static_cast<std::int64_t>(sizeof(float));
    context.gradInput.resize2d(matrixRows(gradOutput, m_width), m_width);
    context.stats = {};
    if (m_method == AggregationMethod::AddN) {
        context.terms.clear();
        context.terms.push_back(gradOutput.data());  // the skip connection's term
        for (std::size_t b = 0; b < m_branches.size(); ++b) context.terms.push_back(branchBackward(b, input, gradOutput, context).data());
        // One n-ary sum with every term (and the result) alive at once.
        float* out = context.gradInput.data();
        for (std::int64_t i = 0; i < n; ++i) {
            float sum = context.terms[0][i];
            for (std::size_t t = 1; t < context.terms.size(); ++t) sum += context.terms[t][i];
            out[i] = sum;
        }
        context.stats.peakBytes = static_cast<std::int64_t>(context.terms.size() + 1) * termBytes;
        context.stats.addOps = 1;
    } else {
        // Accumulate: start from the skip term and add each branch's term as soon as it exists,
        // so at most the running sum and one term are alive.
        float* sum = context.gradInput.data();
        std::copy_n(gradOutput.data(), n, sum);
        for (std::size_t b = 0; b < m_branches.size(); ++b) {
            const float* term = branchBackward(b, input, gradOutput, context).data();
            for (std::int64_t i = 0; i < n; ++i) sum[i] += term[i];
            ++context.stats.addOps;
        }
        context.stats.peakBytes = 2 * termBytes;
    }
    return context.gradInput;
}

}  // namespace distlab
