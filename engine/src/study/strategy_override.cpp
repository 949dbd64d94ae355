#include "study/strategy_override.hpp"

#include <algorithm>

#include "distlab/config/run_config_json.hpp"
#include "config/run_config_json_reader.hpp"

namespace distlab {

namespace {
std::vector<DeviceName> devicesLike(const StrategyConfig& from, std::int64_t count) {
    const DeviceName::Kind kind = from.usesGpus() ? DeviceName::Kind::Gpu : DeviceName::Kind::Cpu;
    std::vector<DeviceName> devices;
    for (int d = 0; d < count; ++d) devices.push_back(DeviceName{kind, d});
    return devices;
}
}  // namespace

StrategyConfig strategyOfKind(const StrategyConfig& from, StrategyKind kind) {
    if (from.type == kind) return from;
    const bool fromServers = from.type == StrategyKind::ParameterServer;
    StrategyConfig to;
    to.type = kind;
    to.crossDeviceOps = from.crossDeviceOps;
    if (kind == StrategyKind::ParameterServer) {
        to.workers = std::max<std::int64_t>(2, from.replicaCount());
        return to;
    }
    if (!fromServers) {
        to.numPacks = from.numPacks;
        to.bytesPerPack = from.bytesPerPack;
        to.gradientAccumulationSteps = from.gradientAccumulationSteps;
        to.gpu = from.gpu;
    }
    if (kind != StrategyKind::OneDevice) to.devices = devicesLike(fromServers ? StrategyConfig{} : from, from.replicaCount());
    return to;
}

StrategyConfig strategyWithLanes(const StrategyConfig& from, std::int64_t lanes) {
    StrategyConfig to = from;
    if (from.type == StrategyKind::ParameterServer) {
        to.workers = lanes;
        if (static_cast<std::int64_t>(to.workerSpeed.size()) > lanes) to.workerSpeed.resize(static_cast<std::size_t>(lanes));
        to.gradientsToAggregate = std::min(to.gradientsToAggregate, lanes);
        return to;
    }
    if (from.type == StrategyKind::OneDevice) {
        if (lanes == 1) return to;
        to = strategyOfKind(from, StrategyKind::Mirrored);
    }
    to.devices = devicesLike(from, lanes);
    return to;
}

std::pair<std::string, std::string> strategyOverride(const RunConfig& base, const StrategyConfig& strategy) {
    RunConfig variant = base;
    variant.strategy = strategy;
    const run_config_detail::Json json = run_config_detail::parseJsonDocument(runConfigToJson(variant), "strategy");
    return {"strategy", json.at("strategy").dump()};
}

}  // namespace distlab
