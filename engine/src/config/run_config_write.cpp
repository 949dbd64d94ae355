// RunConfig -> JSON in the spec's key order; parseRunConfig reads it back to an equal struct.
#include <distlab/config/run_config_json.hpp>

#include "config/run_config_json_reader.hpp"
#include "distlab/config/layer_types.hpp"

namespace distlab {

using namespace run_config_detail;

namespace {

Json layersJson(const std::vector<LayerConfig>& layers) {
    Json json = Json::array();
    for (const LayerConfig& layer : layers) {
        Json item = Json::object();
        item["type"] = layer.type;
        if (const LayerType* type = findLayerType(layer.type); type != nullptr && type->takesInnerLayers) {
            item["layers"] = layersJson(layer.layers);
            item["branches"] = layer.branches;
        } else {
            item["units"] = layer.units;
            item["activation"] = configName(layer.activation);
        }
        if (!layer.name.empty()) item["name"] = layer.name;  // empty means the default "<type>_<index>"
        if (layer.device) item["device"] = layer.device->toString();
        if (layer.stage >= 0) item["stage"] = layer.stage;
        json.push_back(std::move(item));
    }
    return json;
}

Json modelJson(const ModelConfig& model) {
    Json json = Json::object();
    json["layers"] = layersJson(model.layers);
    if (model.aggregationMethod != AggregationMethod::AddN)
        json["aggregation_method"] = nameOf(kAggregationMethodNames, model.aggregationMethod);
    json["loss"] = configName(model.loss);
    json["init"] = configName(model.init);
    return json;
}

Json dataJson(const DataConfig& data) {
    // Only the keys the source reads (docs/interfaces.md §1.11): no "path": "" for synthetic data,
    // no label_column unless CSV. The app keeps the other sources' values in memory, not in files.
    Json json = Json::object();
    json["source"] = configName(data.source);
    switch (data.source) {
        case DataSource::Synthetic:
            json["kind"] = configName(data.kind);
            json["samples"] = data.samples;
            json["noise"] = data.noise;
            json["train_fraction"] = data.trainFraction;
            break;
        case DataSource::Csv:
            json["path"] = data.path;
            if (!data.testPath.empty()) json["test_path"] = data.testPath;
            json["label_column"] = data.labelColumn;
            break;
        case DataSource::Idx:
            json["images"] = data.images;
            json["labels"] = data.labels;
            if (!data.testImages.empty() || !data.testLabels.empty()) {
                json["test_images"] = data.testImages;
                json["test_labels"] = data.testLabels;
            }
            break;
        case DataSource::FashionMnist:
            break;
        case DataSource::Random:
            json["samples"] = data.samples;
            json["features"] = data.features;
            json["classes"] = data.classes;
            json["outputs"] = data.outputs;
            break;
    }
    json["shuffle"] = data.shuffle;
    json["global_batch_size"] = data.globalBatchSize;
    return json;
}

Json optimizerJson(const OptimizerConfig& optimizer) {
    // Only the type's own keys: the parser rejects momentum for adam and beta1 for sgd.
    Json json = Json::object();
    json["type"] = configName(optimizer.type);
    json["learning_rate"] = optimizer.learningRate;
    if (optimizer.type == OptimizerKind::Sgd) {
        json["momentum"] = optimizer.momentum;
        json["nesterov"] = optimizer.nesterov;
    } else {
        json["beta1"] = optimizer.beta1;
        json["beta2"] = optimizer.beta2;
        json["epsilon"] = optimizer.epsilon;
    }
    return json;
}

Json partitionerJson(const PartitionerConfig& partitioner) {
    // Only the kind's own keys (docs/interfaces.md §1.8).
    Json part = Json::object();
    part["type"] = nameOf(kPartitionerNames, partitioner.kind);
    switch (partitioner.kind) {
        case PartitionerConfig::Kind::Fixed:
            part["num_shards"] = partitioner.numShards;
            break;
        case PartitionerConfig::Kind::MinSize:
            part["min_shard_bytes"] = partitioner.minShardBytes;
            part["max_shards"] = partitioner.maxShards;
            break;
        case PartitionerConfig::Kind::MaxSize:
            part["max_shards"] = partitioner.maxShards;
            part["max_shard_bytes"] = partitioner.maxShardBytes;
            break;
        case PartitionerConfig::Kind::None:
            break;
    }
    return part;
}

Json strategyJson(const StrategyConfig& strategy) {
    Json json = Json::object();
    json["type"] = configName(strategy.type);
    if (strategy.type == StrategyKind::ParameterServer) {
        // The lanes are the workers: devices, packing and accumulation are not used (docs/interfaces.md §1.8);
        // cross_device_ops only inside a worker with several replicas.
        json["workers"] = strategy.workers;
        json["parameter_servers"] = strategy.parameterServers;
        json["mode"] = nameOf(kParameterServerModeNames, strategy.mode);
        json["replicas_per_worker"] = strategy.replicasPerWorker;
        if (strategy.replicasPerWorker > 1) json["cross_device_ops"] = configName(strategy.crossDeviceOps);
        if (strategy.mode == ParameterServerMode::Sync) json["gradients_to_aggregate"] = strategy.gradientsToAggregate;
        if (!strategy.workerSpeed.empty()) json["worker_speed"] = strategy.workerSpeed;
        if (strategy.partitioner.kind != PartitionerConfig::Kind::None) json["partitioner"] = partitionerJson(strategy.partitioner);
        // Only tasks in processes wait for peers; a run on threads keeps its written form.
        if (strategy.timeoutSeconds != StrategyConfig{}.timeoutSeconds) json["timeout_seconds"] = strategy.timeoutSeconds;
        return json;
    }
    if (strategy.type == StrategyKind::Pipeline) {  // the devices are the stages' (pipelineDevices)
        json["stages"] = strategy.stages;
        json["micro_batches"] = strategy.microBatches;
        json["schedule"] = configName(strategy.schedule);
        json["virtual_stages"] = strategy.virtualStages;
        json["tensor_parallel"] = strategy.tensorParallel;
        json["data_parallel"] = strategy.dataParallel;
        if (strategy.dataParallel > 1) json["cross_device_ops"] = configName(strategy.crossDeviceOps);
        if (strategy.balance != StageBalance::MultiplyAccumulates) json["balance"] = configName(strategy.balance);
        return json;
    }
    if (strategy.type == StrategyKind::ModelParallel) {  // the devices are the layers' (pipelineDevices)
        json["micro_batches"] = strategy.microBatches;
        return json;
    }
    if (strategy.type == StrategyKind::TensorParallel) {  // the devices are cpu:0 .. cpu:tp-1
        json["tensor_parallel"] = strategy.tensorParallel;
        json["data_parallel"] = strategy.dataParallel;
        json["cross_device_ops"] = configName(strategy.crossDeviceOps);
        return json;
    }
    if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        // The local replicas are cpu:0..N-1 (parseStrategy), written as their count.
        json["local_replicas"] = strategy.replicaCount();
        json["communication"] = nameOf(kCollectiveImplementationNames, strategy.communication);
        json["timeout_seconds"] = strategy.timeoutSeconds;
        json["cross_device_ops"] = configName(strategy.crossDeviceOps);
        json["num_packs"] = strategy.numPacks;
        if (strategy.bytesPerPack > 0) json["bytes_per_pack"] = strategy.bytesPerPack;
        json["gradient_accumulation_steps"] = strategy.gradientAccumulationSteps;
        return json;
    }
    Json devices = Json::array();
    for (const DeviceName& device : strategy.devices) devices.push_back(device.toString());
    if (devices.empty()) devices.push_back(DeviceName{}.toString());  // empty means cpu:0
    json["devices"] = std::move(devices);
    if (strategy.type != StrategyKind::OneDevice) {  // one device reduces nothing
        json["cross_device_ops"] = configName(strategy.crossDeviceOps);
        json["num_packs"] = strategy.numPacks;
        if (strategy.bytesPerPack > 0) json["bytes_per_pack"] = strategy.bytesPerPack;
    }
    json["gradient_accumulation_steps"] = strategy.gradientAccumulationSteps;
    if (strategy.usesGpus()) {  // the carving means nothing to cpu:K devices
        json["gpu"] = Json{{"logical_per_physical", strategy.gpu.logicalPerPhysical}, {"memory_limit_mb", strategy.gpu.memoryLimitMb}};
    }
    return json;
}

}  // namespace

RunConfig withUnusedKeysReset(const RunConfig& config) {
    // Mirrors what the writer leaves out: those fields read back as their defaults.
    RunConfig used = config;
    const DataConfig defaults;
    DataConfig& data = used.data;
    const DataSource source = data.source;
    if (source != DataSource::Synthetic) {
        data.kind = defaults.kind;
        data.noise = defaults.noise;
        data.trainFraction = defaults.trainFraction;
    }
    if (source != DataSource::Synthetic && source != DataSource::Random) data.samples = defaults.samples;
    if (source != DataSource::Csv) {
        data.path = defaults.path;
        data.testPath = defaults.testPath;
        data.labelColumn = defaults.labelColumn;
    }
    if (source != DataSource::Idx) {
        data.images = defaults.images;
        data.labels = defaults.labels;
        data.testImages = defaults.testImages;
        data.testLabels = defaults.testLabels;
    }
    if (source != DataSource::Random) {
        data.features = defaults.features;
        data.classes = defaults.classes;
        data.outputs = defaults.outputs;
    }
    const StrategyConfig strategyDefaults;
    StrategyConfig& strategy = used.strategy;
    if (!strategy.usesGpus() || strategy.type == StrategyKind::ParameterServer) strategy.gpu = strategyDefaults.gpu;
    if (strategy.type == StrategyKind::ParameterServer) {
        strategy.devices = {DeviceName{}};
        strategy.communication = strategyDefaults.communication;
        strategy.timeoutSeconds = strategyDefaults.timeoutSeconds;
        strategy.numPacks = strategyDefaults.numPacks;
        strategy.bytesPerPack = strategyDefaults.bytesPerPack;
        strategy.gradientAccumulationSteps = strategyDefaults.gradientAccumulationSteps;
        if (strategy.replicasPerWorker <= 1) strategy.crossDeviceOps = strategyDefaults.crossDeviceOps;
        if (strategy.mode != ParameterServerMode::Sync) strategy.gradientsToAggregate = strategyDefaults.gradientsToAggregate;
        PartitionerConfig& partitioner = strategy.partitioner;
        const PartitionerConfig partitionerDefaults;
        const PartitionerConfig::Kind kind = partitioner.kind;
        if (kind != PartitionerConfig::Kind::Fixed) partitioner.numShards = partitionerDefaults.numShards;
        if (kind != PartitionerConfig::Kind::MinSize) partitioner.minShardBytes = partitionerDefaults.minShardBytes;
        if (kind != PartitionerConfig::Kind::MinSize && kind != PartitionerConfig::Kind::MaxSize)
            partitioner.maxShards = partitionerDefaults.maxShards;
        if (kind != PartitionerConfig::Kind::MaxSize) partitioner.maxShardBytes = partitionerDefaults.maxShardBytes;
    } else if (strategy.type == StrategyKind::Pipeline || strategy.type == StrategyKind::ModelParallel) {
        const StrategyConfig kept = strategy;
        strategy = strategyDefaults;
        strategy.type = kept.type;
        strategy.microBatches = kept.microBatches;
        if (kept.type == StrategyKind::Pipeline) {
            strategy.stages = kept.stages;
            strategy.schedule = kept.schedule;
            strategy.virtualStages = kept.virtualStages;
            strategy.tensorParallel = kept.tensorParallel;
            strategy.dataParallel = kept.dataParallel;
            if (kept.dataParallel > 1) strategy.crossDeviceOps = kept.crossDeviceOps;  // only copies all-reduce
            strategy.balance = kept.balance;
        }
        strategy.devices = pipelineDevices(used);  // from the stages and copies just kept
    } else if (strategy.type == StrategyKind::TensorParallel) {
        const StrategyConfig kept = strategy;
        strategy = strategyDefaults;
        strategy.type = kept.type;
        strategy.devices = kept.devices;
        strategy.tensorParallel = kept.tensorParallel;
        strategy.dataParallel = kept.dataParallel;
        strategy.crossDeviceOps = kept.crossDeviceOps;
    } else {
        if (strategy.devices.empty()) strategy.devices = {DeviceName{}};
        strategy.workers = strategyDefaults.workers;
        strategy.parameterServers = strategyDefaults.parameterServers;
        strategy.mode = strategyDefaults.mode;
        strategy.partitioner = strategyDefaults.partitioner;
        strategy.workerSpeed = strategyDefaults.workerSpeed;
        strategy.replicasPerWorker = strategyDefaults.replicasPerWorker;
        strategy.gradientsToAggregate = strategyDefaults.gradientsToAggregate;
        if (strategy.type != StrategyKind::MultiWorkerMirrored) {
            strategy.communication = strategyDefaults.communication;
            strategy.timeoutSeconds = strategyDefaults.timeoutSeconds;
        }
        if (strategy.type == StrategyKind::OneDevice) {
            strategy.crossDeviceOps = strategyDefaults.crossDeviceOps;
            strategy.numPacks = strategyDefaults.numPacks;
            strategy.bytesPerPack = strategyDefaults.bytesPerPack;
        }
    }
    // The optimizer writes only its type's keys.
    const OptimizerConfig optimizerDefaults;
    OptimizerConfig& optimizer = used.optimizer;
    if (optimizer.type == OptimizerKind::Sgd) {
        optimizer.beta1 = optimizerDefaults.beta1;
        optimizer.beta2 = optimizerDefaults.beta2;
        optimizer.epsilon = optimizerDefaults.epsilon;
    } else {
        optimizer.momentum = optimizerDefaults.momentum;
        optimizer.nesterov = optimizerDefaults.nesterov;
    }
    return used;
}

std::string runConfigToJson(const RunConfig& config) {
    Json json = Json::object();
    json["name"] = config.name;
    json["seed"] = config.seed;
    json["model"] = modelJson(config.model);
    json["data"] = dataJson(config.data);
    json["optimizer"] = optimizerJson(config.optimizer);
    json["strategy"] = strategyJson(config.strategy);
    if (!config.cluster.empty()) {
        Json cluster = Json::object();
        if (!config.cluster.chief.empty()) cluster["chief"] = config.cluster.chief;
        if (!config.cluster.worker.empty()) cluster["worker"] = config.cluster.worker;
        if (!config.cluster.ps.empty()) cluster["ps"] = config.cluster.ps;
        json["cluster"] = std::move(cluster);
    }
    json["precision"] = configName(config.precision);
    if (config.clock != ClockMode::Wall) json["clock"] = configName(config.clock);
    json["steps"] = config.steps;
    json["threads"] = config.threads;
    json["eval_every"] = config.evalEvery;
    return dumpJson(json) + "\n";
}

}  // namespace distlab
