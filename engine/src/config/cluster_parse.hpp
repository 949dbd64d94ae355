#pragma once
// Reads a `cluster` object (the run config's, or TF_CONFIG's): one parser for both.
#include "config/run_config_json_reader.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab::run_config_detail {

/// {"chief": [...], "worker": [...], "ps": [...]}: arrays of "host:port" strings. Checks each
/// address's form, at most one chief, no address listed twice; messages name the JSON path.
ClusterSpec parseClusterSpec(const ObjectReader& reader);

}  // namespace distlab::run_config_detail
