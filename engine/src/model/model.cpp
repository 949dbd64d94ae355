#include "distlab/model/model.hpp"

#include <algorithm>
#include <stdexcept>

#include "distlab/model/layer_registry.hpp"
#include "distlab/model/residual_layer.hpp"

namespace distlab {

namespace {
/// The layers of a config, parameters declared in `store` (which is not finalized here).
std::vector<std::unique_ptr<Layer>> buildLayers(const ModelConfig& config, std::int64_t inputFeatures, ParameterStore& store) {
    std::vector<std::unique_ptr<Layer>> layers;
    std::int64_t inputs = inputFeatures;
    for (std::size_t i = 0; i < config.layers.size(); ++i) {
        const LayerConfig& layer = config.layers[i];
        std::string name = layer.name.empty() ? layer.type + "_" + std::to_string(i) : layer.name;
        layers.push_back(makeLayer(layer, std::move(name), inputs, config.aggregationMethod));
        inputs = layers.back()->outputFeatures();
    }
    if (layers.empty()) throw std::invalid_argument("Model: no layers");
    for (auto& layer : layers) layer->declareParameters(store);
    if (store.totalSize() > Model::kMaxParameters)
        throw std::invalid_argument("the model has " + std::to_string(store.totalSize()) + " parameters; one copy may have at most " +
                                    std::to_string(Model::kMaxParameters) + " (use fewer or narrower layers)");
    return layers;
}
}  // namespace

Model::Model(const ModelConfig& config, std::int64_t inputFeatures)
    : m_inputFeatures(inputFeatures), m_layers(buildLayers(config, inputFeatures, m_store)) {
    m_store.finalize();
}

void Model::initialize(InitKind init, std::uint64_t seed) {
    for (std::size_t i = 0; i < m_layers.size(); ++i) {
        Rng rng(Rng::derive(seed, 0x494E4954ull + i));
        m_layers[i]->initialize(m_store, init, rng);
    }
}

void Model::setBatchSize(std::int64_t batch) {
    for (auto& layer : m_layers) layer->setBatchSize(batch);
}

const Tensor& Model::forward(const Tensor& input) {
    const Tensor* current = &input;
    for (auto& layer : m_layers) current = &layer->forward(m_store, *current);
    return *current;
}

void Model::backward(const Tensor& input, const Tensor& gradOutput) {
    const Tensor* grad = &gradOutput;
    for (std::size_t i = m_layers.size(); i-- > 0;) {
        const Tensor& layerInput = i == 0 ? input : m_layers[i - 1]->output();
        grad = &m_layers[i]->backward(m_store, layerInput, *grad, /*needInputGrad=*/i > 0);
    }
}

void Model::zeroGradients() { std::fill(m_store.grads().begin(), m_store.grads().end(), 0.0f); }

GradientAggregationStats Model::aggregationStats() const {
    GradientAggregationStats total;
    for (const auto& layer : m_layers)
        if (const auto* residual = dynamic_cast<const ResidualLayer*>(layer.get())) {
            total.peakBytes = std::max(total.peakBytes, residual->aggregationStats().peakBytes);
            total.addOps += residual->aggregationStats().addOps;
        }
    return total;
}

Result<Model::Footprint> Model::check(const ModelConfig& config, std::int64_t inputFeatures) {
    try {
        ParameterStore store;
        Footprint footprint;
        for (const auto& layer : buildLayers(config, inputFeatures, store)) footprint.activationWidth += layer->outputFeatures();
        footprint.parameters = store.totalSize();
        return footprint;
    } catch (const std::invalid_argument& error) {
        return Error{std::string("model.layers: ") + error.what()};
    }
}

std::int64_t Model::weightCount() const {
    std::int64_t total = 0;
    for (const auto& layer : m_layers) total += layer->weightCount();
    return total;
}

}  // namespace distlab
