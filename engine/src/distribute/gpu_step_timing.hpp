#pragma once
// A GPU step's phases as the device measured them, turned into the engine's spans. Each replica's
// stream marks timing points (engine/cuda/cuda_math.h's timer): 0 at the start, then each
// micro-batch's forward (with its loss) and backward ends, the reduction's end and the update's
// end. The device gives milliseconds from point 0; the host places them on the run's clock so that
// the update ends when the replica's wait for its stream returned. Pure (no CUDA), so the mapping is
// tested without a GPU (test_gpu_plan).
#include <cstdint>
#include <span>

#include "distlab/telemetry/span.hpp"

namespace distlab {

struct GpuStepPoints {
    std::int64_t microSteps = 1;
    int count() const { return static_cast<int>(3 + 2 * microSteps); }
    int start() const { return 0; }
    int forwardEnd(std::int64_t micro) const { return static_cast<int>(1 + 2 * micro); }
    int backwardEnd(std::int64_t micro) const { return static_cast<int>(2 + 2 * micro); }
    int reductionEnd() const { return static_cast<int>(1 + 2 * microSteps); }
    int updateEnd() const { return static_cast<int>(2 + 2 * microSteps); }
};

/// Records a replica's spans of one step from `pointMs` (milliseconds from point 0, one per point
/// of `points`): forward and backward per micro-batch, the all-reduce when `reduced` (with
/// `bytesSent`), the optimizer. The update's end lands at `updateEndNs`; no span begins before
/// `notBeforeNs` (the step's start on the host), so times the device reports with a little jitter
/// cannot move the step's start. Returns the replica's start.
std::int64_t recordGpuStepSpans(const GpuStepPoints& points, std::span<const float> pointMs, bool reduced, std::int64_t bytesSent,
                                std::int64_t updateEndNs, std::int64_t notBeforeNs, SpanRecorder& spans);

}  // namespace distlab
