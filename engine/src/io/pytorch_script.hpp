#pragma once
// The text of an exported PyTorch script (docs/interfaces.md §3.9): the run's description as a
// Python literal followed by a fixed body that reads it. Engine-internal; pytorch_export.cpp
// decides what the description holds.
#include <string>

#include <nlohmann/json.hpp>

namespace distlab {

/// The whole script for `run` (an object: name, layers, loss, optimizer, replicas, batch, files;
/// see pytorch_export.cpp). Pure; any thread.
std::string pyTorchScript(const nlohmann::ordered_json& run);

}  // namespace distlab
