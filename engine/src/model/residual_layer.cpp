#include "distlab/model/residual_layer.hpp"

#include <algorithm>
#include <stdexcept>

#include "distlab/model/layer_registry.hpp"

namespace distlab {

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
            inputs = branch.back()->outputFeatures();
        }
        if (inputs != width)
            throw std::invalid_argument("the residual block's inner layers end with " + std::to_string(inputs) +
                                        " units but its input has " + std::to_string(width) + " (they must match to be added)");
        m_branches.push_back(std::move(branch));
    }
    m_terms.reserve(m_branches.size() + 1);
}

void ResidualLayer::declareParameters(ParameterStore& store) {
    for (auto& branch : m_branches)
        for (auto& layer : branch) layer->declareParameters(store);
}

void ResidualLayer::initialize(ParameterStore& store, InitKind init, Rng& rng) const {
    for (const auto& branch : m_branches)
        for (const auto& layer : branch) layer->initialize(store, init, rng);
}

void ResidualLayer::setBatchSize(std::int64_t batch) {
    for (auto& branch : m_branches)
        for (auto& layer : branch) layer->setBatchSize(batch);
    m_output.resize2d(batch, m_width);
    m_gradInput.resize2d(batch, m_width);
}

std::int64_t ResidualLayer::weightCount() const {
    std::int64_t total = 0;
    for (const auto& branch : m_branches)
        for (const auto& layer : branch) total += layer->weightCount();
    return total;
}

const Tensor& ResidualLayer::forward(const ParameterStore& store, const Tensor& input) {
    const std::int64_t n = input.size();
    if (m_output.rows() != input.rows()) setBatchSize(input.rows());
    std::copy_n(input.data(), n, m_output.data());  // the skip connection
    for (auto& branch : m_branches) {
        const Tensor* current = &input;
        for (auto& layer : branch) current = &layer->forward(store, *current);
        for (std::int64_t i = 0; i < n; ++i) m_output[i] += (*current)[i];
    }
    return m_output;
}

const Tensor& ResidualLayer::branchBackward(ParameterStore& store, Branch& branch, const Tensor& input, const Tensor& gradOutput) {
    const Tensor* grad = &gradOutput;
    for (std::size_t i = branch.size(); i-- > 0;) {
        const Tensor& layerInput = i == 0 ? input : branch[i - 1]->output();
        grad = &branch[i]->backward(store, layerInput, *grad, /*needInputGrad=*/true);
    }
    return *grad;
}

const Tensor& ResidualLayer::backward(ParameterStore& store, const Tensor& input, const Tensor& gradOutput, bool) {
    // The input's gradient always flows on: a residual block is never the first consumer of data
    // whose gradient is unneeded in a way that saves work here (its branches need it anyway).
    const std::int64_t n = gradOutput.size();
    const std::int64_t termBytes = n * static_cast<std::int64_t>(sizeof(float));
    m_stats = {};
    if (m_method == AggregationMethod::AddN) {
        m_terms.clear();
        m_terms.push_back(&gradOutput);  // the skip connection's term
        for (auto& branch : m_branches) m_terms.push_back(&branchBackward(store, branch, input, gradOutput));
        // One n-ary sum with every term (and the result) alive at once.
        float* out = m_gradInput.data();
        for (std::int64_t i = 0; i < n; ++i) {
            float sum = (*m_terms[0])[i];
            for (std::size_t t = 1; t < m_terms.size(); ++t) sum += (*m_terms[t])[i];
            out[i] = sum;
        }
        m_stats.peakBytes = static_cast<std::int64_t>(m_terms.size() + 1) * termBytes;
        m_stats.addOps = 1;
    } else {
        // Accumulate: start from the skip term and add each branch's term as soon as it exists,
        // so at most the running sum and one term are alive.
        std::copy_n(gradOutput.data(), n, m_gradInput.data());
        for (auto& branch : m_branches) {
            const Tensor& term = branchBackward(store, branch, input, gradOutput);
            for (std::int64_t i = 0; i < n; ++i) m_gradInput[i] += term[i];
            ++m_stats.addOps;
        }
        m_stats.peakBytes = 2 * termBytes;
    }
    return m_gradInput;
}

}  // namespace distlab
