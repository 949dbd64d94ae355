#include "distribute/memory_budget.hpp"

#include <algorithm>
#include <sstream>

#include "distlab/device/device_info.hpp"

namespace distlab {
namespace {

bool splitsTheModel(const StrategyConfig& strategy) {
    return strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel;
}

std::int64_t modelCopies(const StrategyConfig& strategy) {
    // Each device of a split model holds its layers of its data-parallel copy's variables.
    if (splitsTheModel(strategy) || strategy.type == StrategyKind::TensorParallel) return strategy.dataParallel;
    if (strategy.type != StrategyKind::ParameterServer) return strategy.replicaCount();
    return strategy.workers * strategy.replicasPerWorker + 1;  // the servers together hold one more copy
}

std::string gib(std::uint64_t bytes) {
    std::ostringstream out;
    out.precision(3);
    out << static_cast<double>(bytes) / double(1u << 30) << " GiB";
    return out.str();
}

}  // namespace

std::uint64_t estimatedTrainingBytes(const RunConfig& config, const Model::Footprint& model) {
    const auto copies = static_cast<std::uint64_t>(modelCopies(config.strategy));
    if (config.strategy.type == StrategyKind::TensorParallel)  // every device computes its copy's shard, at most at full width
        return copies * (static_cast<std::uint64_t>(model.parameters) * 16 * 2 +
                         static_cast<std::uint64_t>(config.strategy.tensorParallel) *
                             static_cast<std::uint64_t>(config.data.globalBatchSize / config.strategy.dataParallel) *
                             static_cast<std::uint64_t>(model.activationWidth) * 12);
    // A pipeline copy may hold every micro-batch of its shard's activations at once (GPipe).
    const auto replicas = static_cast<std::uint64_t>(
        splitsTheModel(config.strategy) ? config.strategy.dataParallel : std::max<std::int64_t>(1, config.strategy.replicaCount()));
    const std::uint64_t microBatch = static_cast<std::uint64_t>(config.data.globalBatchSize) / replicas;
    const std::uint64_t perCopy =
        static_cast<std::uint64_t>(model.parameters) * 16 + microBatch * static_cast<std::uint64_t>(model.activationWidth) * 12;
    // Parameter servers also keep, per worker, the transport's pull and push slots (float32 each).
    const std::uint64_t transport =
        config.strategy.type == StrategyKind::ParameterServer
            ? static_cast<std::uint64_t>(config.strategy.workers) * static_cast<std::uint64_t>(model.parameters) * 8
            : 0;
    return copies * perCopy + transport;  // parameters <= 2^28, batch and widths bounded by validation: no overflow
}

Status checkFitsInMemory(const RunConfig& config, const Model::Footprint& model, std::uint64_t memoryBytes) {
    if (memoryBytes == 0) memoryBytes = physicalMemoryBytes();
    if (memoryBytes == 0) return Ok{};  // unknown: nothing to compare with
    const std::uint64_t needed = estimatedTrainingBytes(config, model);
    if (needed <= memoryBytes / 4 * 3) return Ok{};
    return Error{"model.layers: " + std::to_string(model.parameters) + " parameters and " + std::to_string(model.activationWidth) +
                 " activations per sample on " + std::to_string(modelCopies(config.strategy)) + " model copies need at least " +
                 gib(needed) + ", more than this machine's " + gib(memoryBytes) +
                 " can hold (use narrower layers, fewer replicas or a smaller data.global_batch_size)"};
}

}  // namespace distlab
