#pragma once
// Small configs and in-memory data for trainer tests.
#include <cmath>

#include "distlab/core/rng.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"

namespace distlab::testing {

/// A Gaussian classification set: features, `classes` labels that depend on the features.
inline DataSplit makeClassificationData(std::int64_t count, std::int64_t features, std::int64_t classes, std::uint64_t seed) {
    DataSplit split;
    Dataset& d = split.train;
    d.count = count;
    d.features = features;
    d.classes = classes;
    Rng rng(seed);
    for (std::int64_t i = 0; i < count * features; ++i) d.x.push_back(static_cast<float>(rng.normal()));
    for (std::int64_t i = 0; i < count; ++i) {
        double s = 0;
        for (std::int64_t f = 0; f < features; ++f) s += d.x[static_cast<std::size_t>(i * features + f)] * (f + 1);
        d.labels.push_back(static_cast<std::int32_t>(std::abs(static_cast<std::int64_t>(std::floor(s))) % classes));
    }
    return split;
}

inline RunConfig smallConfig(int replicas, CrossDeviceOps ops, OptimizerKind optimizer, double momentum, std::int64_t accumulation) {
    RunConfig config;
    config.seed = 11;
    config.model.layers = {{"dense", 16, Activation::Tanh, ""}, {"dense", 8, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
    config.data.globalBatchSize = 24;
    config.optimizer.type = optimizer;
    config.optimizer.learningRate = optimizer == OptimizerKind::Adam ? 0.01 : 0.1;
    config.optimizer.momentum = momentum;
    config.strategy.type = replicas == 1 && accumulation == 1 ? StrategyKind::OneDevice : StrategyKind::Mirrored;
    for (int r = 0; r < replicas; ++r) config.strategy.devices.push_back({DeviceName::Kind::Cpu, r});
    config.strategy.crossDeviceOps = ops;
    config.strategy.gradientAccumulationSteps = accumulation;
    config.threads = replicas;
    return config;
}

/// ||a - b|| / ||b|| over two parameter buffers.
inline double relativeError(std::span<const float> a, std::span<const float> b) {
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
        norm += double(b[i]) * b[i];
    }
    return std::sqrt(diff / norm);
}

/// A copy of replica `replica`'s variables (to compare trainers' states whole).
inline std::vector<float> valuesOf(const Trainer& trainer, int replica = 0) {
    const auto values = trainer.replicaModel(replica).store().values();
    return {values.begin(), values.end()};
}

}  // namespace distlab::testing
