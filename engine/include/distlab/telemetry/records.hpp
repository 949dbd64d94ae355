#pragma once
// The fixed-size telemetry records the engine pushes and the GUI drains. Times are nanoseconds
// on the session's clock (0 = the session's trainer was built).
#include <cstdint>

#include "distlab/telemetry/phase_split.hpp"

namespace distlab {

/// The records' times are nanoseconds: this many to a second.
inline constexpr double kNanosecondsPerSecond = 1e9;

/// How many parameter elements a session can watch on every replica at once.
inline constexpr int kMaxWatchedValues = 4;

/// A test-set (and full-train-set) evaluation.
struct EvalRecord {
    std::int64_t step = 0;
    double testLoss = 0.0;
    double testAccuracy = -1.0;  ///< -1 for regression or no test data
    bool hasTest = false;
    std::int64_t wallNs = 0;
};

/// What a record in the steps' channel is (telemetry/step_channel.hpp).
enum class StepRecordKind : std::uint8_t {
    Step,     ///< an optimizer step
    Backlog,  ///< not a step: the steps the ring had no room for come here (StepChannel::takeBacklog)
};

/// One optimizer step, for the whole strategy: everything a row of the run's metrics needs, so a
/// step whose replicas' records were dropped still has a whole row.
struct StepRecord {
    StepRecordKind kind = StepRecordKind::Step;
    std::int64_t step = 0;
    std::int64_t epoch = 0;
    double loss = 0.0;       ///< global mean training loss of the batch
    double accuracy = -1.0;  ///< batch accuracy; -1 for regression
    float learningRate = 0.0f;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t durationNs = 0;  ///< stepDurationNs: from the earliest active lane's start to the end
    PhaseSplit phases;            ///< splitStep: where the step's time went, mean over its active lanes
    float watchedSpread = 0.0f;   ///< largest minus smallest copy of the first watched value (active lanes)
    bool hasLanes = false;        ///< some lane took part (phases and watchedSpread mean something)
    std::int64_t samples = 0;     ///< samples whose gradients reached this update (StepReport::samples)
    std::int32_t worker = -1;     ///< parameter servers, async: whose gradient this update applied
    std::int64_t staleness = 0;   ///< parameter servers: updates between the gradient's read and its apply
    std::int64_t serverBusyNs = 0;
    EvalRecord evaluation;  ///< the evaluation right after this step; step 0 when there was none
};

/// One replica's part of one step.
struct ReplicaRecord {
    std::int64_t step = 0;
    std::int32_t replica = 0;
    float localLoss = 0.0f;       ///< mean loss over this replica's shard
    float gradNormBefore = 0.0f;  ///< before the all-reduce
    float gradNormAfter = 0.0f;   ///< after the all-reduce
    std::int64_t startNs = 0;
    std::int64_t computeEndNs = 0;
    std::int64_t commEndNs = 0;
    std::int64_t updateEndNs = 0;
    std::int64_t stepEndNs = 0;   ///< when the slowest replica finished (idle until then)
    std::int64_t commWaitNs = 0;  ///< waiting for peers inside the communication
    /// The hop between processes inside the communication (a multi-worker lead's network spans):
    /// the first one's start and their total; 0 when none crossed processes.
    std::int64_t networkBeginNs = 0;
    std::int64_t networkNs = 0;
    std::int64_t bytesSent = 0;
    bool bytesFromRingFormula = false;      ///< bytesSent is the ring's formula, not a count (StepReport's; GPU runs)
    float watched[kMaxWatchedValues] = {};  ///< this replica's copy of each watched value
    std::uint32_t watchGeneration = 0;      ///< which setWatched() choice `watched` reports
    bool active = true;                     ///< contributed to the step (always, except async parameter-server workers)
    std::int64_t staleness = 0;
};

}  // namespace distlab
