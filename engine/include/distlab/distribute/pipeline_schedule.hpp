#pragma once
// Pipeline schedules (issue 43): the order in which each device of a pipeline runs its
// micro-batches' forward and backward passes, and where those passes fall in time when every pass
// of a kind takes the same time. The pipeline trainer is to follow the orders; the timeline is
// the schedule's theory, made by placing every pass as early as its device's order and its
// dependencies allow (a discrete-event schedule), so its bubble can be set beside the closed
// forms and, later, beside a measured run.
//
// A pipeline of `devices` (p) devices with `virtualStages` (v) model chunks on each has p·v
// stages; chunk c of device d is stage c·p + d (Megatron's interleaving; v = 1: stage d).
// Micro-batch i's forward at stage s needs its forward at stage s − 1; its backward at stage s
// needs its own forward there and its backward at stage s + 1. Zero-bubble schedules split a
// backward in two: the input gradient (B), which the stage before waits for, needs what a whole
// backward needs; the weight gradient (W) needs only its own stage's B, so it can wait to fill
// what would be a bubble.
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "distlab/config/run_config.hpp"  // PipelineSchedule
#include "distlab/core/error.hpp"
#include "distlab/telemetry/step_report.hpp"

namespace distlab {

enum class PassKind {
    Forward,
    Backward,       ///< a whole backward (input and weight gradients)
    BackwardInput,  ///< B: the input gradient alone (zero-bubble schedules)
    BackwardWeight  ///< W: the weight gradient alone (zero-bubble schedules)
};

/// How long a pass of each kind takes on one chunk. A dense layer's backward is two products
/// against its forward's one, so a whole backward takes twice a forward and B and W one each.
struct PassTimes {
    double forward = 1.0;
    double backward = 2.0;
    double backwardInput = 1.0;
    double backwardWeight = 1.0;
};

struct PipelinePass {
    PassKind kind = PassKind::Forward;
    int microBatch = 0;
    int chunk = 0;  ///< which of the device's model chunks (0 .. v − 1)
    bool operator==(const PipelinePass&) const = default;
};

struct PipelineShape {
    int devices = 1;        ///< p
    int microBatches = 1;   ///< m
    int virtualStages = 1;  ///< v: model chunks a device (interleaved only; 1 otherwise)
};

/// Each device's passes in the order it runs them (m·v forwards and m·v backwards each; ZB-H1: m
/// forwards, B's and W's). ZB-H1's order is list scheduling with `PassTimes{}`: an idle device
/// takes its ready B first, else its next forward while fewer than 1F1B's p − d micro-batches are
/// in flight (a B ends one's flight), else its oldest W. An Error says why the shape cannot run
/// the schedule: fewer than one device or micro-batch, v other than 1 except for interleaved, v < 2
/// or m not a multiple of p for interleaved.
Result<std::vector<std::vector<PipelinePass>>> pipelineOrder(PipelineSchedule schedule, const PipelineShape& shape);

struct TimedPass {
    PipelinePass pass;
    double start = 0.0;
    double end = 0.0;
};

struct PipelineTimeline {
    std::vector<std::vector<TimedPass>> devices;  ///< each device's passes, in its order
    double makespan = 0.0;                        ///< from the first pass's start to the last pass's end
    /// The share of the makespan device `device` spends idle.
    double bubbleFraction(int device) const;
};

/// Places every pass of `order` at the earliest time its device is free and its dependencies have
/// ended, each taking its kind's time on one chunk (transfers take no time). An Error when the
/// order cannot finish (a device waits for a pass that waits for it).
Result<PipelineTimeline> simulatePipeline(const std::vector<std::vector<PipelinePass>>& order, const PipelineShape& shape,
                                          const PassTimes& times);

/// simulatePipeline with each stage's own pass times (`stageTimes[s]`, one per stage, p·v of them;
/// chunk c of device d is stage c·p + d). An Error also when there are fewer stage times than stages.
Result<PipelineTimeline> simulatePipeline(const std::vector<std::vector<PipelinePass>>& order, const PipelineShape& shape,
                                          std::span<const PassTimes> stageTimes);

/// How long pass `index` of device `device`'s order takes (a measured duration, on the virtual clock).
using PassDuration = std::function<double(int device, std::size_t index)>;
/// simulatePipeline for any placement of stages on devices (`stageOfChunk[d][c]`: the stage chunk c
/// of device d is; stage s's forward needs stage s − 1's) and any durations.
Result<PipelineTimeline> simulatePipeline(const std::vector<std::vector<PipelinePass>>& order, int microBatches,
                                          const std::vector<std::vector<int>>& stageOfChunk, const PassDuration& duration);

/// The closed form of a schedule's bubble, as a share of the step, for equal stages and
/// `PassTimes{}`: (p − 1)/(m + p − 1) for GPipe and 1F1B, (p − 1)/(v·m + p − 1) for interleaved,
/// and for ZB-H1 (p − 1)/(3m + p − 1) (Qi et al., "Zero Bubble Pipeline Parallelism", 2023: its
/// W's fill two of the three time units 1F1B waits for each stage of the ramp). ZB-H1's holds for
/// m ≥ p; with fewer micro-batches than stages there is no steady phase whose W's could fill the
/// ramp, and the bubble is larger (still below 1F1B's).
double theoreticalBubbleFraction(PipelineSchedule schedule, const PipelineShape& shape);

/// The most micro-batches device `device` holds activations for at once, by the schedule's rule:
/// GPipe all m, 1F1B min(p − d, m) (its warm-up forwards plus the one in flight). Nullopt for the
/// other schedules (interleaved and ZB-H1 are measured only).
std::optional<int> theoreticalPeakMicroBatches(PipelineSchedule schedule, const PipelineShape& shape, int device);

/// Whether a span is a pipeline pass (a forward, a backward, or a zero-bubble schedule's B or W).
bool isPipelinePass(SpanKind kind);
/// The pass a pipeline pass's span is (isPipelinePass(kind) must hold).
PassKind passKindOf(SpanKind kind);

/// A pipeline's bubbles as its steps measured them: each lane's forward and backward spans are its
/// busy time; a step's makespan runs from the first of them to begin to the last to end (the
/// optimizer after the flush is not part of the schedule). The fraction is each lane's idle share
/// of the makespans added over the steps. It also keeps each stage's mean duration of each kind of pass.
class BubbleMeter {
public:
    void add(const StepReport& report);
    /// Each lane's bubble fraction so far (empty before a step).
    std::vector<double> fractions() const;
    std::int64_t steps() const { return m_steps; }
    /// Each stage's mean duration of each kind of pass so far, in nanoseconds, by stage (the spans'
    /// `stage`); a kind a stage did not run keeps PassTimes{}'s ratio to its forward (a backward
    /// twice a forward, B and W one each). Empty before a step.
    std::vector<PassTimes> meanStageTimes() const;

private:
    struct KindTotals {
        std::array<double, 4> ns{};  ///< by PassKind: the passes' durations added
        std::array<std::int64_t, 4> count{};
    };
    std::vector<KindTotals> m_stages;
    std::vector<double> m_busyNs;
    double m_makespanNs = 0.0;
    std::int64_t m_steps = 0;
};

}  // namespace distlab
