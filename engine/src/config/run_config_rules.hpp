#pragma once
// What this version of the engine implements, shared by the parser (which checks a type before the
// keys that depend on it) and validateRunConfig (which checks structs built without JSON).
#include <distlab/config/run_config.hpp>
#include <distlab/config/run_limits.hpp>

#include <cstdint>
#include <string>

namespace distlab::run_config_detail {

// The numeric bounds are public (the app's controls use them too).
using namespace run_limits;

/// "" when layers of this type can be built; otherwise what is wrong (for model.layers[i].type).
std::string layerTypeProblem(const std::string& type);
/// "" when the precision is implemented; otherwise the "not available yet" message.
std::string precisionProblem(Precision precision);

}  // namespace distlab::run_config_detail
