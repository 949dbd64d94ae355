#pragma once
// What one optimizer step did, per replica and in all: the raw numbers behind every live view,
// the metrics file and the trace. Times are nanoseconds on the trainer's clock (0 = creation).
#include <cstdint>
#include <vector>

#include "distlab/telemetry/records.hpp"
#include "distlab/telemetry/span.hpp"

namespace distlab {

struct ReplicaStepStats {
    double lossSum = 0.0;         ///< sum of this replica's per-example losses
    std::int64_t correct = 0;     ///< correct predictions in this replica's shard
    std::int64_t examples = 0;    ///< examples this replica processed
    double gradNormBefore = 0.0;  ///< L2 norm of this replica's gradient before the reduction
    double gradNormAfter = 0.0;   ///< L2 norm after the reduction (the applied gradient)
    std::int64_t bytesSent = 0;   ///< bytes this replica sent in the reduction
    /// A split model's device (pipeline, model_parallel): the most activation bytes its stages held
    /// at once in the step (each micro-batch's layer outputs, from its forward until its backward,
    /// or its W under zero-bubble schedules), and the most micro-batch stage passes held at once.
    std::int64_t activationPeakBytes = 0;
    std::int32_t activationPeakMicroBatches = 0;
    // Timeline of the step: compute (forward/backward) | communication | optimizer | idle.
    std::int64_t startNs = 0;
    std::int64_t computeEndNs = 0;
    std::int64_t commEndNs = 0;
    std::int64_t updateEndNs = 0;
    std::int64_t commWaitNs = 0;            ///< part of the communication spent waiting for peers
    bool active = true;                     ///< contributed to this update (parameter servers: one worker per async update)
    std::int64_t staleness = 0;             ///< updates applied between this gradient's read and its apply
    float watched[kMaxWatchedValues] = {};  ///< this replica's copy of each watched value after the step
    /// What this replica did in the step, piece by piece (its SpanRecorder's spans; valid until
    /// its next step). The timestamps above are stepTimes() of these where a producer records them.
    std::span<const Span> spans;

    double localLoss() const { return examples > 0 ? lossSum / static_cast<double>(examples) : 0.0; }
};

struct StepReport {
    std::int64_t step = 0;   ///< optimizer steps completed, this one included
    std::int64_t epoch = 0;  ///< epoch this step's batch came from
    double loss = 0.0;       ///< global mean loss of the batch (sum / global batch)
    double accuracy = -1.0;  ///< fraction correct in the batch; -1 for regression
    /// Samples whose gradients reached this update (docs/semantics.md §10): the global batch G; an
    /// async parameter-server update, the applied worker's batch; a sync one, every averaged worker's.
    std::int64_t samples = 0;
    float learningRate = 0.0f;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;         ///< all replicas done
    bool applied = true;            ///< false: nothing could run (every worker paused); try again later
    int worker = -1;                ///< parameter servers, async: the worker whose gradient was applied
    std::int64_t staleness = 0;     ///< parameter servers: staleness of the applied gradient(s), mean in sync mode
    std::int64_t droppedStale = 0;  ///< parameter servers, sync: stale gradients dropped before this update
    std::int64_t serverBusyNs = 0;  ///< parameter servers: time the servers spent applying this update
    /// The replicas' bytesSent (and their spans' bytes) are the ring all-reduce's formula,
    /// 2 (N - 1) / N of the gradient's bytes, not a count: GPU runs, whose NCCL and device-ring
    /// reductions are not instrumented. Every report that shows them says so.
    bool bytesFromRingFormula = false;
    std::vector<ReplicaStepStats> replicas;
};

struct EvalResult {
    double loss = 0.0;
    double accuracy = -1.0;  ///< -1 for regression
    std::int64_t examples = 0;
};

}  // namespace distlab
