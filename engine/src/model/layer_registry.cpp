#include "distlab/model/layer_registry.hpp"

#include <array>
#include <stdexcept>
#include <string_view>

#include "distlab/config/layer_types.hpp"
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

struct LayerBuilder {
    std::string_view type;  ///< a name of config/layer_types.hpp
    std::unique_ptr<Layer> (*make)(const LayerConfig&, std::string, std::int64_t, AggregationMethod);
};

constexpr std::array<LayerBuilder, 2> kBuilders{{{"dense", &makeDense}, {"residual", &makeResidual}}};

}  // namespace

std::unique_ptr<Layer> makeLayer(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method) {
    const std::string_view type = layerTypeOf(config).name;
    for (const LayerBuilder& builder : kBuilders)
        if (builder.type == type) return builder.make(config, std::move(name), inputs, method);
    throw std::invalid_argument("the model has no builder for layer type \"" + config.type + "\"");
}

}  // namespace distlab
