#include "distlab/config/layer_types.hpp"

#include <array>
#include <stdexcept>

namespace distlab {
namespace {

constexpr std::array<LayerType, 2> kLayerTypes{{
    {"dense", /*takesUnits=*/true, /*takesInnerLayers=*/false, /*splitsBackward=*/true},
    {"residual", /*takesUnits=*/false, /*takesInnerLayers=*/true, /*splitsBackward=*/false},
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

std::int64_t declaredOutputWidth(const std::vector<LayerConfig>& layers) {
    for (auto layer = layers.rbegin(); layer != layers.rend(); ++layer)
        if (layerTypeOf(*layer).takesUnits) return layer->units;
    return 0;
}

}  // namespace distlab
