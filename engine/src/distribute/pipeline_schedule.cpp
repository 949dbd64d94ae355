#include "distlab/distribute/pipeline_schedule.hpp"

#include <algorithm>
#include <limits>
#include <string>

namespace distlab {

namespace {

using Order = std::vector<std::vector<PipelinePass>>;

/// Warm-up forwards, then one forward and one backward in turn, then the remaining backwards:
/// the 1F1B pattern over `units` passes of each kind, the k-th of which is `forward(k)` / `backward(k)`.
template <typename Forward, typename Backward>
std::vector<PipelinePass> oneForwardOneBackward(int units, int warmup, Forward forward, Backward backward) {
    std::vector<PipelinePass> passes;
    warmup = std::min(warmup, units);
    for (int k = 0; k < warmup; ++k) passes.push_back(forward(k));
    for (int k = 0; k < units - warmup; ++k) {
        passes.push_back(forward(warmup + k));
        passes.push_back(backward(k));
    }
    for (int k = units - warmup; k < units; ++k) passes.push_back(backward(k));
    return passes;
}

}  // namespace

Result<Order> pipelineOrder(PipelineSchedule schedule, const PipelineShape& shape) {
    const int p = shape.devices, m = shape.microBatches, v = shape.virtualStages;
    if (p < 1) return Error{"a pipeline needs at least one device (got " + std::to_string(p) + ")"};
    if (m < 1) return Error{"a pipeline needs at least one micro-batch (got " + std::to_string(m) + ")"};
    if (schedule != PipelineSchedule::Interleaved && v != 1)
        return Error{"virtual_stages is for the interleaved schedule (got " + std::to_string(v) + ")"};
    if (schedule == PipelineSchedule::Interleaved) {
        if (v < 2) return Error{"the interleaved schedule needs at least 2 virtual stages a device (got " + std::to_string(v) + ")"};
        if (m % p != 0)
            return Error{"the interleaved schedule needs micro_batches a multiple of the " + std::to_string(p) + " devices (got " +
                         std::to_string(m) + "): it runs them in rounds of one per device"};
    }
    Order order(static_cast<std::size_t>(p));
    for (int d = 0; d < p; ++d) {
        std::vector<PipelinePass>& passes = order[static_cast<std::size_t>(d)];
        switch (schedule) {
            case PipelineSchedule::GPipe:
                for (int i = 0; i < m; ++i) passes.push_back({PassKind::Forward, i, 0});
                for (int i = 0; i < m; ++i) passes.push_back({PassKind::Backward, i, 0});
                break;
            case PipelineSchedule::OneFOneB:
                passes = oneForwardOneBackward(
                    m, p - 1 - d,
                    [](int k) {
                        return PipelinePass{PassKind::Forward, k, 0};
                    },
                    [](int k) {
                        return PipelinePass{PassKind::Backward, k, 0};
                    });
                break;
            case PipelineSchedule::Interleaved: {
                // Megatron's order: the device's forwards go through its chunks p micro-batches at
                // a time (micro-batches 0..p−1 on chunk 0, then on chunk 1, ...), its backwards
                // likewise from the last chunk; the warm-up fills the pipeline of p·v stages.
                const int units = m * v;
                const auto microBatch = [p, v](int k) { return (k / (p * v)) * p + k % p; };
                const int warmup = m == p ? units : (p - d - 1) * 2 + (v - 1) * p;
                passes = oneForwardOneBackward(
                    units, warmup,
                    [&](int k) {
                        return PipelinePass{PassKind::Forward, microBatch(k), (k / p) % v};
                    },
                    [&](int k) {
                        return PipelinePass{PassKind::Backward, microBatch(k), v - 1 - (k / p) % v};
                    });
                break;
            }
        }
    }
    return order;
}

double PipelineTimeline::bubbleFraction(int device) const {
    if (makespan <= 0.0) return 0.0;
    double busy = 0.0;
    for (const TimedPass& pass : devices[static_cast<std::size_t>(device)]) busy += pass.end - pass.start;
    return (makespan - busy) / makespan;
}

Result<PipelineTimeline> simulatePipeline(const Order& order, const PipelineShape& shape, double forwardTime, double backwardTime) {
    const int p = shape.devices, m = shape.microBatches, v = shape.virtualStages;
    const int stages = p * v;
    constexpr double kNotYet = -1.0;
    // When each pass ended, by kind, micro-batch and stage.
    std::vector<double> ended(static_cast<std::size_t>(2 * m * stages), kNotYet);
    const auto at = [&](PassKind kind, int microBatch, int stage) -> double& {
        const std::size_t row = (kind == PassKind::Forward ? 0U : 1U) * static_cast<std::size_t>(m) + static_cast<std::size_t>(microBatch);
        return ended[row * static_cast<std::size_t>(stages) + static_cast<std::size_t>(stage)];
    };
    PipelineTimeline timeline;
    timeline.devices.resize(static_cast<std::size_t>(p));
    std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
    std::vector<double> free(static_cast<std::size_t>(p), 0.0);
    std::size_t left = 0;
    for (const auto& passes : order) left += passes.size();
    while (left > 0) {
        bool progressed = false;
        for (int d = 0; d < p; ++d) {
            const auto device = static_cast<std::size_t>(d);
            while (next[device] < order[device].size()) {
                const PipelinePass& pass = order[device][next[device]];
                if (pass.microBatch < 0 || pass.microBatch >= m || pass.chunk < 0 || pass.chunk >= v)
                    return Error{"device " + std::to_string(d) + " has a pass outside the pipeline's shape"};
                const int stage = pass.chunk * p + d;
                // What the pass waits for: its input from the stage before (forward), or the
                // gradient from the stage after and its own forward (backward).
                double ready = 0.0;
                bool waiting = false;
                const auto needs = [&](PassKind kind, int needStage) {
                    const double end = at(kind, pass.microBatch, needStage);
                    if (end == kNotYet) waiting = true;
                    ready = std::max(ready, end);
                };
                if (pass.kind == PassKind::Forward) {
                    if (stage > 0) needs(PassKind::Forward, stage - 1);
                } else {
                    needs(PassKind::Forward, stage);
                    if (stage < stages - 1) needs(PassKind::Backward, stage + 1);
                }
                if (waiting) break;
                const double start = std::max(ready, free[device]);
                const double end = start + (pass.kind == PassKind::Forward ? forwardTime : backwardTime);
                at(pass.kind, pass.microBatch, stage) = end;
                free[device] = end;
                timeline.devices[device].push_back({pass, start, end});
                timeline.makespan = std::max(timeline.makespan, end);
                ++next[device];
                --left;
                progressed = true;
            }
        }
        if (!progressed) return Error{"the pipeline's order cannot finish: every device waits for a pass that waits for it"};
    }
    return timeline;
}

double theoreticalBubbleFraction(PipelineSchedule schedule, const PipelineShape& shape) {
    const double p = shape.devices, m = shape.microBatches, v = schedule == PipelineSchedule::Interleaved ? shape.virtualStages : 1;
    return (p - 1) / (v * m + p - 1);
}

}  // namespace distlab
