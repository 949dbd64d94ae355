#pragma once
// Predict, then measure: a study variant's step time from what this machine measured, before the
// variant runs (issue 15; docs/interfaces.md §13.5). Three kinds of measurement, each made once per
// model or algorithm and kept in a calibration (cached on disk per machine, step_time_cache.hpp):
//  - per layer: each layer's forward and backward, the loss, the batch gather and the optimizer's
//    update, timed on this machine at micro-batch sizes that are powers of two (interpolated
//    linearly in rows between them), with as many copies computing at once as the variant's
//    replicas or workers will (two threads on two cores are slower than one), plus the rest of a
//    one-device step (its bookkeeping), the measured step minus those pieces;
//  - per reduction algorithm and replica count: an alpha-beta line fitted to the collectives
//    benchmark (measureAllReduce); per copy: one for the parameter servers' pull and push;
//  - protocols: what a strategy's own machinery adds to a step, measured by running its trainer
//    on a minimal model (mirrored: starting and joining the replica threads, the all-reduces'
//    latency and the waiting in them, over one device; parameter servers: an update's permit,
//    pull, push and inbox hand-offs), and a straggler's sleep.
// The pure formulas (predictOneDevice, predictMirrored, predictParameterServer) turn them into a
// step; StepTimeModel measures what a variant needs and calls them.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/distribute/pipeline_schedule.hpp"

namespace distlab {

/// t(bytes) = alphaNs + betaNsPerByte x bytes.
struct AlphaBeta {
    double alphaNs = 0.0;
    double betaNsPerByte = 0.0;
    double ns(double bytes) const { return alphaNs + betaNsPerByte * bytes; }
    bool operator==(const AlphaBeta&) const = default;
};
/// The least-squares line through (bytes, ns) points, alpha and beta clamped at 0. Pure.
AlphaBeta fitAlphaBeta(std::span<const std::pair<double, double>> bytesAndNs);

/// One layer's passes over one micro-batch.
struct LayerTimes {
    double forwardNs = 0.0;
    double backwardNs = 0.0;
    bool operator==(const LayerTimes&) const = default;
};

/// One replica's micro-batch of a given number of rows, as measured.
struct MicroBatchTimes {
    std::vector<LayerTimes> layers;
    double gatherNs = 0.0;  ///< copying the rows and their targets out of the data set
    double lossNs = 0.0;
    /// The rest of a one-device step of these rows: sampling, the spans, the gradient norm, the
    /// report (the measured step minus the pieces and the update; at least 0).
    double otherNs = 0.0;
    /// Gather, every layer's forward and backward, and the loss: one micro-batch's compute.
    double computeNs() const;
    bool operator==(const MicroBatchTimes&) const = default;
};

/// One model's calibration for one thread count and one number of copies computing at once.
struct ModelCalibration {
    std::int64_t parameters = 0;
    double optimizerNs = 0.0;                        ///< one update of every parameter
    std::map<std::int64_t, MicroBatchTimes> byRows;  ///< measured micro-batch sizes
    /// ServerCosts::handOffNs by a worker's rows (the global batch), for the parameter servers
    std::map<std::int64_t, double> serverHandOffNs;
    bool operator==(const ModelCalibration&) const = default;
};

/// The micro-batch of `rows` rows, linear in rows between the nearest measured sizes (beyond the
/// last ones, along the line through the two nearest; one size alone is scaled by rows). Pure;
/// needs at least one measured size.
MicroBatchTimes interpolateRows(const ModelCalibration& calibration, std::int64_t rows);

/// What the machine measured, independent of any model.
struct MachineCalibration {
    std::map<std::string, AlphaBeta> reductions;       ///< by reductionKey: one all-reduce of a pack
    std::map<std::string, double> mirroredProtocolNs;  ///< by mirroredKey: what replicas add to a minimal model's step
    AlphaBeta transport;                               ///< a parameter-server pull or push (one copy of the parameters)
    bool transportMeasured = false;
    std::map<std::string, double> serverUpdateNs;  ///< by serverKey: one update of the protocol alone (a minimal model)
    double sleepOvershootNs = -1.0;                ///< how much longer a straggler's short sleep lasts than asked; < 0: not measured
    bool operator==(const MachineCalibration&) const = default;
};
std::string reductionKey(CrossDeviceOps algorithm, int replicas, std::int64_t packBytesBucket);
std::string mirroredKey(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica);
std::string serverKey(ParameterServerMode mode, int workers);

/// Milliseconds of one update, split as the phase split splits a measured one.
struct StepTimePrediction {
    double stepMs = 0.0;
    double computeMs = 0.0;
    double communicationMs = 0.0;  ///< all-reduces, pulls and pushes, waiting in them included
    double optimizerMs = 0.0;      ///< the update and the rest of the step's bookkeeping
};

/// The pure cost formulas, on calibrations made up or measured. `cores`: the CPUs the threads share.
/// One device: accumulation x micro-batch + update + the rest of the step.
StepTimePrediction predictOneDevice(const MicroBatchTimes& micro, double optimizerNs, std::int64_t accumulation);
/// Mirrored (R replicas): each replica's micro-batches and update, stretched by R / cores when the
/// replica threads outnumber the cores; what the replicas add to a minimal model's step (starting
/// and joining their threads, `packs` all-reduces of a few bytes, waiting in them); and the
/// reduction line's bandwidth term for the bytes beyond the minimal model's.
struct MirroredCosts {
    MicroBatchTimes micro;  ///< at the replica's rows, measured with min(R, cores) copies at once
    double optimizerNs = 0.0;
    double otherNs = 0.0;  ///< the step's bookkeeping (one copy)
    AlphaBeta reduction;
    std::int64_t packs = 1;
    std::int64_t packBytes = 0;
    double protocolNs = 0.0;             ///< mirroredProtocolNs
    std::int64_t protocolPackBytes = 0;  ///< a pack of the minimal model
};
StepTimePrediction predictMirrored(const MirroredCosts& costs, int replicas, std::int64_t accumulation, int cores);
/// Parameter servers (W workers, each one gradient of the global batch per permit).
struct ServerCosts {
    double gradientNs = 0.0;  ///< one worker's micro-batch (measured with min(W, cores) copies at once) and its bookkeeping
    double pullNs = 0.0;      ///< a copy of the parameters (the servers' answer, then the worker's read: two)
    double pushNs = 0.0;
    double applyNs = 0.0;     ///< the servers' update
    double protocolNs = 0.0;  ///< one update of the protocol alone with W workers (serverUpdateNs)
    /// What a gradient's hand-offs cost beyond the minimal model's when this model's compute lies
    /// between them (the threads' wake-ups after longer waits, the data crossing cores): a
    /// one-worker synchronous run of the model, measured, minus this formula's prediction of it.
    double handOffNs = 0.0;
    double sleepOvershootNs = 0.0;
    std::vector<double> speeds;  ///< per worker, 0.1-1.0
};
StepTimePrediction predictParameterServer(const ServerCosts& costs, ParameterServerMode mode, std::int64_t gradientsToAggregate, int cores);
/// A pipeline of p devices (v chunks each, m micro-batches, dp copies) on the virtual clock, or with
/// a core a device: its stages' passes placed by the schedule's order and dependencies
/// (simulatePipeline) at each stage's times (its hand-over copies in them); then each device's all-reduces
/// across the copies and its update of its own layers; then the step's bookkeeping.
struct PipelineCosts {
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    PipelineShape shape;
    std::vector<PassTimes> stages;          ///< per stage (p·v, stage s on device s mod p): one micro-batch's passes, ns
    std::vector<double> deviceOptimizerNs;  ///< per device: the update of its stages' parameters
    std::vector<double> deviceReductionNs;  ///< per device: its all-reduces across the copies (empty or 0 without)
    double otherNs = 0.0;
};
/// Errors where the shape cannot run the schedule or a stage has no times.
Result<StepTimePrediction> predictPipeline(const PipelineCosts& costs);

/// Where StepTimeModel keeps its calibration between runs.
struct StepTimeModelOptions {
    int cores = 0;          ///< the CPUs the replicas share; 0 = this machine's hardware threads
    std::string cacheFile;  ///< empty: none (measure every time)
    /// The default: stepTimeCachePath() (empty when DISTLAB_STEP_TIME_CACHE=off).
    static StepTimeModelOptions fromEnvironment();
};

/// Calibrates and predicts; keeps its measurements for its life and in the cache file. One thread at a time.
class StepTimeModel {
public:
    explicit StepTimeModel(StepTimeModelOptions options = StepTimeModelOptions::fromEnvironment());
    /// The predicted mean step time of `config`, measuring first what the calibration lacks (loads
    /// the config's data; a fraction of a second per new measurement) and saving it to the cache.
    /// Blocks. Errors: a strategy not modelled (central storage, GPUs), or a config that cannot be built.
    Result<StepTimePrediction> predict(const RunConfig& config);
    int cores() const { return m_options.cores; }
    /// Measurements made by this model so far (not found in the cache).
    int measurementsMade() const { return m_measurements; }

private:
    Result<ModelCalibration*> modelCalibration(const RunConfig& config, std::int64_t rows, int threads, int concurrent);
    AlphaBeta reduction(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes);
    Result<double> mirroredProtocol(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica);
    Result<double> serverUpdate(ParameterServerMode mode, int workers);
    Result<double> serverHandOff(const RunConfig& config, std::int64_t rows, const ServerCosts& perWorker);
    AlphaBeta transport(std::int64_t bytes);
    double sleepOvershoot();
    Result<StepTimePrediction> predictMirroredConfig(const RunConfig& config);
    Result<StepTimePrediction> predictServersConfig(const RunConfig& config);
    Result<StepTimePrediction> predictPipelineConfig(const RunConfig& config);
    void save();

    StepTimeModelOptions m_options;
    std::map<std::string, ModelCalibration> m_models;  ///< by modelKey
    MachineCalibration m_machine;
    int m_measurements = 0;
};

}  // namespace distlab
