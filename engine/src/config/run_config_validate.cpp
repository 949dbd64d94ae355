// Range and cross-field rules of the run config, with messages that name the JSON path.
#include <distlab/config/run_config_json.hpp>

#include "config/run_config_json_reader.hpp"
#include "config/run_config_rules.hpp"
#include "distlab/config/layer_types.hpp"
#include "distlab/config/tensor_parallel_plan.hpp"

#include <cmath>
#include <limits>
#include <string_view>

namespace distlab {

using namespace run_config_detail;

namespace run_config_detail {
namespace {

// Names the spec lists for later versions: "not available yet" rather than "unknown".
constexpr std::array<std::string_view, 5> kLaterLayerTypes{"conv2d", "max_pool2d", "flatten", "dropout", "batch_norm"};
constexpr std::array<std::string_view, 7> kAllLayerTypes{"dense", "residual", "conv2d", "max_pool2d", "flatten", "dropout", "batch_norm"};

}  // namespace

std::string layerTypeProblem(const std::string& type) {
    if (findLayerType(type) != nullptr) return {};
    for (std::string_view later : kLaterLayerTypes) {
        if (type == later) return quotedJson(type) + " is not available yet in this version (available: " + layerTypeNames() + ")";
    }
    const std::string suggestion = closestName(type, kAllLayerTypes);
    return "unknown layer type " + quotedJson(type) + (suggestion.empty() ? "" : " (did you mean " + quotedJson(suggestion) + "?)") +
           "; available: " + layerTypeNames();
}

std::string precisionProblem(Precision precision) {
    if (precision == Precision::Float32) return {};
    return quotedJson(configName(precision)) + " is not available yet in this version (available: float32)";
}

}  // namespace run_config_detail

namespace {

std::string got(std::int64_t value) { return " (got " + std::to_string(value) + ")"; }
std::string got(double value) {
    // JSON has no spelling for inf and NaN (nlohmann writes null); a struct from the GUI may hold them.
    if (std::isnan(value)) return " (got nan)";
    if (std::isinf(value)) return value > 0 ? " (got inf)" : " (got -inf)";
    return " (got " + dumpJson(Json(value)) + ")";
}

void requireAtLeast(const std::string& file, const std::string& path, std::int64_t value, std::int64_t minimum) {
    if (value < minimum) fail(file, path, "must be an integer >= " + std::to_string(minimum) + got(value));
}

// Checks lower <= value (or lower < value) and value < upper (or value <= upper); NaN fails both.
void requireRange(const std::string& file, const std::string& path, double value, double lower, bool lowerOpen, double upper,
                  bool upperOpen, const std::string& range) {
    const bool aboveLower = lowerOpen ? value > lower : value >= lower;
    const bool belowUpper = upperOpen ? value < upper : value <= upper;
    if (!(aboveLower && belowUpper)) fail(file, path, "must be " + range + got(value));
}

void requireRange(const std::string& file, const std::string& path, std::int64_t value, std::int64_t low, std::int64_t high) {
    if (value < low || value > high)
        fail(file, path, "must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]" + got(value));
}

void validateLayers(const std::vector<LayerConfig>& layers, const std::string& listPath, const std::string& file) {
    if (layers.empty()) fail(file, listPath, "must list at least one layer");
    std::vector<std::string> names;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const LayerConfig& layer = layers[i];
        const std::string path = indexPath(listPath, i);
        if (const std::string problem = layerTypeProblem(layer.type); !problem.empty()) {
            fail(file, path + ".type", problem);
        }
        if (layerTypeOf(layer).takesInnerLayers) {
            validateLayers(layer.layers, path + ".layers", file);
            requireRange(file, path + ".branches", layer.branches, 1, kMaxResidualBranches);
        } else {
            requireRange(file, path + ".units", layer.units, 1, kMaxUnits);
        }
        if (layer.name.find('/') != std::string::npos) {
            fail(file, path + ".name", quotedJson(layer.name) + " must not contain '/' (it separates parameter names)");
        }
        // Parameter names derive from layer names, so two layers may not share one, default names included.
        const std::string name = layer.name.empty() ? layer.type + "_" + std::to_string(i) : layer.name;
        for (std::size_t j = 0; j < names.size(); ++j) {
            if (names[j] != name) continue;
            if (layer.name.empty()) {
                fail(file, path, "its default name " + quotedJson(name) + " is already the name of " + indexPath(listPath, j));
            }
            fail(file, path + ".name", quotedJson(name) + " is already the name of " + indexPath(listPath, j));
        }
        names.push_back(name);
    }
}

void validateModel(const ModelConfig& model, const std::string& file) { validateLayers(model.layers, "model.layers", file); }

void validateData(const DataConfig& data, const std::string& file) {
    requireAtLeast(file, "data.samples", data.samples, 1);
    requireRange(file, "data.noise", data.noise, 0.0, false, 1.0, false, "in [0, 1]");
    requireRange(file, "data.train_fraction", data.trainFraction, 0.0, true, 1.0, false, "in (0, 1]");
    requireAtLeast(file, "data.features", data.features, 1);
    requireAtLeast(file, "data.classes", data.classes, 1);
    requireAtLeast(file, "data.outputs", data.outputs, 0);
    requireAtLeast(file, "data.global_batch_size", data.globalBatchSize, 1);
    if (data.source == DataSource::Csv && data.path.empty()) {
        fail(file, "data.path", "required when data.source is \"csv\"");
    }
    if (data.source == DataSource::Idx) {
        if (data.images.empty()) fail(file, "data.images", "required when data.source is \"idx\"");
        if (data.labels.empty()) fail(file, "data.labels", "required when data.source is \"idx\"");
    }
    if (data.testImages.empty() != data.testLabels.empty()) {
        fail(file, data.testImages.empty() ? "data.test_images" : "data.test_labels",
             "required when " + std::string(data.testImages.empty() ? "data.test_labels" : "data.test_images") + " is given");
    }
}

void validateOptimizer(const OptimizerConfig& optimizer, const std::string& file) {
    const double infinity = std::numeric_limits<double>::infinity();
    requireRange(file, "optimizer.learning_rate", optimizer.learningRate, 0.0, true, infinity, true, "> 0");
    if (optimizer.type == OptimizerKind::Sgd) {
        requireRange(file, "optimizer.momentum", optimizer.momentum, 0.0, false, 1.0, true, "in [0, 1)");
    } else {
        requireRange(file, "optimizer.beta1", optimizer.beta1, 0.0, false, 1.0, true, "in [0, 1)");
        requireRange(file, "optimizer.beta2", optimizer.beta2, 0.0, false, 1.0, true, "in [0, 1)");
        requireRange(file, "optimizer.epsilon", optimizer.epsilon, 0.0, true, infinity, true, "> 0");
    }
}

void validateParameterServer(const StrategyConfig& strategy, const std::string& file) {
    requireRange(file, "strategy.workers", strategy.workers, 1, kMaxWorkers);
    requireRange(file, "strategy.parameter_servers", strategy.parameterServers, 1, kMaxParameterServers);
    requireRange(file, "strategy.replicas_per_worker", strategy.replicasPerWorker, 1, kMaxReplicasPerWorker);
    requireRange(file, "strategy.gradients_to_aggregate", strategy.gradientsToAggregate, 0, strategy.workers);
    if (strategy.gradientAccumulationSteps != 1)
        fail(file, "strategy.gradient_accumulation_steps", "parameter_server applies every gradient as it comes (use 1)");
    if (strategy.workerSpeed.size() > static_cast<std::size_t>(strategy.workers))
        fail(file, "strategy.worker_speed",
             std::to_string(strategy.workerSpeed.size()) + " speeds for " + std::to_string(strategy.workers) + " workers");
    for (std::size_t i = 0; i < strategy.workerSpeed.size(); ++i) {
        const double speed = strategy.workerSpeed[i];
        if (!(speed >= kMinWorkerSpeed && speed <= kMaxWorkerSpeed))
            fail(file, indexPath("strategy.worker_speed", i), "must be in [0.1, 1.0] (1 = full speed, 0.5 = twice as slow)");
    }
    const PartitionerConfig& partitioner = strategy.partitioner;
    if (partitioner.kind != PartitionerConfig::Kind::None) {
        requireAtLeast(file, "strategy.partitioner.num_shards", partitioner.numShards, 1);
        requireAtLeast(file, "strategy.partitioner.min_shard_bytes", partitioner.minShardBytes, 1);
        requireAtLeast(file, "strategy.partitioner.max_shards", partitioner.maxShards, 1);
        requireAtLeast(file, "strategy.partitioner.max_shard_bytes", partitioner.maxShardBytes, 1);
    }
}

// One strategy's replicas all run on one kind of device: a step waits for its slowest replica, and
// no reduction path joins host memory and GPU memory (docs/interfaces.md §1.7).
void validateDeviceKinds(const std::vector<DeviceName>& devices, const std::string& file) {
    for (std::size_t i = 1; i < devices.size(); ++i) {
        if (devices[i].kind == devices[0].kind) continue;
        fail(file, indexPath("strategy.devices", i),
             quotedJson(devices[i].toString()) + " mixes device kinds with " + quotedJson(devices[0].toString()) + " at " +
                 indexPath("strategy.devices", 0) +
                 ": list only cpu:K or only gpu:K devices (a step would wait for the slowest kind, and no "
                 "reduction joins host and GPU memory)");
    }
}

// How long a task in another process waits for a peer (multi_worker_mirrored, parameter servers in processes).
void validateTimeout(const StrategyConfig& strategy, const std::string& file) {
    requireRange(file, "strategy.timeout_seconds", strategy.timeoutSeconds, 0.1, false, kMaxTimeoutSeconds, false,
                 "in [0.1, " + std::to_string(static_cast<int>(kMaxTimeoutSeconds)) + "] seconds");
}

// The stages a pipeline's layers name: all or none, from 0 up by at most one a layer, p·v in all.
void validateStages(const RunConfig& config, std::int64_t stageCount, const std::string& file) {
    const std::vector<LayerConfig>& layers = config.model.layers;
    const auto named = std::count_if(layers.begin(), layers.end(), [](const LayerConfig& layer) { return layer.stage >= 0; });
    const auto count = static_cast<std::int64_t>(layers.size());
    if (named == 0) {
        if (count < stageCount)
            fail(file, "model.layers",
                 std::to_string(count) + (count == 1 ? " layer" : " layers") + " cannot fill " + std::to_string(stageCount) +
                     " pipeline stages (strategy.stages x strategy.virtual_stages): each stage needs at least one layer");
        return;
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::string path = indexPath("model.layers", i) + ".stage";
        const std::int64_t stage = layers[i].stage;
        if (stage < 0) fail(file, path, "missing: when one layer names its stage, every layer must");
        const std::int64_t previous = i == 0 ? -1 : layers[i - 1].stage;
        if (stage < previous || stage > previous + 1)
            fail(file, path,
                 "must be " +
                     (i == 0 ? std::string("0 (the first stage)")
                             : "the stage before it or the next one (" + std::to_string(previous) + " or " + std::to_string(previous + 1) +
                                   ")") +
                     got(stage));
    }
    if (layers.back().stage != stageCount - 1)
        fail(file, indexPath("model.layers", layers.size() - 1) + ".stage",
             "the last layer must be in the last of the " + std::to_string(stageCount) +
                 " stages (strategy.stages x strategy.virtual_stages)" + got(layers.back().stage));
}

// pipeline and model_parallel (docs/semantics.md §12): the stages, micro-batches and schedule.
void validatePipeline(const RunConfig& config, const std::string& file) {
    const StrategyConfig& strategy = config.strategy;
    const std::int64_t batch = config.data.globalBatchSize;
    requireRange(file, "strategy.micro_batches", strategy.microBatches, 1, std::min(batch, kMaxPipelinePasses));
    if (batch % strategy.microBatches != 0)
        fail(file, "strategy.micro_batches",
             "must divide data.global_batch_size (" + std::to_string(batch) + ") into equal micro-batches" + got(strategy.microBatches));
    for (std::size_t i = 0; i < config.model.layers.size(); ++i) {
        const std::optional<DeviceName>& device = config.model.layers[i].device;
        if (!device) continue;
        const std::string path = indexPath("model.layers", i) + ".device";
        if (device->kind != DeviceName::Kind::Cpu)
            fail(file, path, quotedJson(device->toString()) + ": model_parallel places layers on CPU devices in this version");
        if (device->index > kMaxDeviceIndex)
            fail(file, path,
                 "device index must be in [0, " + std::to_string(kMaxDeviceIndex) + "]" + got(static_cast<std::int64_t>(device->index)));
    }
    if (strategy.type == StrategyKind::ModelParallel) return;
    requireRange(file, "strategy.stages", strategy.stages, 1, kMaxPipelineStages);
    requireRange(file, "strategy.virtual_stages", strategy.virtualStages, 1, kMaxVirtualStages);
    if (strategy.tensorParallel != 1)
        fail(file, "strategy.tensor_parallel", "tensor parallelism is not available yet in this version (use 1)");
    requireRange(file, "strategy.data_parallel", strategy.dataParallel, 1, kMaxReplicas / strategy.stages);
    if (batch % (strategy.dataParallel * strategy.microBatches) != 0)
        fail(file, "strategy.micro_batches",
             "each of the " + std::to_string(strategy.dataParallel) + " data-parallel copies splits its " +
                 std::to_string(batch / strategy.dataParallel) + " examples of data.global_batch_size (" + std::to_string(batch) +
                 ") into micro_batches equal micro-batches: data_parallel x micro_batches must divide it" + got(strategy.microBatches));
    if (strategy.schedule == PipelineSchedule::ZeroBubbleH1 && 3 * strategy.microBatches > 2 * kMaxPipelinePasses)
        fail(file, "strategy.micro_batches",
             "the zb-h1 schedule runs three passes a micro-batch (F, B and W): at most " + std::to_string(2 * kMaxPipelinePasses / 3) +
                 " micro-batches (each pass is a span of the timeline)" + got(strategy.microBatches));
    if (strategy.schedule == PipelineSchedule::ZeroBubbleH1)
        for (std::size_t i = 0; i < config.model.layers.size(); ++i)
            if (!layerTypeOf(config.model.layers[i]).splitsBackward)
                fail(file, indexPath("model.layers", i) + ".type",
                     "the zb-h1 schedule splits each layer's backward into its input and weight gradients; a " +
                         quotedJson(config.model.layers[i].type) + " layer's does not split in this version (use dense layers, or 1f1b)");
    if (strategy.schedule == PipelineSchedule::Interleaved) {
        if (strategy.virtualStages < 2)
            fail(file, "strategy.virtual_stages",
                 "the interleaved schedule needs at least 2 model chunks a device" + got(strategy.virtualStages));
        if (strategy.microBatches % strategy.stages != 0)
            fail(file, "strategy.micro_batches",
                 "the interleaved schedule runs micro-batches in groups of strategy.stages (" + std::to_string(strategy.stages) +
                     "): use a multiple of it" + got(strategy.microBatches));
    } else if (strategy.virtualStages != 1) {
        fail(file, "strategy.virtual_stages",
             "only the interleaved schedule puts several model chunks on a device (use 1)" + got(strategy.virtualStages));
    }
    if (strategy.microBatches * strategy.virtualStages > kMaxPipelinePasses)
        fail(file, "strategy.micro_batches",
             "micro_batches x virtual_stages must be at most " + std::to_string(kMaxPipelinePasses) +
                 " (each pass is a span of the timeline)" + got(strategy.microBatches * strategy.virtualStages));
    validateStages(config, strategy.stages * strategy.virtualStages, file);
}

// tensor_parallel (docs/semantics.md §12.5): dp copies of tp devices, the model's dense layers
// split among each copy's devices.
void validateTensorParallel(const RunConfig& config, const std::string& file) {
    const StrategyConfig& strategy = config.strategy;
    requireRange(file, "strategy.tensor_parallel", strategy.tensorParallel, 1, kMaxTensorParallel);
    requireRange(file, "strategy.data_parallel", strategy.dataParallel, 1, kMaxReplicas / strategy.tensorParallel);
    if (config.data.globalBatchSize % strategy.dataParallel != 0)
        fail(file, "data.global_batch_size",
             std::to_string(config.data.globalBatchSize) + " does not divide among data_parallel " + std::to_string(strategy.dataParallel) +
                 " copies");
    if (static_cast<std::int64_t>(strategy.devices.size()) != strategy.dataParallel * strategy.tensorParallel)
        fail(file, "strategy.devices", "tensor_parallel's devices are data_parallel x tensor_parallel's (leave them out)");
    // Whether a layer splits depends on its type and units alone, not on the input's width.
    if (auto plan = planTensorParallel(config.model, 1, strategy.tensorParallel); !plan) {
        const std::string& message = plan.error().message;
        const auto colon = message.find(": ");
        fail(file, message.substr(0, colon), message.substr(colon + 2));
    }
}

void validateStrategy(const StrategyConfig& strategy, const std::string& file) {
    // An empty list means {cpu:0} (run_config.hpp), so only the listed devices need checking.
    const auto count = static_cast<std::int64_t>(strategy.devices.size());
    if (count > kMaxReplicas) {
        fail(file, "strategy.devices", "at most " + std::to_string(kMaxReplicas) + " devices" + got(count));
    }
    for (std::size_t i = 0; i < strategy.devices.size(); ++i) {
        const DeviceName& device = strategy.devices[i];
        const std::string path = indexPath("strategy.devices", i);
        if (device.index < 0 || device.index > kMaxDeviceIndex) {
            fail(file, path,
                 "device index must be in [0, " + std::to_string(kMaxDeviceIndex) + "]" + got(static_cast<std::int64_t>(device.index)));
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (strategy.devices[j] == device) {
                fail(file, path, quotedJson(device.toString()) + " is listed twice (also at " + indexPath("strategy.devices", j) + ")");
            }
        }
    }
    validateDeviceKinds(strategy.devices, file);
    requireRange(file, "strategy.gpu.logical_per_physical", strategy.gpu.logicalPerPhysical, 1, kMaxLogicalPerPhysical);
    requireRange(file, "strategy.gpu.memory_limit_mb", strategy.gpu.memoryLimitMb, 0, kMaxGpuMemoryLimitMb);
    if (strategy.type == StrategyKind::OneDevice && count > 1) {
        fail(file, "strategy.devices", "one_device runs on exactly one device (got " + std::to_string(count) + ")");
    }
    requireAtLeast(file, "strategy.num_packs", strategy.numPacks, 1);
    requireAtLeast(file, "strategy.bytes_per_pack", strategy.bytesPerPack, 0);
    if (strategy.bytesPerPack > 0 && strategy.numPacks > 1) {
        fail(file, "strategy.bytes_per_pack", "give either strategy.num_packs or strategy.bytes_per_pack, not both");
    }
    requireAtLeast(file, "strategy.gradient_accumulation_steps", strategy.gradientAccumulationSteps, 1);
    if (strategy.type == StrategyKind::ParameterServer) validateParameterServer(strategy, file);
    if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        validateTimeout(strategy, file);
        if (strategy.usesGpus()) fail(file, "strategy.local_replicas", "multi_worker_mirrored runs its local replicas on CPU devices");
    }
}

// Parameter servers in processes (docs/cluster.md): a chief that coordinates, as TensorFlow's
// ClusterCoordinator, the workers and servers the strategy counts, and nothing that only threads of
// one process can do.
void validateParameterServerCluster(const RunConfig& config, const std::string& file) {
    const ClusterSpec& cluster = config.cluster;
    const StrategyConfig& strategy = config.strategy;
    if (cluster.chief.empty())
        fail(file, "cluster.chief", "a parameter_server run in processes needs a chief: it coordinates the workers and the servers");
    if (cluster.worker.empty()) fail(file, "cluster.worker", "must list at least one worker");
    if (cluster.ps.empty()) fail(file, "cluster.ps", "must list at least one parameter server");
    const auto workers = static_cast<std::int64_t>(cluster.worker.size()), servers = static_cast<std::int64_t>(cluster.ps.size());
    if (strategy.workers != workers)
        fail(file, "strategy.workers",
             "must equal the workers cluster.worker lists (" + std::to_string(workers) + ")" + got(strategy.workers));
    if (strategy.parameterServers != servers)
        fail(file, "strategy.parameter_servers",
             "must equal the servers cluster.ps lists (" + std::to_string(servers) + ")" + got(strategy.parameterServers));
    validateTimeout(strategy, file);
}

// Tasks in other processes: multi_worker_mirrored's workers, or a parameter-server run's chief,
// workers and servers.
void validateCluster(const RunConfig& config, const std::string& file) {
    const ClusterSpec& cluster = config.cluster;
    if (cluster.empty()) return;
    if (config.strategy.type == StrategyKind::ParameterServer) {
        validateParameterServerCluster(config, file);
        return;
    }
    if (config.strategy.type != StrategyKind::MultiWorkerMirrored)
        fail(file, "cluster",
             "tasks in several processes run multi_worker_mirrored or parameter_server (strategy.type is " +
                 quotedJson(configName(config.strategy.type)) + ")");
    if (!cluster.ps.empty()) fail(file, "cluster.ps", "multi_worker_mirrored has no parameter servers");
    if (cluster.chief.size() + cluster.worker.size() == 0) fail(file, "cluster.worker", "must list at least one worker");
    if (cluster.workerCount() > kMaxWorkers)
        fail(file, "cluster.worker", "at most " + std::to_string(kMaxWorkers) + " workers" + got(cluster.workerCount()));
}

void validateBatchSplit(const RunConfig& config, const std::string& file) {
    // A parameter-server worker splits its own batch among its replicas.
    const StrategyKind type = config.strategy.type;
    if (type == StrategyKind::Pipeline || type == StrategyKind::ModelParallel) return;  // micro-batches, checked with the pipeline
    if (type == StrategyKind::TensorParallel) return;  // a copy's devices share its shard: checked with tensor parallelism
    const std::int64_t replicas = type == StrategyKind::ParameterServer ? config.strategy.replicasPerWorker : config.globalReplicaCount();
    const std::int64_t steps = config.strategy.gradientAccumulationSteps;
    const std::int64_t batch = config.data.globalBatchSize;
    // replicas * steps may overflow; then it exceeds any batch, which cannot divide.
    const bool divides = steps <= batch / replicas && batch % (replicas * steps) == 0;
    if (!divides) {
        fail(file, "data.global_batch_size",
             std::to_string(batch) + " does not divide among " + std::to_string(replicas) + " replica" + (replicas == 1 ? "" : "s") +
                 " x " + std::to_string(steps) + " accumulation steps");
    }
}

}  // namespace

Status validateRunConfig(const RunConfig& config, const std::string& fileName) {
    return captureErrors([&]() -> Ok {
        if (config.name.empty()) fail(fileName, "name", "must not be empty");
        validateModel(config.model, fileName);
        validateData(config.data, fileName);
        validateOptimizer(config.optimizer, fileName);
        // A split model's devices come from its layers: their errors first, by the layers' paths.
        if (config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel) {
            validatePipeline(config, fileName);
            if (config.strategy.devices != pipelineDevices(config))
                fail(fileName, "strategy.devices",
                     "a pipeline's devices are its stages', a model_parallel run's its layers' (leave them out)");
        }
        if (config.strategy.type == StrategyKind::TensorParallel) validateTensorParallel(config, fileName);
        validateStrategy(config.strategy, fileName);
        validateCluster(config, fileName);
        if (const std::string problem = precisionProblem(config.precision); !problem.empty()) {
            fail(fileName, "precision", problem);
        }
        if (config.clock == ClockMode::Virtual && config.strategy.type != StrategyKind::Pipeline &&
            config.strategy.type != StrategyKind::ModelParallel)
            fail(fileName, "clock",
                 "\"virtual\" is not available yet for " + quotedJson(configName(config.strategy.type)) +
                     " in this version (available for pipeline and model_parallel)");
        requireAtLeast(fileName, "steps", config.steps, 0);
        requireRange(fileName, "threads", config.threads, 0, kMaxThreads);
        requireAtLeast(fileName, "eval_every", config.evalEvery, 0);
        validateBatchSplit(config, fileName);
        return Ok{};
    });
}

}  // namespace distlab
