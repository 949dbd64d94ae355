#pragma once
// The one list of layer types a run config may name: each type's config name and what its config
// holds. Nothing else tests a layer's type string: the config reader, validator and writer, the
// trainer, the exports and the app ask this list; the model builds each type through its layer
// registry (model/layer_registry.hpp), which has one builder per entry here
// (tests/engine/test_layer_types.cpp builds every one). A new layer type is one entry here and one
// builder there (and its class).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/config/run_config.hpp"

namespace distlab {

struct LayerType {
    std::string_view name;  ///< the config's "type": "dense", "residual"
    /// The layer's width is its config's `units` (and it has an `activation`); otherwise its
    /// output has its input's width.
    bool takesUnits = false;
    /// The layer wraps the config's inner `layers` (a residual block, in `branches` copies).
    bool takesInnerLayers = false;
    /// Its backward splits into the input gradient and the weight gradient (Layer::splitsBackward),
    /// as zero-bubble pipeline schedules need.
    bool splitsBackward = false;
};

/// Every available type, in the order messages list them.
std::span<const LayerType> layerTypes();
/// "dense, residual"
std::string layerTypeNames();
/// The type named `name`, or null.
const LayerType* findLayerType(std::string_view name);
/// The type of a layer's config. Throws std::invalid_argument for a name the list lacks
/// (validated configs never have one).
const LayerType& layerTypeOf(const LayerConfig& config);
/// The output width that `layers` declare: the units of the last layer that sets a width (0 when
/// none does: the model keeps its input's width). Needs no data, so it runs before loading.
std::int64_t declaredOutputWidth(const std::vector<LayerConfig>& layers);

}  // namespace distlab
