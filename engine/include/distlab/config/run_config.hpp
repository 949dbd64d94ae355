#pragma once
// The run config of docs/interfaces.md §1 as a plain struct. Parsing and validation live in
// run_config_json.hpp; this header has no JSON dependency so every module can use it.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distlab/tensor/device.hpp"

namespace distlab {

enum class Activation { Linear, Relu, Tanh, Sigmoid, Gelu };
enum class LossKind { SoftmaxCrossEntropy, MeanSquaredError };
enum class InitKind { GlorotUniform, HeNormal, Zeros };
enum class DataSource { Synthetic, Csv, Idx, FashionMnist, Random };
enum class SyntheticKind { Circle, Xor, Gauss, Spiral, RegressionPlane, RegressionGauss };
enum class OptimizerKind { Sgd, Adam };
enum class StrategyKind {
    OneDevice,
    Mirrored,
    CentralStorage,
    ParameterServer,
    MultiWorkerMirrored,
    ModelParallel,
    Pipeline,
    TensorParallel
};
enum class CrossDeviceOps { ReductionToOneDevice, HierarchicalCopy, Ring, Nccl, Tree };
enum class Precision { Float32, MixedFloat16, MixedBfloat16 };
/// Which clock a run's timeline, throughput and bubbles are on: the wall's, or a virtual one on
/// which each device's passes run one at a time, timed alone, and are placed by their dependencies
/// (what the devices would do with a core each; pipeline and model_parallel in this version).
enum class ClockMode { Wall, Virtual };

struct LayerConfig {
    std::string type = "dense";  ///< "dense" or "residual"
    std::int64_t units = 0;      ///< dense only
    Activation activation = Activation::Linear;
    std::string name;                 ///< empty: "<type>_<index>"
    std::vector<LayerConfig> layers;  ///< residual: the block's inner layers (output width = input width)
    std::int64_t branches = 1;        ///< residual: parallel copies of the inner layers, y = x + sum_b f_b(x)
    /// A model's own layers only (not a block's inner ones), read by model_parallel and pipeline;
    /// strategies that replicate the whole model ignore them.
    std::optional<Device> device;  ///< model_parallel: where the layer runs (none: cpu:0)
    std::int64_t stage = -1;       ///< pipeline: its stage (-1: stages balanced automatically)
    bool operator==(const LayerConfig&) const = default;
};

/// How one replica's backward pass sums the gradient terms of a tensor with several consumers
/// (tf.AggregationMethod): add_n holds every term and sums them in one op; tree adds each term as
/// soon as it exists (fewer bytes held, more ops). The result is the same number.
enum class AggregationMethod { AddN, Tree };

struct ModelConfig {
    std::vector<LayerConfig> layers;
    AggregationMethod aggregationMethod = AggregationMethod::AddN;
    LossKind loss = LossKind::SoftmaxCrossEntropy;
    InitKind init = InitKind::GlorotUniform;
    bool operator==(const ModelConfig&) const = default;
};

struct DataConfig {
    DataSource source = DataSource::Synthetic;
    // synthetic
    SyntheticKind kind = SyntheticKind::Circle;
    std::int64_t samples = 500;
    double noise = 0.0;
    double trainFraction = 0.5;
    // csv
    std::string path;
    std::string testPath;
    std::int64_t labelColumn = -1;
    // idx
    std::string images;
    std::string labels;
    std::string testImages;
    std::string testLabels;
    // random
    std::int64_t features = 2;
    std::int64_t classes = 2;
    std::int64_t outputs = 0;  ///< > 0: regression targets instead of classes
    // batching
    bool shuffle = true;
    std::int64_t globalBatchSize = 32;
    bool operator==(const DataConfig&) const = default;
};

struct OptimizerConfig {
    OptimizerKind type = OptimizerKind::Sgd;
    double learningRate = 0.01;
    double momentum = 0.0;
    bool nesterov = false;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double epsilon = 1e-7;
    bool operator==(const OptimizerConfig&) const = default;
};

/// A device of the strategy's list: the tensor layer's Device (kind, index, "cpu:0"), one type for both.
using DeviceName = Device;

/// How parameter-server variables are sharded along their first axis (docs/semantics.md §6.5).
struct PartitionerConfig {
    enum class Kind { None, Fixed, MinSize, MaxSize } kind = Kind::None;
    std::int64_t numShards = 1;                              ///< fixed
    std::int64_t minShardBytes = std::int64_t{256} * 1024;   ///< min_size
    std::int64_t maxShards = 1;                              ///< min_size and max_size
    std::int64_t maxShardBytes = std::int64_t{1024} * 1024;  ///< max_size
    bool operator==(const PartitionerConfig&) const = default;
};

enum class ParameterServerMode { Async, Sync };

/// The order in which a pipeline's devices run their micro-batches' passes
/// (distribute/pipeline_schedule.hpp).
enum class PipelineSchedule {
    GPipe,        ///< every forward, then every backward
    OneFOneB,     ///< PipeDream-Flush: p − 1 − d forwards to warm up, then one forward, one backward
    Interleaved,  ///< 1F1B over v chunks a device (Megatron's interleaved schedule)
    ZeroBubbleH1  ///< ZB-H1: backwards split in B and W, each W put off to fill a bubble
};

/// How a pipeline's stages are balanced where no layer names its stage: by each layer's
/// multiply-accumulates a sample (reproducible), or by its forward and backward timed on this
/// machine at the run's micro-batch size when the trainer is built.
enum class StageBalance { MultiplyAccumulates, Measured };

/// How workers in different processes reduce (TensorFlow's CommunicationImplementation). On CPUs
/// both run Gloo's ring all-reduce; `auto` lets a later backend (NCCL between GPUs) choose.
enum class CollectiveImplementation { Auto, Ring };

/// The tasks of a run in several processes, TF_CONFIG's `cluster`: "host:port" addresses by task
/// type. The chief (when there is one) is worker 0 of the collective, the `worker` list follows.
struct ClusterSpec {
    std::vector<std::string> chief;   ///< at most one address
    std::vector<std::string> worker;  ///< the workers' addresses
    std::vector<std::string> ps;      ///< parameter servers
    bool empty() const { return chief.empty() && worker.empty() && ps.empty(); }
    /// The tasks that compute: the chief and the workers (>= 1: a run without a cluster is one worker).
    std::int64_t workerCount() const { return std::max<std::int64_t>(1, static_cast<std::int64_t>(chief.size() + worker.size())); }
    bool operator==(const ClusterSpec&) const = default;
};

/// How each physical GPU is carved into logical GPUs, as tf.config.set_logical_device_configuration
/// does: gpu:K is logical GPU K % logicalPerPhysical of physical GPU K / logicalPerPhysical.
struct GpuCarving {
    std::int64_t logicalPerPhysical = 1;  ///< logical GPUs per physical GPU, 1-8
    std::int64_t memoryLimitMb = 0;       ///< each logical GPU's memory limit in MiB; 0: none (they share the GPU)
    bool operator==(const GpuCarving&) const = default;
};

struct StrategyConfig {
    StrategyKind type = StrategyKind::OneDevice;
    std::vector<DeviceName> devices;  ///< empty for one_device: {cpu:0}
    CrossDeviceOps crossDeviceOps = CrossDeviceOps::Ring;
    std::int64_t numPacks = 1;
    std::int64_t bytesPerPack = 0;  ///< > 0: bucket gradients by bytes (following parameters) instead of num_packs
    std::int64_t gradientAccumulationSteps = 1;
    GpuCarving gpu;  ///< used only when the devices are gpu:K
    // parameter_server
    std::int64_t workers = 2;
    std::int64_t parameterServers = 1;
    ParameterServerMode mode = ParameterServerMode::Async;
    PartitionerConfig partitioner;
    std::vector<double> workerSpeed;  ///< per worker, 0.1-1.0; missing entries are 1.0
    std::int64_t replicasPerWorker = 1;
    std::int64_t gradientsToAggregate = 0;  ///< sync mode: gradients per update; 0 = every worker
    // multi_worker_mirrored (the local replicas are `devices`, written `local_replicas`)
    CollectiveImplementation communication = CollectiveImplementation::Auto;
    double timeoutSeconds = 30.0;  ///< how long a collective or the rendezvous waits for a peer before the run stops
    // pipeline (stages on cpu:0 .. cpu:p−1) and model_parallel (devices named by the layers)
    std::int64_t stages = 2;        ///< pipeline: p, the devices
    std::int64_t microBatches = 1;  ///< m: micro-batches of the global batch a step
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::int64_t virtualStages = 1;  ///< v: model chunks a device (interleaved)
    StageBalance balance = StageBalance::MultiplyAccumulates;
    std::int64_t tensorParallel = 1;  ///< tp: tensor_parallel's devices a copy (a pipeline's: only 1 in this version)
    std::int64_t dataParallel = 1;    ///< dp: tensor_parallel's and a pipeline's data-parallel copies

    /// Replicas (devices) that compute in step in this process; for parameter_server, the workers
    /// (telemetry lanes); for multi_worker_mirrored, one worker's local replicas.
    std::int64_t replicaCount() const {
        if (type == StrategyKind::ParameterServer) return workers;
        return devices.empty() ? 1 : static_cast<std::int64_t>(devices.size());
    }
    /// True when the devices are GPUs (a validated config never mixes CPU and GPU devices).
    bool usesGpus() const {
        for (const DeviceName& device : devices)
            if (device.kind == DeviceName::Kind::Gpu) return true;
        return false;
    }
    bool operator==(const StrategyConfig&) const = default;
};

struct RunConfig {
    std::string name = "run";
    std::uint64_t seed = 0;
    ModelConfig model;
    DataConfig data;
    OptimizerConfig optimizer;
    StrategyConfig strategy;
    Precision precision = Precision::Float32;
    ClockMode clock = ClockMode::Wall;
    std::int64_t steps = 1000;
    std::int64_t threads = 0;    ///< 0: every core
    std::int64_t evalEvery = 0;  ///< steps between test evaluations; 0: only at the end
    std::string baseDirectory;   ///< where relative data paths resolve (the config file's folder)
    ClusterSpec cluster;         ///< tasks in processes (`cluster`, or TF_CONFIG's); empty: this process only
    bool operator==(const RunConfig&) const = default;

    /// Replicas whose shards make up one global batch: every worker's local replicas under
    /// multi_worker_mirrored, else strategy.replicaCount().
    std::int64_t globalReplicaCount() const {
        if (strategy.type != StrategyKind::MultiWorkerMirrored) return strategy.replicaCount();
        return strategy.replicaCount() * cluster.workerCount();
    }

    /// Samples whose gradients reach one update when every worker takes part (docs/semantics.md §10,
    /// what StepReport::samples measures): the global batch G, and for synchronous parameter servers
    /// G for each of the gradients averaged (`gradients_to_aggregate`, 0: every worker).
    std::int64_t samplesPerUpdate() const {
        if (strategy.type != StrategyKind::ParameterServer || strategy.mode != ParameterServerMode::Sync) return data.globalBatchSize;
        const std::int64_t averaged =
            strategy.gradientsToAggregate > 0 ? std::min(strategy.gradientsToAggregate, strategy.workers) : strategy.workers;
        return averaged * data.globalBatchSize;
    }
};

/// The devices of a pipeline or model_parallel run, one telemetry lane each: cpu:0 .. cpu:dp·p−1
/// for a pipeline of p stages and dp data-parallel copies (copy c's device d is cpu:c·p+d); for model_parallel, each device a layer names
/// (cpu:0 for a layer that names none), in order of kind and index. Empty for the other strategies.
std::vector<DeviceName> pipelineDevices(const RunConfig& config);

// The config's spelling of each value ("relu", "mirrored", ...). Not called toString: Qt Test looks
// up toString(value) by argument-dependent lookup to print a failed comparison, and frees the result.
const char* configName(Activation value);
const char* configName(LossKind value);
const char* configName(InitKind value);
const char* configName(DataSource value);
const char* configName(SyntheticKind value);
const char* configName(OptimizerKind value);
const char* configName(StrategyKind value);
const char* configName(CrossDeviceOps value);
const char* configName(Precision value);
const char* configName(PipelineSchedule value);
const char* configName(StageBalance value);
const char* configName(ClockMode value);

}  // namespace distlab
