#include "distlab/model/model.hpp"

#include <algorithm>
#include <stdexcept>

#include "distlab/model/layer_registry.hpp"
#include "distlab/model/residual_layer.hpp"

namespace distlab {

namespace {
/// The layers of a config, parameters declared in `store` (which is not finalized here).
/// The layers of `config`, their parameters declared in `store`; `gradientBegins` (when given)
/// receives each layer's first element in the store's flat buffers.
std::vector<std::unique_ptr<Layer>> buildLayers(const ModelConfig& config, std::int64_t inputFeatures, ParameterStore& store,
                                                std::vector<std::int64_t>* gradientBegins = nullptr) {
    std::vector<std::unique_ptr<Layer>> layers;
    std::int64_t inputs = inputFeatures;
    for (std::size_t i = 0; i < config.layers.size(); ++i) {
        const LayerConfig& layer = config.layers[i];
        std::string name = layer.name.empty() ? layer.type + "_" + std::to_string(i) : layer.name;
        layers.push_back(makeLayer(layer, std::move(name), inputs, config.aggregationMethod));
        inputs = layers.back()->outputFeatures(inputs);
    }
    if (layers.empty()) throw std::invalid_argument("Model: no layers");
    for (auto& layer : layers) {
        if (gradientBegins != nullptr) gradientBegins->push_back(store.totalSize());
        layer->declareParameters(store);
    }
    if (store.totalSize() > Model::kMaxParameters)
        throw std::invalid_argument("the model has " + std::to_string(store.totalSize()) + " parameters; one copy may have at most " +
                                    std::to_string(Model::kMaxParameters) + " (use fewer or narrower layers)");
    return layers;
}
}  // namespace

Model::Model(const ModelConfig& config, std::int64_t inputFeatures)
    : m_inputFeatures(inputFeatures), m_layers(buildLayers(config, inputFeatures, m_store, &m_gradientBegins)) {
    m_store.finalize();
    std::int64_t width = inputFeatures;
    for (auto& layer : m_layers) {
        layer->bindParameters(m_store);
        width = layer->outputFeatures(width);
        m_layerWidths.push_back(width);
        // Asked once here, not every step: which layers have fused kernels.
        m_fusing.push_back(dynamic_cast<FusingLayer*>(layer.get()));
    }
    planStep({});
}

void Model::planStep(const StepUpdate& update) {
    std::vector<FusionCapabilities> capabilities;
    for (const FusingLayer* layer : m_fusing) capabilities.push_back(layer != nullptr ? layer->fusionCapabilities() : FusionCapabilities{});
    m_plan = distlab::planStep(capabilities, update);
}

void Model::initialize(InitKind init, std::uint64_t seed) {
    for (std::size_t i = 0; i < m_layers.size(); ++i) {
        Rng rng(Rng::derive(seed, 0x494E4954ull + i));
        m_layers[i]->initialize(init, rng);
    }
}

ModelContext Model::makeContext() const {
    ModelContext context;
    for (const auto& layer : m_layers) context.layers.push_back(layer->makeContext());
    return context;
}

const Tensor& Model::forward(ConstTensorView input, ModelContext& context) const {
    // The first layer reads the input as given; the constructor refused a model without layers.
    const Tensor* output = &m_layers[0]->forward(input, *context.layers[0]);
    for (std::size_t i = 1; i < m_layers.size(); ++i) output = &m_layers[i]->forward(*output, *context.layers[i]);
    return *output;
}

void Model::backward(ConstTensorView input, const Tensor& gradOutput, ModelContext& context, FusedSgdStep* fusedSgd,
                     BackwardListener* listener) {
    if (fusedSgd != nullptr && !m_plan.fusesSgd) throw std::logic_error("Model::backward: a fused SGD step where the step plan has none");
    const Tensor* grad = &gradOutput;
    for (std::size_t i = m_layers.size(); i-- > 0;) {
        context.layers[i]->overwriteGradients = m_gradientsZeroed;
        grad = &layerBackward(i, i == 0 ? input : context.layers[i - 1]->output.view(), *grad, context, fusedSgd);
        if (listener != nullptr) listener->layerFinished(i);
    }
    m_gradientsZeroed = false;
}

const Tensor& Model::backwardLayer(std::size_t layer, ConstTensorView input, const Tensor& gradOutput, ModelContext& context) {
    return layerBackward(layer, input, gradOutput, context, nullptr);
}

const Tensor& Model::layerBackward(std::size_t i, ConstTensorView input, const Tensor& gradOutput, ModelContext& context,
                                   FusedSgdStep* fusedSgd) {
    LayerContext& layerContext = *context.layers[i];
    const bool needInputGrad = i > 0;
    // A fused SGD step reaches every layer: fusesSgd means each is a FusingLayer (planStep).
    return m_fusing[i] != nullptr ? m_fusing[i]->backwardFused(input, gradOutput, needInputGrad, layerContext, m_plan.layers[i], fusedSgd)
                                  : m_layers[i]->backward(input, gradOutput, needInputGrad, layerContext);
}

GradientAggregationStats Model::aggregationStats(const ModelContext& context) {
    GradientAggregationStats total;
    for (const auto& layer : context.layers) {
        const GradientAggregationStats stats = ResidualLayer::aggregationStats(*layer);
        total.peakBytes = std::max(total.peakBytes, stats.peakBytes);
        total.addOps += stats.addOps;
    }
    return total;
}

Result<Model::Footprint> Model::check(const ModelConfig& config, std::int64_t inputFeatures) {
    try {
        ParameterStore store;
        Footprint footprint;
        std::int64_t width = inputFeatures;
        for (const auto& layer : buildLayers(config, inputFeatures, store)) {
            width = layer->outputFeatures(width);
            footprint.activationWidth += width;
        }
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
