#pragma once
// Where a step's time went: the one definition, used by the CLI's metrics, trace and bench, the
// session's records and every view and export of the app. Times are nanoseconds on the run's clock.
//
// A replica's step runs compute (forward, loss, backward: start -> computeEnd), the reduction
// (computeEnd -> commEnd; the part spent waiting for peers inside it is `waiting`, the rest is
// `communication`), the optimizer (commEnd -> updateEnd), then sits idle until the slowest replica
// is done (updateEnd -> stepEnd). A step's split is the mean over the replicas that took part.
#include <array>
#include <cstdint>
#include <span>

#include "distlab/telemetry/span.hpp"

namespace distlab {

struct ReplicaRecord;
struct ReplicaStepStats;
struct StepReport;

enum class Phase : std::uint8_t { Compute, Communication, Waiting, Optimizer, Idle };
inline constexpr int kPhaseCount = 5;
inline constexpr std::array<Phase, kPhaseCount> kPhases{Phase::Compute, Phase::Communication, Phase::Waiting, Phase::Optimizer,
                                                        Phase::Idle};
/// "compute", "communication", "waiting", "optimizer", "idle": the words of legends, metrics and traces.
const char* phaseName(Phase phase);

/// The timestamps one replica records in one step.
struct StepTimes {
    std::int64_t startNs = 0;
    std::int64_t computeEndNs = 0;
    std::int64_t commEndNs = 0;
    std::int64_t updateEndNs = 0;
    std::int64_t stepEndNs = 0;   ///< when the slowest replica was done
    std::int64_t commWaitNs = 0;  ///< waiting for peers inside the reduction
};
StepTimes stepTimes(const ReplicaRecord& record);
StepTimes stepTimes(const ReplicaStepStats& stats, std::int64_t stepEndNs);
/// A producer's timestamps from its spans, starting at `startNs`: compute ends with the last pull,
/// forward, backward or delay, the reduction with the last all-reduce, network hop or push
/// (waiting: the all-reduces' and pushes' waits, which include their network hops'), the update
/// with the last optimizer or broadcast span. A phase without a span takes no time.
StepTimes stepTimes(std::int64_t startNs, std::span<const Span> spans, std::int64_t stepEndNs);

/// Nanoseconds per phase; none negative.
struct PhaseSplit {
    std::array<double, kPhaseCount> ns{};
    double operator[](Phase phase) const { return ns[static_cast<std::size_t>(phase)]; }
    double& operator[](Phase phase) { return ns[static_cast<std::size_t>(phase)]; }
    double total() const;
    /// Adds `scale` times `other` (means, moving windows).
    void add(const PhaseSplit& other, double scale = 1.0);
};

/// A step's wall time: from the earliest start, the step's or an active lane's (a parameter-server
/// gradient begins with its pull, before the update that applies it), to the latest end. The
/// CLI's step_ms and the app's step times and CSV (StepRecord::durationNs) both use it, so a step
/// is never shorter than its phases.
std::int64_t stepDurationNs(const StepReport& report);

/// One replica's step.
PhaseSplit splitPhases(const StepTimes& times);
/// The step: the mean over its active replicas (zero when none took part).
PhaseSplit splitStep(const StepReport& report);

/// A stretch of a replica's timeline. Waiting happens inside the communication span (a view may
/// draw it over it from StepTimes::commWaitNs), so a step has four spans.
struct PhaseSpan {
    Phase phase = Phase::Compute;
    std::int64_t beginNs = 0;
    std::int64_t endNs = 0;
};
std::array<PhaseSpan, 4> phaseSpans(const StepTimes& times);
/// The phase a span's time counts in: compute (forward, backward, a worker's pull and straggler
/// delay), communication (all-reduce, push; their waits are `waiting`; the network hop, which lies
/// within its all-reduce and so adds no time), optimizer (the update, central storage's broadcast of it).
Phase phaseOf(SpanKind kind);

}  // namespace distlab
