// RunConfig -> JSON in the spec's key order; parseRunConfig reads it back to an equal struct.
#include <distlab/io/run_config_json.hpp>

#include "io/run_config_json_reader.hpp"
#include "distlab/model/layer_registry.hpp"

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
    // Every source's fields, so switching the source back in the GUI finds the old values again.
    Json json = Json::object();
    json["source"] = configName(data.source);
    json["kind"] = configName(data.kind);
    json["samples"] = data.samples;
    json["noise"] = data.noise;
    json["train_fraction"] = data.trainFraction;
    json["path"] = data.path;
    json["test_path"] = data.testPath;
    json["label_column"] = data.labelColumn;
    json["images"] = data.images;
    json["labels"] = data.labels;
    json["test_images"] = data.testImages;
    json["test_labels"] = data.testLabels;
    json["features"] = data.features;
    json["classes"] = data.classes;
    json["outputs"] = data.outputs;
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

Json strategyJson(const StrategyConfig& strategy) {
    Json devices = Json::array();
    for (const DeviceName& device : strategy.devices) devices.push_back(device.toString());
    if (devices.empty()) devices.push_back(DeviceName{}.toString());  // empty means cpu:0
    Json json = Json::object();
    json["type"] = configName(strategy.type);
    json["devices"] = std::move(devices);
    json["cross_device_ops"] = configName(strategy.crossDeviceOps);
    json["num_packs"] = strategy.numPacks;
    if (strategy.bytesPerPack > 0) json["bytes_per_pack"] = strategy.bytesPerPack;
    json["gradient_accumulation_steps"] = strategy.gradientAccumulationSteps;
    if (strategy.type == StrategyKind::ParameterServer) {
        json["workers"] = strategy.workers;
        json["parameter_servers"] = strategy.parameterServers;
        json["mode"] = nameOf(kParameterServerModeNames, strategy.mode);
        json["replicas_per_worker"] = strategy.replicasPerWorker;
        json["gradients_to_aggregate"] = strategy.gradientsToAggregate;
        if (!strategy.workerSpeed.empty()) json["worker_speed"] = strategy.workerSpeed;
        const PartitionerConfig& partitioner = strategy.partitioner;
        if (partitioner.kind != PartitionerConfig::Kind::None) {
            Json part = Json::object();
            part["type"] = nameOf(kPartitionerNames, partitioner.kind);
            part["num_shards"] = partitioner.numShards;
            part["min_shard_bytes"] = partitioner.minShardBytes;
            part["max_shards"] = partitioner.maxShards;
            part["max_shard_bytes"] = partitioner.maxShardBytes;
            json["partitioner"] = std::move(part);
        }
    }
    return json;
}

}  // namespace

std::string runConfigToJson(const RunConfig& config) {
    Json json = Json::object();
    json["name"] = config.name;
    json["seed"] = config.seed;
    json["model"] = modelJson(config.model);
    json["data"] = dataJson(config.data);
    json["optimizer"] = optimizerJson(config.optimizer);
    json["strategy"] = strategyJson(config.strategy);
    json["precision"] = configName(config.precision);
    json["steps"] = config.steps;
    json["threads"] = config.threads;
    json["eval_every"] = config.evalEvery;
    return dumpJson(json) + "\n";
}

}  // namespace distlab
