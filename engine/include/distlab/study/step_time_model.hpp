#pragma once
// Predict, then measure: a study variant's step time from what this machine measured, before the
// variant runs (issue 15). Two measurements, each made once per model or algorithm and kept:
//  - compute: a few one-device steps of the variant's model on one replica's micro-batch with one
//    replica's threads, split with the engine's phase split (splitStep) into compute and optimizer;
//  - reduction: an alpha-beta line t(bytes) = alpha + beta x bytes of the variant's all-reduce
//    algorithm at its replica count, fitted to the collectives benchmark (measureAllReduce) at
//    sizes around one gradient pack.
// A mirrored step is then k micro-batches of compute, one all-reduce per pack and the update, the
// compute and update stretched by replicas / cores when the replica threads outnumber the cores,
// plus starting the replica threads and waiting for them (measured on an empty step).
// Parameter servers and central storage are not modelled yet (predict says so).
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "distlab/core/error.hpp"
#include "distlab/io/run_config.hpp"

namespace distlab {

/// t(bytes) = alphaNs + betaNsPerByte x bytes.
struct AlphaBeta {
    double alphaNs = 0.0;
    double betaNsPerByte = 0.0;
    double ns(double bytes) const { return alphaNs + betaNsPerByte * bytes; }
};
/// The least-squares line through (bytes, ns) points, alpha and beta clamped at 0. Pure.
AlphaBeta fitAlphaBeta(std::span<const std::pair<double, double>> bytesAndNs);

/// One replica's measured step without reduction: nanoseconds per micro-batch and per update.
struct ComputeCost {
    double computeNs = 0.0;    ///< forward, loss and backward of one micro-batch
    double optimizerNs = 0.0;  ///< one update
    /// The rest of a step's wall time (sampling and gathering the batch, the report): on small
    /// models as long as the compute, so it is measured, not assumed away.
    double otherNs = 0.0;
    std::int64_t parameters = 0;
};

/// Milliseconds of one update, split as the phase split splits a measured one.
struct StepTimePrediction {
    double stepMs = 0.0;
    double computeMs = 0.0;
    double communicationMs = 0.0;  ///< the all-reduces, waiting in them included
    double optimizerMs = 0.0;  ///< the update and the rest of the step's bookkeeping
};

/// Calibrates and predicts; keeps its measurements for its life. One thread at a time.
class StepTimeModel {
public:
    /// `cores`: the CPUs the replicas share; 0 = this machine's hardware threads.
    explicit StepTimeModel(int cores = 0);
    /// The predicted mean step time of `config`, measuring first what this model has not measured
    /// yet (loads the config's data; a fraction of a second per new measurement). Blocks. Errors:
    /// a strategy not modelled yet, or a config that cannot be built.
    Result<StepTimePrediction> predict(const RunConfig& config);
    int cores() const { return m_cores; }

private:
    Result<ComputeCost> computeCost(const RunConfig& config, std::int64_t microBatch, std::int64_t threads);
    AlphaBeta reductionCost(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes);
    /// Nanoseconds to start `replicas` replica threads on a step and wait for them (ReplicaPool::run
    /// of an empty task), which a one-device calibration does not pay.
    double dispatchCost(int replicas, int threadsPerReplica);

    int m_cores;
    std::map<std::string, ComputeCost> m_compute;  ///< by the calibration run's config (model, data, batch, threads)
    std::map<std::tuple<CrossDeviceOps, int, std::int64_t>, AlphaBeta> m_reductions;
    std::map<std::pair<int, int>, double> m_dispatch;
};

}  // namespace distlab
