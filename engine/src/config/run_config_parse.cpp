// JSON -> RunConfig: keys, types and names here; ranges and cross-field rules in run_config_validate.cpp.
#include <distlab/config/run_config_json.hpp>

#include "config/run_config_json_reader.hpp"
#include "config/cluster_parse.hpp"
#include "config/run_config_rules.hpp"

#include <filesystem>
#include <system_error>

#include "distlab/files/input_file.hpp"
#include "distlab/config/layer_types.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

DeviceName parseDevice(const Json& value, const std::string& path, const std::string& file) {
    const std::string text = readString(value, path, file);
    DeviceName device;
    if (!parseDeviceName(text, device))
        fail(file, path, quotedJson(text) + " is not a device name (expected \"cpu:K\" or \"gpu:K\", K >= 0)");
    return device;
}

// A model's own layers may say where they run (model_parallel) and in which stage (pipeline);
// a block's inner layers run where their block does.
void parsePlacement(const ObjectReader& reader, LayerConfig& layer) {
    if (const Json* device = reader.find("device")) layer.device = parseDevice(*device, reader.pathOf("device"), reader.fileName());
    layer.stage = reader.integer("stage", layer.stage);
}

LayerConfig parseLayer(const Json& value, const std::string& path, const std::string& file, bool topLevel) {
    const ObjectReader reader(value, path, file);
    LayerConfig layer;

    // The type decides which keys a layer takes, so it is checked before them.
    layer.type = reader.string("type", layer.type);
    if (const std::string problem = layerTypeProblem(layer.type); !problem.empty()) reader.fail("type", problem);
    if (layerTypeOf(layer).takesInnerLayers) {
        if (topLevel)
            reader.allowOnly({"type", "layers", "branches", "name", "device", "stage"});
        else
            reader.allowOnly({"type", "layers", "branches", "name"});
        const Json* inner = reader.find("layers");
        if (inner == nullptr) reader.fail("layers", "required key is missing (a residual block needs its inner layers)");
        if (!inner->is_array()) reader.fail("layers", "must be an array (got " + describeType(*inner) + ")");
        if (inner->empty()) reader.fail("layers", "must list at least one layer");
        for (std::size_t i = 0; i < inner->size(); ++i)
            layer.layers.push_back(parseLayer((*inner)[i], indexPath(reader.pathOf("layers"), i), file, false));
        layer.branches = reader.integer("branches", layer.branches);
        layer.name = reader.string("name", layer.name);
        if (topLevel) parsePlacement(reader, layer);
        return layer;
    }
    if (topLevel)
        reader.allowOnly({"type", "units", "activation", "name", "device", "stage"});
    else
        reader.allowOnly({"type", "units", "activation", "name"});
    if (!reader.has("units")) reader.fail("units", "required key is missing (a dense layer needs units >= 1)");
    layer.units = reader.integer("units", layer.units);
    layer.activation = reader.choice("activation", layer.activation, kActivationNames);
    layer.name = reader.string("name", layer.name);
    if (topLevel) parsePlacement(reader, layer);
    return layer;
}

ModelConfig parseModel(const ObjectReader& reader) {
    reader.allowOnly({"layers", "loss", "init", "aggregation_method"});
    ModelConfig model;
    model.aggregationMethod = reader.choice("aggregation_method", model.aggregationMethod, kAggregationMethodNames);
    const Json* layers = reader.find("layers");
    if (layers == nullptr) reader.fail("layers", "required key is missing (the model needs at least one layer)");
    if (!layers->is_array()) reader.fail("layers", "must be an array (got " + describeType(*layers) + ")");
    if (layers->empty()) reader.fail("layers", "must list at least one layer");
    for (std::size_t i = 0; i < layers->size(); ++i) {
        model.layers.push_back(parseLayer((*layers)[i], indexPath(reader.pathOf("layers"), i), reader.fileName(), true));
    }
    model.loss = reader.choice("loss", model.loss, kLossNames);
    model.init = reader.choice("init", model.init, kInitNames);
    return model;
}

DataConfig parseData(const ObjectReader& reader) {
    // Every source's keys are accepted whatever the source (the GUI keeps them all when switching).
    reader.allowOnly({"source", "kind", "samples", "noise", "train_fraction", "path", "test_path", "label_column", "images", "labels",
                      "test_images", "test_labels", "features", "classes", "outputs", "shuffle", "global_batch_size"});
    DataConfig data;
    data.source = reader.choice("source", data.source, kDataSourceNames);
    data.kind = reader.choice("kind", data.kind, kSyntheticKindNames);
    data.samples = reader.integer("samples", data.samples);
    data.noise = reader.number("noise", data.noise);
    data.trainFraction = reader.number("train_fraction", data.trainFraction);
    data.path = reader.string("path", data.path);
    data.testPath = reader.string("test_path", data.testPath);
    data.labelColumn = reader.integer("label_column", data.labelColumn);
    data.images = reader.string("images", data.images);
    data.labels = reader.string("labels", data.labels);
    data.testImages = reader.string("test_images", data.testImages);
    data.testLabels = reader.string("test_labels", data.testLabels);
    data.features = reader.integer("features", data.features);
    data.classes = reader.integer("classes", data.classes);
    data.outputs = reader.integer("outputs", data.outputs);
    data.shuffle = reader.boolean("shuffle", data.shuffle);
    data.globalBatchSize = reader.integer("global_batch_size", data.globalBatchSize);
    return data;
}

OptimizerConfig parseOptimizer(const ObjectReader& reader) {
    OptimizerConfig optimizer;
    optimizer.type = reader.choice("type", optimizer.type, kOptimizerNames);
    reader.allowOnly({"type", "learning_rate", "momentum", "nesterov", "beta1", "beta2", "epsilon"});
    const bool sgd = optimizer.type == OptimizerKind::Sgd;
    for (std::string_view key : {"momentum", "nesterov", "beta1", "beta2", "epsilon"}) {
        const bool sgdKey = key == "momentum" || key == "nesterov";
        if (reader.has(key) && sgdKey != sgd) {
            reader.fail(key, std::string("only used by ") + (sgdKey ? "sgd" : "adam") + " (optimizer.type is " +
                                 quotedJson(configName(optimizer.type)) + ")");
        }
    }
    optimizer.learningRate = reader.number("learning_rate", optimizer.learningRate);
    optimizer.momentum = reader.number("momentum", optimizer.momentum);
    optimizer.nesterov = reader.boolean("nesterov", optimizer.nesterov);
    optimizer.beta1 = reader.number("beta1", optimizer.beta1);
    optimizer.beta2 = reader.number("beta2", optimizer.beta2);
    optimizer.epsilon = reader.number("epsilon", optimizer.epsilon);
    return optimizer;
}

std::vector<DeviceName> parseDevices(const Json& value, const std::string& path, const std::string& file) {
    if (!value.is_array()) fail(file, path, "must be an array of device names (got " + describeType(value) + ")");
    if (value.empty()) fail(file, path, "must list at least one device (leave it out for [\"cpu:0\"])");
    if (value.size() > static_cast<std::size_t>(kMaxReplicas)) {
        fail(file, path, "at most " + std::to_string(kMaxReplicas) + " devices (got " + std::to_string(value.size()) + ")");
    }
    std::vector<DeviceName> devices;
    for (std::size_t i = 0; i < value.size(); ++i) devices.push_back(parseDevice(value[i], indexPath(path, i), file));
    return devices;
}

PartitionerConfig parsePartitioner(const ObjectReader& reader) {
    PartitionerConfig partitioner;
    reader.allowOnly({"type", "num_shards", "min_shard_bytes", "max_shards", "max_shard_bytes"});
    if (!reader.has("type")) reader.fail("type", "missing (one of \"fixed\", \"min_size\", \"max_size\")");
    partitioner.kind = reader.choice("type", PartitionerConfig::Kind::Fixed, kPartitionerNames);
    partitioner.numShards = reader.integer("num_shards", partitioner.numShards);
    partitioner.minShardBytes = reader.integer("min_shard_bytes", partitioner.minShardBytes);
    partitioner.maxShards = reader.integer("max_shards", partitioner.maxShards);
    partitioner.maxShardBytes = reader.integer("max_shard_bytes", partitioner.maxShardBytes);
    return partitioner;
}

// strategy.gpu: how physical GPUs are carved into logical ones (docs/interfaces.md §1.7).
GpuCarving parseGpuCarving(const ObjectReader& reader) {
    GpuCarving carving;
    reader.allowOnly({"logical_per_physical", "memory_limit_mb"});
    carving.logicalPerPhysical = reader.integer("logical_per_physical", carving.logicalPerPhysical);
    carving.memoryLimitMb = reader.integer("memory_limit_mb", carving.memoryLimitMb);
    return carving;
}

// The keys of the parameter_server strategy (docs/semantics.md §6).
void parseParameterServerKeys(const ObjectReader& reader, StrategyConfig& strategy) {
    strategy.workers = reader.integer("workers", strategy.workers);
    strategy.parameterServers = reader.integer("parameter_servers", strategy.parameterServers);
    strategy.mode = reader.choice("mode", strategy.mode, kParameterServerModeNames);
    strategy.replicasPerWorker = reader.integer("replicas_per_worker", strategy.replicasPerWorker);
    strategy.gradientsToAggregate = reader.integer("gradients_to_aggregate", strategy.gradientsToAggregate);
    strategy.timeoutSeconds = reader.number("timeout_seconds", strategy.timeoutSeconds);  // tasks in processes (docs/cluster.md)
    if (const Json* partitioner = reader.find("partitioner")) {
        if (!partitioner->is_object()) reader.fail("partitioner", "must be an object (got " + describeType(*partitioner) + ")");
        strategy.partitioner = parsePartitioner(ObjectReader(*partitioner, reader.pathOf("partitioner"), reader.fileName()));
    }
    if (const Json* speeds = reader.find("worker_speed")) {
        if (!speeds->is_array()) reader.fail("worker_speed", "must be an array of numbers (got " + describeType(*speeds) + ")");
        for (std::size_t i = 0; i < speeds->size(); ++i)
            strategy.workerSpeed.push_back(readNumber((*speeds)[i], indexPath(reader.pathOf("worker_speed"), i), reader.fileName()));
    }
}

StrategyConfig parseStrategy(const ObjectReader& reader) {
    StrategyConfig strategy;
    strategy.type = reader.choice("type", strategy.type, kStrategyNames);
    if (strategy.type == StrategyKind::ParameterServer) {
        reader.allowOnly({"type", "devices", "replicas", "cross_device_ops", "num_packs", "bytes_per_pack", "gradient_accumulation_steps",
                          "workers", "parameter_servers", "mode", "partitioner", "worker_speed", "replicas_per_worker",
                          "gradients_to_aggregate", "timeout_seconds"});
        parseParameterServerKeys(reader, strategy);
    } else if (strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel) {
        // The devices come from the stages or the layers (pipelineDevices, once the model is read).
        const bool pipeline = strategy.type == StrategyKind::Pipeline;
        if (pipeline)
            reader.allowOnly({"type", "stages", "micro_batches", "schedule", "virtual_stages", "tensor_parallel", "data_parallel",
                              "cross_device_ops", "balance"});
        else
            reader.allowOnly({"type", "micro_batches"});
        strategy.stages = reader.integer("stages", strategy.stages);
        // A pipeline without micro-batches is one device at a time; four keeps p = 2's bubble at a fifth.
        strategy.microBatches = reader.integer("micro_batches", pipeline ? 4 : 1);
        strategy.schedule = reader.choice("schedule", strategy.schedule, kPipelineScheduleNames);
        strategy.virtualStages = reader.integer("virtual_stages", strategy.virtualStages);
        strategy.tensorParallel = reader.integer("tensor_parallel", strategy.tensorParallel);
        strategy.dataParallel = reader.integer("data_parallel", strategy.dataParallel);
        // How the data-parallel copies all-reduce each stage's gradients.
        if (pipeline) strategy.crossDeviceOps = reader.choice("cross_device_ops", strategy.crossDeviceOps, kCrossDeviceOpsNames);
        if (pipeline) strategy.balance = reader.choice("balance", strategy.balance, kStageBalanceNames);
        return strategy;
    } else if (strategy.type == StrategyKind::TensorParallel) {
        // Its devices are cpu:0 .. cpu:dp·tp-1: copy c's tensor-parallel rank d is cpu:c·tp+d.
        reader.allowOnly({"type", "tensor_parallel", "data_parallel", "cross_device_ops"});
        strategy.tensorParallel = reader.integer("tensor_parallel", 2);
        if (strategy.tensorParallel < 1 || strategy.tensorParallel > kMaxTensorParallel)
            reader.fail("tensor_parallel", "must be an integer in [1, " + std::to_string(kMaxTensorParallel) + "] (got " +
                                               std::to_string(strategy.tensorParallel) + ")");
        strategy.dataParallel = reader.integer("data_parallel", strategy.dataParallel);
        if (strategy.dataParallel < 1 || strategy.dataParallel > kMaxReplicas / strategy.tensorParallel)
            reader.fail("data_parallel", "must be an integer in [1, " + std::to_string(kMaxReplicas / strategy.tensorParallel) +
                                             "]: data_parallel x tensor_parallel devices, at most " + std::to_string(kMaxReplicas) +
                                             " (got " + std::to_string(strategy.dataParallel) + ")");
        for (std::int64_t i = 0; i < strategy.dataParallel * strategy.tensorParallel; ++i)
            strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, static_cast<int>(i)});
        strategy.crossDeviceOps = reader.choice("cross_device_ops", strategy.crossDeviceOps, kCrossDeviceOpsNames);
        return strategy;
    } else if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        // One worker's replicas are `local_replicas` logical CPU devices (TensorFlow places them on
        // the worker's own devices); the workers come from the cluster.
        reader.allowOnly({"type", "local_replicas", "communication", "timeout_seconds", "cross_device_ops", "num_packs", "bytes_per_pack",
                          "gradient_accumulation_steps"});
        const std::int64_t local = reader.integer("local_replicas", 1);
        if (local < 1 || local > kMaxReplicas)
            reader.fail("local_replicas",
                        "must be an integer in [1, " + std::to_string(kMaxReplicas) + "] (got " + std::to_string(local) + ")");
        for (std::int64_t i = 0; i < local; ++i) strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, static_cast<int>(i)});
        strategy.communication = reader.choice("communication", strategy.communication, kCollectiveImplementationNames);
        strategy.timeoutSeconds = reader.number("timeout_seconds", strategy.timeoutSeconds);
    } else {
        reader.allowOnly(
            {"type", "devices", "replicas", "cross_device_ops", "num_packs", "bytes_per_pack", "gradient_accumulation_steps", "gpu"});
        if (const Json* gpu = reader.find("gpu")) {
            if (!gpu->is_object()) reader.fail("gpu", "must be an object (got " + describeType(*gpu) + ")");
            strategy.gpu = parseGpuCarving(ObjectReader(*gpu, reader.pathOf("gpu"), reader.fileName()));
        }
    }
    if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        // devices came from local_replicas
    } else if (reader.has("devices") && reader.has("replicas")) {
        reader.fail("replicas", "give either strategy.devices or strategy.replicas, not both");
    } else if (const Json* devices = reader.find("devices")) {
        strategy.devices = parseDevices(*devices, reader.pathOf("devices"), reader.fileName());
    } else if (reader.has("replicas")) {
        const std::int64_t replicas = reader.integer("replicas", 1);
        if (replicas < 1 || replicas > kMaxReplicas) {
            reader.fail("replicas",
                        "must be an integer in [1, " + std::to_string(kMaxReplicas) + "] (got " + std::to_string(replicas) + ")");
        }
        if (strategy.type == StrategyKind::OneDevice && replicas > 1) {
            reader.fail("replicas", "one_device runs on exactly one device (got " + std::to_string(replicas) + ")");
        }
        for (std::int64_t i = 0; i < replicas; ++i) {
            strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, static_cast<int>(i)});
        }
    } else {
        strategy.devices = {DeviceName{}};  // cpu:0
    }
    strategy.crossDeviceOps = reader.choice("cross_device_ops", strategy.crossDeviceOps, kCrossDeviceOpsNames);
    strategy.numPacks = reader.integer("num_packs", strategy.numPacks);
    strategy.bytesPerPack = reader.integer("bytes_per_pack", strategy.bytesPerPack);
    strategy.gradientAccumulationSteps = reader.integer("gradient_accumulation_steps", strategy.gradientAccumulationSteps);
    return strategy;
}

RunConfig parseRoot(const Json& document, const std::string& file) {
    const ObjectReader reader(document, "", file);
    reader.allowOnly(
        {"name", "seed", "model", "data", "optimizer", "strategy", "cluster", "precision", "clock", "steps", "threads", "eval_every"});
    RunConfig config;
    config.name = reader.string("name", config.name);
    config.seed = reader.unsignedInteger("seed", config.seed);
    const Json* model = reader.find("model");
    if (model == nullptr) reader.fail("model", "required key is missing (the model needs at least one layer)");
    config.model = parseModel(ObjectReader(*model, "model", file));
    if (const Json* data = reader.find("data")) config.data = parseData(ObjectReader(*data, "data", file));
    if (const Json* optimizer = reader.find("optimizer")) {
        config.optimizer = parseOptimizer(ObjectReader(*optimizer, "optimizer", file));
    }
    if (const Json* strategy = reader.find("strategy")) {
        config.strategy = parseStrategy(ObjectReader(*strategy, "strategy", file));
    } else {
        config.strategy.devices = {DeviceName{}};  // cpu:0, as when the strategy object lists none
    }
    if (config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel)
        config.strategy.devices = pipelineDevices(config);
    if (const Json* cluster = reader.find("cluster")) config.cluster = parseClusterSpec(ObjectReader(*cluster, "cluster", file));
    config.precision = reader.choice("precision", config.precision, kPrecisionNames);
    if (const std::string problem = precisionProblem(config.precision); !problem.empty()) {
        reader.fail("precision", problem);
    }
    config.clock = reader.choice("clock", config.clock, kClockNames);
    config.steps = reader.integer("steps", config.steps);
    config.threads = reader.integer("threads", config.threads);
    config.evalEvery = reader.integer("eval_every", config.evalEvery);
    return config;
}

}  // namespace

Result<RunConfig> parseRunConfig(std::string_view jsonText, const std::string& fileName) {
    Result<RunConfig> parsed = captureErrors([&] { return parseRoot(parseJsonDocument(jsonText, fileName), fileName); });
    if (!parsed) return parsed;
    if (Status valid = validateRunConfig(*parsed, fileName); !valid) return valid.error();
    return parsed;
}

Result<RunConfig> loadRunConfig(const std::string& path, const std::vector<std::string>& overrides, const std::string& field) {
    auto text = readInputFile(InputKind::Config, {field, path, {}});
    if (!text) return text.error();
    if (!overrides.empty()) {
        text = applyOverrides(*text, overrides, path);
        if (!text) return text.error();
    }
    Result<RunConfig> config = parseRunConfig(*text, path);
    if (!config) return config;
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(std::filesystem::path(path), error);
    config->baseDirectory = (error ? std::filesystem::path(path) : absolute).parent_path().lexically_normal().string();
    return config;
}

}  // namespace distlab
