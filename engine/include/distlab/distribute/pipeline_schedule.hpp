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
// needs its backward at stage s + 1, and at the last stage its forward there.
#include <vector>

#include "distlab/core/error.hpp"

namespace distlab {

enum class PipelineSchedule {
    GPipe,       ///< every forward, then every backward
    OneFOneB,    ///< PipeDream-Flush: p − 1 − d forwards to warm up, then one forward, one backward
    Interleaved  ///< 1F1B over v chunks a device (Megatron's interleaved schedule)
};

enum class PassKind { Forward, Backward };

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

/// Each device's passes in the order it runs them (m·v forwards and m·v backwards each). An Error
/// says why the shape cannot run the schedule: fewer than one device or micro-batch, v other than 1
/// for GPipe and 1F1B, v < 2 or m not a multiple of p for interleaved.
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
/// ended, a forward of one chunk taking `forwardTime` and a backward `backwardTime` (transfers take
/// no time). An Error when the order cannot finish (a device waits for a pass that waits for it).
Result<PipelineTimeline> simulatePipeline(const std::vector<std::vector<PipelinePass>>& order, const PipelineShape& shape,
                                          double forwardTime, double backwardTime);

/// The closed form of a schedule's bubble, as a share of the step, for equal stages:
/// (p − 1)/(m + p − 1) for GPipe and 1F1B, (p − 1)/(v·m + p − 1) for interleaved.
double theoreticalBubbleFraction(PipelineSchedule schedule, const PipelineShape& shape);

}  // namespace distlab
