#include "distribute/gpu_step_timing.hpp"

#include <algorithm>
#include <cmath>

namespace distlab {
namespace {
std::int64_t nanoseconds(double milliseconds) { return static_cast<std::int64_t>(std::llround(milliseconds * 1e6)); }
}  // namespace

std::int64_t recordGpuStepSpans(const GpuStepPoints& points, std::span<const float> pointMs, bool reduced, std::int64_t bytesSent,
                                std::int64_t updateEndNs, std::int64_t notBeforeNs, SpanRecorder& spans) {
    spans.clear();
    if (pointMs.size() < static_cast<std::size_t>(points.count())) return updateEndNs;
    const double lastMs = pointMs[static_cast<std::size_t>(points.updateEnd())];
    const std::int64_t startNs = std::max(notBeforeNs, updateEndNs - nanoseconds(lastMs));
    // Point p on the run's clock; clamped into the step, and never before the point before it.
    std::int64_t previous = startNs;
    auto at = [&](int point) {
        const std::int64_t ns = startNs + nanoseconds(pointMs[static_cast<std::size_t>(point)]);
        previous = std::clamp(ns, previous, std::max(previous, updateEndNs));
        return previous;
    };
    for (std::int64_t micro = 0; micro < points.microSteps; ++micro) {
        const std::int64_t begin = previous;
        const std::int64_t forwardEnd = at(points.forwardEnd(micro));
        Span forward{begin, forwardEnd};
        forward.kind = SpanKind::Forward;
        forward.microBatch = static_cast<std::int16_t>(micro);
        spans.add(forward);
        Span backward{forwardEnd, at(points.backwardEnd(micro))};
        backward.kind = SpanKind::Backward;
        backward.microBatch = static_cast<std::int16_t>(micro);
        spans.add(backward);
    }
    const std::int64_t computeEnd = previous;
    const std::int64_t reductionEnd = at(points.reductionEnd());
    if (reduced) {
        Span reduction{computeEnd, reductionEnd, bytesSent};
        reduction.kind = SpanKind::AllReduce;
        reduction.pack = 0;
        spans.add(reduction);
    }
    // One replica has no reduction: the little between its backward and its update (the gradient's
    // norm) goes with the update rather than nowhere.
    Span update{reduced ? reductionEnd : computeEnd, at(points.updateEnd())};
    update.kind = SpanKind::Optimizer;
    spans.add(update);
    return startNs;
}

}  // namespace distlab
