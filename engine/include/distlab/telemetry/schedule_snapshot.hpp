#pragma once
// A split model's schedule as one step ran it (pipeline, model_parallel): each device's forward
// and backward passes with their micro-batch and stage, in time order, and the bubbles measured in
// that step and over the run, beside the schedule's closed form. Taken by the session at the
// snapshot cadence from the step's spans; immutable once published, shared with the GUI.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distlab/telemetry/span.hpp"

namespace distlab {

struct ScheduleCell {
    std::int64_t beginNs = 0;  ///< on the run's clock (the virtual one with "clock": "virtual")
    std::int64_t endNs = 0;
    std::int16_t microBatch = 0;
    std::int16_t stage = 0;
    SpanKind kind = SpanKind::Forward;  ///< Forward, Backward, or a zero-bubble schedule's BackwardInput (B) or BackwardWeight (W)
};

struct ScheduleSnapshot {
    std::int64_t step = 0;
    bool virtualClock = false;
    std::string schedule;  ///< "gpipe", "1f1b", "interleaved"; "gpipe" for model_parallel
    int microBatches = 1;
    int stages = 1;
    int copies = 1;                                ///< data-parallel copies of the pipeline: copy c's device d is lane c·p + d
    std::vector<std::string> devices;              ///< "cpu:0", ... a lane each
    std::vector<std::vector<ScheduleCell>> lanes;  ///< each device's passes, in time order
    std::int64_t beginNs = 0;                      ///< the step's first pass begins
    std::int64_t endNs = 0;                        ///< its last pass ends
    std::vector<double> stepBubble;                ///< each device's bubble in this step
    std::vector<double> runBubble;                 ///< each device's over the run's steps so far
    std::int64_t runSteps = 0;
    std::vector<double> simulatedBubble;             ///< each device's in the schedule at its stages' mean pass times (simulatedBubbles)
    std::optional<double> theory;                    ///< the closed form, where one applies
    std::vector<std::int64_t> activationPeakBytes;   ///< each device's most activation bytes held at once in this step
    std::vector<int> activationPeakMicroBatches;     ///< and the most micro-batch passes it held them for
    std::vector<int> activationTheory;               ///< the schedule's rule for the latter (-1: none; theoreticalPeakMicroBatches)
    std::vector<std::int64_t> stageActivationBytes;  ///< per stage: what one micro-batch's forward holds (its layers' outputs)
};

/// One point of a device's activation memory over a step: from `ns` on, `bytes` are held.
struct HeldActivations {
    std::int64_t ns = 0;
    std::int64_t bytes = 0;
};
/// Lane `lane`'s activation memory over the step, from its passes: a forward holds its stage's
/// micro-batch bytes from its end, a backward (or, split in two, its W) frees them at its end, as
/// the pipeline trainer counts them. Starts at the step's beginning with nothing held.
std::vector<HeldActivations> heldActivations(const ScheduleSnapshot& schedule, std::size_t lane);

}  // namespace distlab
