#pragma once
// A training run of one strategy, driven one optimizer update at a time from one thread (the CLI's
// or a TrainingSession's). Strategies differ in where variables live, how gradients travel and
// when updates apply; everything above (session, CLI, checkpoints, the GUI) sees only this.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/core/error.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/telemetry/step_report.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"

namespace distlab {

class Trainer {
public:
    virtual ~Trainer() = default;

    /// Loads the data and builds the strategy a validated config names. Blocks (file I/O).
    /// Errors are input errors (a data file, GPU devices that are not available, ...).
    /// A multi_worker_mirrored run whose config names a cluster needs `workers`, this process's
    /// rank in the group of one rank per worker (distlab-worker joins it: distribute/cluster_task.hpp);
    /// a parameter_server one, the chief's rank in the group of every task (parameter_server_cluster.hpp).
    static Result<std::unique_ptr<Trainer>> create(const RunConfig& config, std::unique_ptr<Communicator> workers = nullptr);
    /// Builds the strategy on data already loaded (tests, benchmarks).
    static std::unique_ptr<Trainer> create(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> workers = nullptr);

    /// Runs until one more optimizer update is applied and blocks until then. The report stays
    /// valid until the next call. Allocation-free once warmed up. Call from one thread.
    virtual const StepReport& step() = 0;
    /// Mean loss and accuracy of the primary model over up to maxExamples of `data` (0: all).
    virtual EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) = 0;
    /// The primary model's output for `input` [rows, features]; valid until the next call.
    virtual const Tensor& predict(const Tensor& input) = 0;

    /// The learning rate of the next update; any thread.
    virtual void setLearningRate(float rate) = 0;
    virtual float learningRate() const = 0;

    virtual const RunConfig& config() const = 0;
    virtual const DataSplit& data() const = 0;
    /// Lanes of per-replica telemetry (replicas, or workers for parameter servers).
    virtual int replicaCount() const = 0;
    /// Lane i's own copy of every variable. Not while a step runs.
    virtual Model& replicaModel(int replica) = 0;
    virtual const Model& replicaModel(int replica) const = 0;
    /// The canonical parameters: what is saved, evaluated and shown as "the model".
    virtual Model& primaryModel() { return replicaModel(0); }
    /// Copies of the optimizer state (one per replica under mirrored; one at the servers).
    virtual int optimizerCount() const { return replicaCount(); }
    virtual Optimizer& replicaOptimizer(int index) = 0;
    /// Copies the primary model's parameters to every other copy (after loading weights).
    virtual void broadcastParameters() = 0;

    /// Chooses parameter elements (flat indices into the parameter buffer) whose value on every
    /// replica each report carries. Between steps, on the stepping thread.
    virtual void setWatched(std::span<const std::int64_t> flatIndices) = 0;
    /// Attaches `trace` (the communication view's; size() lanes) to every replica's communicator
    /// through its observation hook; nullptr detaches. Returns false where the strategy runs no
    /// all-reduce (one device, parameter servers). Between steps, on the stepping thread.
    virtual bool setCollectiveTrace(class CollectiveTrace* /*trace*/) { return false; }
    /// Fault injection: replica `replica`'s device fails in the next step, after computing its
    /// gradient, while its peers wait for it in the reduction (as a lost device would). That step
    /// throws a TrainingError naming the device, and the trainer cannot step again. Returns false
    /// where the strategy has no such replica (parameter servers have killWorker). Between steps.
    virtual bool failDevice(int /*replica*/) { return false; }
    /// What the residual blocks' gradient aggregation held and did in the primary replica's last
    /// backward pass (zero without residual blocks). Not while a step runs.
    virtual GradientAggregationStats gradientAggregation() const = 0;
    /// The parameter-server controls, or null for strategies without servers.
    virtual class ParameterServerControls* parameterServerControls() { return nullptr; }
    /// Stops background work (parameter-server workers) before destruction; idempotent.
    virtual void shutdown() {}

    /// Optimizer updates applied so far.
    virtual std::int64_t stepsDone() const = 0;
    virtual const BatchSampler& sampler() const = 0;
    /// Restores the position after a checkpoint: updates done and the data sampler's place.
    virtual void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) = 0;
    /// Nanoseconds since the trainer was created (the clock of every StepReport).
    virtual std::int64_t clockNs() const = 0;
    /// A split model's stage of each of its layers as this run placed them (pipeline and
    /// model_parallel; a measured balance may differ from run to run); empty for the others.
    virtual std::vector<int> layerStages() const { return {}; }
};

/// Loads the data a validated config names and checks that its model fits in memory and its
/// global batch in the training set, as Trainer::create does. Blocks (file I/O).
Result<DataSplit> loadTrainingData(const RunConfig& config);

/// The rows `indices` of `data` as a model's input [n, features], their targets gathered into
/// `targets`. Where the indices are one run of consecutive rows (every batch of a data set that is
/// not shuffled, each chunk of an evaluation) the input is the data set's own rows, read in place;
/// otherwise they are copied into `scratch`, and the view is of it. Valid while `data` and
/// `scratch` are unchanged. Allocation-free once the buffers have grown.
ConstTensorView gatherBatch(const Dataset& data, std::span<const std::int64_t> indices, Tensor& scratch, BatchTargets& targets);

}  // namespace distlab
