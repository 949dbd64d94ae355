#include "distlab/distribute/pipeline_schedule.hpp"

#include <algorithm>
#include <limits>
#include <optional>
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

constexpr double kNotYet = -1.0;

/// When each pass ended, by kind, micro-batch and stage; and when a pass's inputs are ready.
class PassClock {
public:
    PassClock(int microBatches, int stages)
        : m_microBatches(static_cast<std::size_t>(microBatches)),
          m_stages(static_cast<std::size_t>(stages)),
          m_ended(4 * m_microBatches * m_stages, kNotYet) {}

    double& ended(PassKind kind, int microBatch, int stage) {
        const std::size_t row = static_cast<std::size_t>(kind) * m_microBatches + static_cast<std::size_t>(microBatch);
        return m_ended[row * m_stages + static_cast<std::size_t>(stage)];
    }

    /// When `pass`, on `stage`, has all it needs: a forward the stage before's forward; a backward
    /// or a B its own forward and the stage after's backward or B; a W its own B. Nullopt while
    /// one of them has not run.
    std::optional<double> ready(const PipelinePass& pass, int stage) {
        const int last = static_cast<int>(m_stages) - 1;
        double at = 0.0;
        bool waiting = false;
        const auto needs = [&](PassKind kind, int needStage) {
            const double end = ended(kind, pass.microBatch, needStage);
            waiting = waiting || end == kNotYet;
            at = std::max(at, end);
        };
        switch (pass.kind) {
            case PassKind::Forward:
                if (stage > 0) needs(PassKind::Forward, stage - 1);
                break;
            case PassKind::Backward:
            case PassKind::BackwardInput:
                needs(PassKind::Forward, stage);
                if (stage < last) needs(pass.kind, stage + 1);
                break;
            case PassKind::BackwardWeight:
                needs(PassKind::BackwardInput, stage);
                break;
        }
        if (waiting) return std::nullopt;
        return at;
    }

private:
    std::size_t m_microBatches;
    std::size_t m_stages;
    std::vector<double> m_ended;
};

double durationOf(PassKind kind, const PassTimes& times) {
    switch (kind) {
        case PassKind::Forward:
            return times.forward;
        case PassKind::Backward:
            return times.backward;
        case PassKind::BackwardInput:
            return times.backwardInput;
        case PassKind::BackwardWeight:
            return times.backwardWeight;
    }
    return times.forward;
}

/// ZB-H1 by list scheduling with equal pass times: whenever a device is idle it takes its ready B
/// (the stage before waits for it), else its next forward while fewer than p − d micro-batches are
/// in flight (1F1B's memory; a B ends a micro-batch's flight), else its oldest W, which no other
/// stage waits for. Time moves from one pass's end to the next.
Order zeroBubbleH1(int p, int m) {
    const PassTimes times;
    PassClock clock(m, p);
    Order order(static_cast<std::size_t>(p));
    std::vector<int> nextForward(static_cast<std::size_t>(p), 0), nextInput(static_cast<std::size_t>(p), 0),
        nextWeight(static_cast<std::size_t>(p), 0), inFlight(static_cast<std::size_t>(p), 0);
    std::vector<double> busyUntil(static_cast<std::size_t>(p), 0.0);
    double now = 0.0;
    for (std::size_t left = 3 * static_cast<std::size_t>(m) * static_cast<std::size_t>(p); left > 0;) {
        for (int d = 0; d < p; ++d) {
            const auto device = static_cast<std::size_t>(d);
            if (busyUntil[device] > now) continue;
            const auto readyNow = [&](PassKind kind, int microBatch) {
                if (microBatch >= m) return false;
                const std::optional<double> at = clock.ready(PipelinePass{kind, microBatch, 0}, d);
                return at && *at <= now;
            };
            PipelinePass pass;
            if (readyNow(PassKind::BackwardInput, nextInput[device])) {
                pass = {PassKind::BackwardInput, nextInput[device]++, 0};
                --inFlight[device];
            } else if (inFlight[device] < p - d && readyNow(PassKind::Forward, nextForward[device])) {
                pass = {PassKind::Forward, nextForward[device]++, 0};
                ++inFlight[device];
            } else if (nextWeight[device] < nextInput[device]) {  // its B has run: a W is always ready
                pass = {PassKind::BackwardWeight, nextWeight[device]++, 0};
            } else {
                continue;  // waits for another stage
            }
            busyUntil[device] = now + durationOf(pass.kind, times);
            clock.ended(pass.kind, pass.microBatch, d) = busyUntil[device];
            order[device].push_back(pass);
            --left;
        }
        // On to the next end of a pass: every input a device may wait for comes with one.
        double next = std::numeric_limits<double>::infinity();
        for (const double until : busyUntil)
            if (until > now) next = std::min(next, until);
        if (next == std::numeric_limits<double>::infinity()) break;  // cannot happen: some stage can always go on
        now = next;
    }
    return order;
}

}  // namespace

Result<Order> pipelineOrder(PipelineSchedule schedule, const PipelineShape& shape) {
    const int p = shape.devices, m = shape.microBatches, v = shape.virtualStages;
    if (p < 1) return Error{"a pipeline needs at least one device (got " + std::to_string(p) + ")"};
    if (m < 1) return Error{"a pipeline needs at least one micro-batch (got " + std::to_string(m) + ")"};
    if (schedule != PipelineSchedule::Interleaved && v != 1)
        return Error{"virtual_stages is for the interleaved schedule (got " + std::to_string(v) + ")"};
    if (schedule == PipelineSchedule::ZeroBubbleH1) return zeroBubbleH1(p, m);
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
            case PipelineSchedule::ZeroBubbleH1:
                break;  // made above
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

Result<PipelineTimeline> simulatePipeline(const Order& order, int microBatches, const std::vector<std::vector<int>>& stageOfChunk,
                                          const PassDuration& duration) {
    const auto p = static_cast<int>(order.size());
    int stages = 0;
    for (const auto& chunks : stageOfChunk) stages += static_cast<int>(chunks.size());
    PassClock clock(microBatches, stages);
    PipelineTimeline timeline;
    timeline.devices.resize(static_cast<std::size_t>(p));
    std::vector<std::size_t> next(static_cast<std::size_t>(p), 0);
    std::vector<double> free(static_cast<std::size_t>(p), 0.0);
    std::size_t left = 0;
    for (const auto& passes : order) left += passes.size();
    // A pass's start depends only on its device's previous pass and its inputs, so the devices can
    // be placed in any order: each goes as far as its inputs have been placed, round after round.
    while (left > 0) {
        bool progressed = false;
        for (int d = 0; d < p; ++d) {
            const auto device = static_cast<std::size_t>(d);
            const auto chunks = static_cast<int>(stageOfChunk[device].size());
            while (next[device] < order[device].size()) {
                const PipelinePass& pass = order[device][next[device]];
                if (pass.microBatch < 0 || pass.microBatch >= microBatches || pass.chunk < 0 || pass.chunk >= chunks)
                    return Error{"device " + std::to_string(d) + " has a pass outside the pipeline's shape"};
                const int stage = stageOfChunk[device][static_cast<std::size_t>(pass.chunk)];
                const std::optional<double> ready = clock.ready(pass, stage);
                if (!ready) break;
                const double start = std::max(*ready, free[device]);
                const double end = start + duration(d, next[device]);
                clock.ended(pass.kind, pass.microBatch, stage) = end;
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

Result<PipelineTimeline> simulatePipeline(const Order& order, const PipelineShape& shape, std::span<const PassTimes> stageTimes) {
    if (static_cast<int>(order.size()) != shape.devices)
        return Error{"the order has " + std::to_string(order.size()) + " devices, the shape " + std::to_string(shape.devices)};
    if (stageTimes.size() < static_cast<std::size_t>(shape.devices) * static_cast<std::size_t>(shape.virtualStages))
        return Error{"the pipeline has " + std::to_string(shape.devices * shape.virtualStages) + " stages, times for " +
                     std::to_string(stageTimes.size())};
    std::vector<std::vector<int>> stageOfChunk(static_cast<std::size_t>(shape.devices));
    for (int d = 0; d < shape.devices; ++d)
        for (int c = 0; c < shape.virtualStages; ++c) stageOfChunk[static_cast<std::size_t>(d)].push_back(c * shape.devices + d);
    return simulatePipeline(order, shape.microBatches, stageOfChunk, [&](int device, std::size_t index) {
        const PipelinePass& pass = order[static_cast<std::size_t>(device)][index];
        const int stage = stageOfChunk[static_cast<std::size_t>(device)][static_cast<std::size_t>(pass.chunk)];
        return durationOf(pass.kind, stageTimes[static_cast<std::size_t>(stage)]);
    });
}

Result<PipelineTimeline> simulatePipeline(const Order& order, const PipelineShape& shape, const PassTimes& times) {
    const std::vector<PassTimes> equal(static_cast<std::size_t>(std::max(0, shape.devices * shape.virtualStages)), times);
    return simulatePipeline(order, shape, equal);
}

double theoreticalBubbleFraction(PipelineSchedule schedule, const PipelineShape& shape) {
    const double p = shape.devices, m = shape.microBatches;
    if (schedule == PipelineSchedule::ZeroBubbleH1) return (p - 1) / (3 * m + p - 1);
    const double v = schedule == PipelineSchedule::Interleaved ? shape.virtualStages : 1;
    return (p - 1) / (v * m + p - 1);
}

std::optional<int> theoreticalPeakMicroBatches(PipelineSchedule schedule, const PipelineShape& shape, int device) {
    if (schedule == PipelineSchedule::GPipe) return shape.microBatches;
    if (schedule == PipelineSchedule::OneFOneB) return std::min(shape.devices - device, shape.microBatches);
    return std::nullopt;
}

bool isPipelinePass(SpanKind kind) {
    return kind == SpanKind::Forward || kind == SpanKind::Backward || kind == SpanKind::BackwardInput || kind == SpanKind::BackwardWeight;
}

PassKind passKindOf(SpanKind kind) {
    switch (kind) {
        case SpanKind::Backward:
            return PassKind::Backward;
        case SpanKind::BackwardInput:
            return PassKind::BackwardInput;
        case SpanKind::BackwardWeight:
            return PassKind::BackwardWeight;
        default:
            return PassKind::Forward;
    }
}

void BubbleMeter::add(const StepReport& report) {
    m_busyNs.resize(report.replicas.size(), 0.0);
    std::int64_t first = std::numeric_limits<std::int64_t>::max(), last = std::numeric_limits<std::int64_t>::min();
    for (std::size_t lane = 0; lane < report.replicas.size(); ++lane)
        for (const Span& span : report.replicas[lane].spans) {
            if (!isPipelinePass(span.kind)) continue;
            m_busyNs[lane] += static_cast<double>(span.endNs - span.beginNs);
            if (span.stage >= 0) {
                if (static_cast<std::size_t>(span.stage) >= m_stages.size()) m_stages.resize(static_cast<std::size_t>(span.stage) + 1);
                KindTotals& stage = m_stages[static_cast<std::size_t>(span.stage)];
                const auto kind = static_cast<std::size_t>(passKindOf(span.kind));
                stage.ns[kind] += static_cast<double>(span.endNs - span.beginNs);
                ++stage.count[kind];
            }
            first = std::min(first, span.beginNs);
            last = std::max(last, span.endNs);
        }
    if (last < first) return;  // no pass in this step
    m_makespanNs += static_cast<double>(last - first);
    ++m_steps;
}

std::vector<double> BubbleMeter::fractions() const {
    std::vector<double> out;
    if (m_makespanNs <= 0.0) return out;
    for (const double busy : m_busyNs) out.push_back(std::max(0.0, 1.0 - busy / m_makespanNs));
    return out;
}

std::vector<PassTimes> BubbleMeter::meanStageTimes() const {
    std::vector<PassTimes> stages;
    const PassTimes ratios;
    for (const KindTotals& stage : m_stages) {
        const auto mean = [&stage](PassKind kind, double otherwise) {
            const auto k = static_cast<std::size_t>(kind);
            return stage.count[k] > 0 ? stage.ns[k] / static_cast<double>(stage.count[k]) : otherwise;
        };
        const double forward = mean(PassKind::Forward, ratios.forward);
        stages.push_back(PassTimes{forward, mean(PassKind::Backward, forward * ratios.backward),
                                   mean(PassKind::BackwardInput, forward * ratios.backwardInput),
                                   mean(PassKind::BackwardWeight, forward * ratios.backwardWeight)});
    }
    return stages;
}

}  // namespace distlab
