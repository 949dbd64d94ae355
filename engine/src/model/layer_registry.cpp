#include "distlab/model/layer_registry.hpp"

#include <array>
#include <stdexcept>

#include "distlab/model/dense_layer.hpp"
#include "distlab/model/residual_layer.hpp"

namespace distlab {
namespace {

std::unique_ptr<Layer> makeDense(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod) {
    return std::make_unique<DenseLayer>(std::move(name), inputs, config.units, config.activation);
}

std::unique_ptr<Layer> makeResidual(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method) {
    return std::make_unique<ResidualLayer>(std::move(name), inputs, config, method);
}

const std::array<LayerType, 2> kLayerTypes{{
    {"dense", /*takesUnits=*/true, /*takesInnerLayers=*/false, &makeDense},
    {"residual", /*takesUnits=*/false, /*takesInnerLayers=*/true, &makeResidual},
}};

}  // namespace

std::span<const LayerType> layerTypes() { return kLayerTypes; }

std::string layerTypeNames() {
    std::string names;
    for (const LayerType& type : kLayerTypes) names += (names.empty() ? "" : ", ") + std::string(type.name);
    return names;
}

const LayerType* findLayerType(std::string_view name) {
    for (const LayerType& type : kLayerTypes)
        if (type.name == name) return &type;
    return nullptr;
}

const LayerType& layerTypeOf(const LayerConfig& config) {
    if (const LayerType* type = findLayerType(config.type)) return *type;
    throw std::invalid_argument("unknown layer type \"" + config.type + "\" (available: " + layerTypeNames() + ")");
}

std::unique_ptr<Layer> makeLayer(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method) {
    return layerTypeOf(config).make(config, std::move(name), inputs, method);
}

std::int64_t declaredOutputWidth(const std::vector<LayerConfig>& layers) {
    for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer)
        if (layerTypeOf(*layer).takesUnits) return layer->units;
    return 0;
}

}  // namespace distlab
