#pragma once
// One variant's row of a study's summary table and the tally that builds it from the variant's
// StepReports. Where the step's time went comes from the engine's one phase split (splitStep,
// telemetry/phase_split.hpp), summed over the steps, so the shares agree with every other view.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "distlab/distribute/pipeline_schedule.hpp"  // BubbleMeter
#include "distlab/telemetry/step_report.hpp"
#include "distlab/telemetry/phase_split.hpp"

namespace distlab {

/// How a variant's run ended (Waiting: it has not started).
enum class VariantState { Waiting, Loading, Running, Finished, Cancelled, Failed };
const char* variantStateName(VariantState state);  ///< "waiting", "loading", "running", "finished", "cancelled", "failed"

/// What a study calls waiting: the split's waiting for peers plus idle until the slowest lane was
/// done, as the metrics' wait_ms (docs/interfaces.md §7).
inline double waitingAndIdleNs(const PhaseSplit& split) { return split[Phase::Waiting] + split[Phase::Idle]; }

/// Shares of the summed phase split, each in [0, 1], adding up to 1 (all 0 when no time was split).
/// `waiting` is the split's waiting plus idle, as the metrics' wait_ms (docs/interfaces.md §7).
struct PhaseShares {
    double compute = 0.0;
    double communication = 0.0;
    double waiting = 0.0;
    double optimizer = 0.0;
};
PhaseShares phaseShares(const PhaseSplit& totals);

/// Bytes an update moved: what its active lanes sent in reductions (ReplicaStepStats::bytesSent),
/// plus the parameters a parameter-server worker pulled and the gradient it pushed (its Pull and
/// Push spans), which bytesSent does not count.
std::int64_t stepBytesCommunicated(const StepReport& report);

struct StudyRow {
    std::string label;
    VariantState state = VariantState::Waiting;
    std::string message;  ///< why it failed (empty otherwise)
    /// Failed before training: the run could not be built (a data file, a device). An input
    /// error, not a training failure (the CLI exits 2, not 3).
    bool buildFailed = false;
    std::int64_t steps = 0;                                       ///< updates applied
    double trainingSeconds = 0.0;                                 ///< wall time inside the trainer's steps (evaluations excluded)
    double finalLoss = std::numeric_limits<double>::quiet_NaN();  ///< the last update's training loss
    std::optional<double> testLoss;                               ///< the whole test set after the last update (when there is one)
    /// Test accuracy after the last update; without a test set, the last update's batch accuracy.
    /// NaN for regression.
    double accuracy = std::numeric_limits<double>::quiet_NaN();
    std::optional<std::int64_t> stepsToTarget;    ///< the first update whose accuracy reached the target
    std::optional<double> secondsToTarget;        ///< training seconds up to that update
    std::int64_t samples = 0;                     ///< samples whose gradients reached an update (StepReport::samples), summed
    double samplesPerSecond = 0.0;                ///< samples / trainingSeconds
    double bytesPerStep = 0.0;                    ///< mean bytes all lanes sent per update
    std::optional<std::int64_t> peakMemoryBytes;  ///< sequential runs only (devices' accounting is per process)
    PhaseSplit phaseTotalsNs;                     ///< splitStep summed over the updates
    PhaseShares shares;                           ///< phaseShares(phaseTotalsNs)
    /// A split model's (pipeline, model_parallel): its devices' mean bubble over the updates
    /// (BubbleMeter), and the schedule's closed form where one applies.
    std::optional<double> bubble;
    std::optional<double> bubbleTheory;
};

/// Builds a row step by step. One thread (the variant's).
class VariantTally {
public:
    VariantTally(std::string label, std::optional<double> targetAccuracy);
    /// Counts an applied update that took `stepNs` of training time.
    void addStep(const StepReport& report, std::int64_t stepNs);
    /// Measures the variant's bubbles from its steps (a split model), beside `theory`.
    void measureBubbles(std::optional<double> theory);
    /// An accuracy measured after the latest update (a test evaluation, or the batch's without test data).
    void addAccuracy(double accuracy);
    void setFinalTest(const EvalResult& test);
    void setPeakMemory(std::int64_t bytes) { m_row.peakMemoryBytes = bytes; }
    void finish(VariantState state, std::string message = {});
    void setBuildFailed() { m_row.buildFailed = true; }
    /// The phase split of the update addStep counted last (for the curves).
    const PhaseSplit& lastSplit() const { return m_lastSplit; }
    const StudyRow& row() const { return m_row; }

private:
    StudyRow m_row;
    std::optional<double> m_target;
    std::optional<BubbleMeter> m_bubbles;  ///< split models only
    std::int64_t m_trainingNs = 0;
    double m_bytes = 0.0;  ///< stepBytesCommunicated summed
    PhaseSplit m_lastSplit;
};

}  // namespace distlab
