#include "distlab/telemetry/phase_split.hpp"

#include <algorithm>

#include "distlab/telemetry/step_report.hpp"
#include "distlab/telemetry/records.hpp"

namespace distlab {

const char* phaseName(Phase phase) {
    switch (phase) {
        case Phase::Compute:
            return "compute";
        case Phase::Communication:
            return "communication";
        case Phase::Waiting:
            return "waiting";
        case Phase::Optimizer:
            return "optimizer";
        case Phase::Idle:
            return "idle";
    }
    return "?";
}

StepTimes stepTimes(const ReplicaRecord& record) {
    return {record.startNs, record.computeEndNs, record.commEndNs, record.updateEndNs, record.stepEndNs, record.commWaitNs};
}

StepTimes stepTimes(const ReplicaStepStats& stats, std::int64_t stepEndNs) {
    return {stats.startNs, stats.computeEndNs, stats.commEndNs, stats.updateEndNs, stepEndNs, stats.commWaitNs};
}

StepTimes stepTimes(std::int64_t startNs, std::span<const Span> spans, std::int64_t stepEndNs) {
    StepTimes times{startNs, startNs, startNs, startNs, stepEndNs, 0};
    for (const Span& span : spans) {
        switch (span.kind) {
            case SpanKind::Pull:
            case SpanKind::Forward:
            case SpanKind::Backward:
            case SpanKind::BackwardInput:
            case SpanKind::BackwardWeight:
            case SpanKind::Delay:
                times.computeEndNs = std::max(times.computeEndNs, span.endNs);
                break;
            case SpanKind::AllReduce:
            case SpanKind::Push:
                times.commEndNs = std::max(times.commEndNs, span.endNs);
                times.commWaitNs += span.waitNs;
                break;
            case SpanKind::Network:  // within its all-reduce, whose wait already counts its own
                times.commEndNs = std::max(times.commEndNs, span.endNs);
                break;
            case SpanKind::Optimizer:
            case SpanKind::Broadcast:
                times.updateEndNs = std::max(times.updateEndNs, span.endNs);
                break;
        }
    }
    times.commEndNs = std::max(times.commEndNs, times.computeEndNs);
    times.updateEndNs = std::max(times.updateEndNs, times.commEndNs);
    return times;
}

Phase phaseOf(SpanKind kind) {
    switch (kind) {
        case SpanKind::Pull:  // a worker's read comes before its compute, which the phase split counts from it
        case SpanKind::Forward:
        case SpanKind::Backward:
        case SpanKind::BackwardInput:
        case SpanKind::BackwardWeight:
        case SpanKind::Delay:
            return Phase::Compute;
        case SpanKind::AllReduce:
        case SpanKind::Push:
        case SpanKind::Network:
            return Phase::Communication;
        case SpanKind::Optimizer:
        case SpanKind::Broadcast:
            return Phase::Optimizer;
    }
    return Phase::Compute;
}

const char* spanKindName(SpanKind kind) {
    switch (kind) {
        case SpanKind::Forward:
            return "forward";
        case SpanKind::Backward:
            return "backward";
        case SpanKind::BackwardInput:
            return "backward_input";
        case SpanKind::BackwardWeight:
            return "backward_weight";
        case SpanKind::AllReduce:
            return "all_reduce";
        case SpanKind::Optimizer:
            return "optimizer";
        case SpanKind::Broadcast:
            return "broadcast";
        case SpanKind::Pull:
            return "pull";
        case SpanKind::Delay:
            return "delay";
        case SpanKind::Push:
            return "push";
        case SpanKind::Network:
            return "network";
    }
    return "?";
}

std::int64_t stepDurationNs(const StepReport& report) {
    std::int64_t start = report.startNs, end = report.endNs;
    for (const ReplicaStepStats& lane : report.replicas) {
        if (!lane.active) continue;
        start = std::min(start, lane.startNs);
        end = std::max(end, lane.updateEndNs);
    }
    return end - start;
}

double PhaseSplit::total() const {
    double sum = 0.0;
    for (double value : ns) sum += value;
    return sum;
}

void PhaseSplit::add(const PhaseSplit& other, double scale) {
    for (std::size_t i = 0; i < ns.size(); ++i) ns[i] += scale * other.ns[i];
}

PhaseSplit splitPhases(const StepTimes& t) {
    auto span = [](std::int64_t from, std::int64_t to) { return static_cast<double>(std::max<std::int64_t>(0, to - from)); };
    PhaseSplit split;
    const double reduction = span(t.computeEndNs, t.commEndNs);
    const double waiting = std::clamp(static_cast<double>(t.commWaitNs), 0.0, reduction);
    split[Phase::Compute] = span(t.startNs, t.computeEndNs);
    split[Phase::Waiting] = waiting;
    split[Phase::Communication] = reduction - waiting;
    split[Phase::Optimizer] = span(t.commEndNs, t.updateEndNs);
    split[Phase::Idle] = span(t.updateEndNs, t.stepEndNs);
    return split;
}

PhaseSplit splitStep(const StepReport& report) {
    PhaseSplit mean;
    int active = 0;
    for (const ReplicaStepStats& stats : report.replicas) {
        if (!stats.active) continue;
        mean.add(splitPhases(stepTimes(stats, report.endNs)));
        ++active;
    }
    if (active > 1)
        for (double& value : mean.ns) value /= active;
    return mean;
}

std::array<PhaseSpan, 4> phaseSpans(const StepTimes& t) {
    return {PhaseSpan{Phase::Compute, t.startNs, t.computeEndNs}, PhaseSpan{Phase::Communication, t.computeEndNs, t.commEndNs},
            PhaseSpan{Phase::Optimizer, t.commEndNs, t.updateEndNs}, PhaseSpan{Phase::Idle, t.updateEndNs, t.stepEndNs}};
}

}  // namespace distlab
