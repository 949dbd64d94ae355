#pragma once
// A study variant's whole strategy as one override. Each strategy refuses the keys of the others
// (a parameter-server `workers` under mirrored is an unknown key), so a variant that changes the
// strategy's kind or its lanes writes the whole "strategy" object, built from the base's, instead
// of one key on top of the base's object. Pure; any thread.
#include <cstdint>
#include <string>
#include <utility>

#include "distlab/config/run_config.hpp"

namespace distlab {

/// `from` as a strategy of `kind`, keeping what means the same there: the lanes (replicas or
/// workers; at least 2 workers), the cross-device reduction, packing and accumulation between the
/// synchronous kinds, and a parameter-server base's own settings when it stays one.
StrategyConfig strategyOfKind(const StrategyConfig& from, StrategyKind kind);
/// `from` with `lanes` replicas (parameter servers: workers, their speeds and the gradients
/// averaged trimmed to them); one device with more than one becomes mirrored.
StrategyConfig strategyWithLanes(const StrategyConfig& from, std::int64_t lanes);
/// The override {"strategy", JSON object} that makes `base`'s strategy `strategy`.
std::pair<std::string, std::string> strategyOverride(const RunConfig& base, const StrategyConfig& strategy);

}  // namespace distlab
