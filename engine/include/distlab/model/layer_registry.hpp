#pragma once
// How the model builds each layer type of config/layer_types.hpp: one builder per type.
#include <cstdint>
#include <memory>
#include <string>

#include "distlab/config/run_config.hpp"

namespace distlab {

class Layer;

/// Builds one layer of a config for inputs of `inputs` values. Throws std::invalid_argument when
/// the type has no builder or the config cannot be built (e.g. a residual block whose branches
/// change the width).
std::unique_ptr<Layer> makeLayer(const LayerConfig& config, std::string name, std::int64_t inputs, AggregationMethod method);

}  // namespace distlab
