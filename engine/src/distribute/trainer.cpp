#include "distlab/distribute/trainer.hpp"

#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/distribute/parameter_server_trainer.hpp"
#include "distribute/cluster_parameter_server_trainer.hpp"
#include "distribute/pipeline_trainer.hpp"
#include "distribute/tensor_parallel_trainer.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "distlab/config/layer_types.hpp"
#include "distribute/gpu_trainer_factory.hpp"
#include "distribute/memory_budget.hpp"
#include "tensor/parallel_ranges.hpp"

namespace distlab {

namespace {
DataExpectations expectationsOf(const RunConfig& config) {
    // The model's output width, known before the data is (a residual block keeps its input's width).
    const std::int64_t units = declaredOutputWidth(config.model.layers);
    DataExpectations expect;
    if (config.model.loss == LossKind::SoftmaxCrossEntropy)
        expect.classes = units;
    else
        expect.outputs = units;
    return expect;
}

/// The targets of the rows `indices`: class ids or value rows.
void gatherTargets(const Dataset& data, std::span<const std::int64_t> indices, BatchTargets& targets) {
    const auto rows = static_cast<std::int64_t>(indices.size());
    if (data.isClassification()) {
        targets.labels.resize(static_cast<std::size_t>(rows));
        for (std::int64_t r = 0; r < rows; ++r)
            targets.labels[static_cast<std::size_t>(r)] = data.labels[static_cast<std::size_t>(indices[static_cast<std::size_t>(r)])];
    } else {
        targets.values.resize2d(rows, data.outputs);
        for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(targets.values.data() + r * data.outputs, data.targets.data() + indices[static_cast<std::size_t>(r)] * data.outputs,
                        static_cast<std::size_t>(data.outputs) * sizeof(float));
    }
}

}  // namespace

ConstTensorView gatherBatch(const Dataset& data, std::span<const std::int64_t> indices, Tensor& scratch, BatchTargets& targets) {
    const auto rows = static_cast<std::int64_t>(indices.size());
    gatherTargets(data, indices, targets);
    // A run of consecutive rows is read where it lies: the copy was 4 % of W1's step (800 KB
    // written and read again), work PyTorch's peer, which cycles through batches made beforehand,
    // does not do.
    const bool consecutive = rows > 0 && std::adjacent_find(indices.begin(), indices.end(),
                                                            [](std::int64_t a, std::int64_t b) { return b != a + 1; }) == indices.end();
    if (consecutive)
        return ConstTensorView(reinterpret_cast<const std::byte*>(data.x.data() + indices[0] * data.features),
                               ViewShape{rows, data.features}, DType::Float32, currentCpuDevice());
    scratch.resize2d(rows, data.features);
    const auto rowBytes = static_cast<std::size_t>(data.features) * sizeof(float);
    // Shared by the replica's team, whose other threads would only wait for it (W3: 1.5 MB a step).
    forEachPart(
        static_cast<std::size_t>(rows),
        [&](int, std::size_t first, std::size_t last) {
            for (std::size_t r = first; r < last; ++r)
                std::memcpy(scratch.data() + static_cast<std::int64_t>(r) * data.features, data.x.data() + indices[r] * data.features,
                            rowBytes);
        },
        static_cast<std::size_t>(data.features));
    return scratch;
}

Result<DataSplit> loadTrainingData(const RunConfig& config) {
    auto data = loadData(config.data, expectationsOf(config), config.seed, config.baseDirectory);
    if (!data) return data.error();
    const auto footprint = Model::check(config.model, data->train.features);
    if (!footprint) return footprint.error();
    if (auto status = checkFitsInMemory(config, *footprint); !status) return status.error();
    if (data->train.count < config.data.globalBatchSize)
        return Error{"data.global_batch_size: " + std::to_string(config.data.globalBatchSize) + " is larger than the " +
                     std::to_string(data->train.count) + " training samples"};
    return data;
}

Result<std::unique_ptr<Trainer>> Trainer::create(const RunConfig& config, std::unique_ptr<Communicator> workers) {
    if (!config.cluster.empty() && !workers)
        return Error{"cluster: this run's workers are processes; start each task with distlab-worker (docs/cluster.md)"};
    // A GPU run is planned before its data loads, so a refusal (no GPU, a device past the carving,
    // a layer the GPU path lacks) comes at once.
    std::optional<GpuPlan> gpuPlan;
    if (config.strategy.usesGpus()) {
        Result<GpuPlan> plan = planGpuRunHere(config);
        if (!plan) return plan.error();
        gpuPlan = std::move(*plan);
    }
    auto data = loadTrainingData(config);
    if (!data) return data.error();
    if (gpuPlan) {
        try {
            return makeGpuTrainer(config, std::move(data.value()), std::move(*gpuPlan));
        } catch (const TrainingError& error) {  // a logical GPU that cannot open, or out of its memory
            return Error{error.what()};
        }
    }
    try {
        return create(config, std::move(data.value()), std::move(workers));
    } catch (const TrainingError& error) {  // a parameter-server chief whose servers are lost before they hold the values
        return Error{error.what()};
    }
}

std::unique_ptr<Trainer> Trainer::create(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> workers) {
    if (config.strategy.usesGpus()) {
        Result<GpuPlan> plan = planGpuRunHere(config);
        if (!plan) throw TrainingError(plan.error().message);
        return makeGpuTrainer(config, std::move(data), std::move(*plan));
    }
    if (config.strategy.type == StrategyKind::ParameterServer) {
        // In processes the chief is the Trainer; its workers and servers run runParameterServerTask.
        if (workers) return std::make_unique<ClusterParameterServerTrainer>(config, std::move(data), std::move(workers));
        return std::make_unique<ParameterServerTrainer>(config, std::move(data));
    }
    if (config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel)
        return std::make_unique<PipelineTrainer>(config, std::move(data));
    if (config.strategy.type == StrategyKind::TensorParallel) return std::make_unique<TensorParallelTrainer>(config, std::move(data));
    return std::make_unique<MirroredTrainer>(config, std::move(data), std::move(workers));
}

}  // namespace distlab
