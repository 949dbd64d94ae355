#pragma once
// The one list of layer types: each type's config name, what its config holds, and how to build
// it. Nothing else tests a layer's type string: the config reader, validator and writer, the model,
// the trainer and the app ask the registry. A new layer type is one entry here (and its class).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/io/run_config.hpp"

namespace distlab {

class Layer;

struct LayerType {
    std::string_view name;  ///< the config's "type": "dense", "residual"
    /// The layer's width is its config's `units` (and it has an `activation`); otherwise its
    /// output has its input's width.
    bool takesUnits = false;
    /// The layer wraps the config's inner `layers` (a residual block, in `branches` copies).
    bool takesInnerLayers = false;
    /// Builds the layer for inputs of `inputs` values. Throws std::invalid_argument when the
    /// config cannot be built (e.g. a residual block whose branches change the width).
    std::unique_ptr<Layer> (*make)(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method) = nullptr;
};

/// Every available type, in the order messages list them.
std::span<const LayerType> layerTypes();
/// "dense, residual"
std::string layerTypeNames();
/// The type named `name`, or null.
const LayerType* findLayerType(std::string_view name);
/// The type of a layer's config. Throws std::invalid_argument for a name the registry lacks
/// (validated configs never have one).
const LayerType& layerTypeOf(const LayerConfig& config);
/// Builds one layer of a config (its type's make).
std::unique_ptr<Layer> makeLayer(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method);
/// The output width that `layers` declare: the units of the last layer that sets a width (0 when
/// none does: the model keeps its input's width). Needs no data, so it runs before loading.
std::int64_t declaredOutputWidth(const std::vector<LayerConfig>& layers);

}  // namespace distlab
