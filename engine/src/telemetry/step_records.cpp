#include "distlab/telemetry/step_records.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

namespace distlab {

StepRecord toStepRecord(const StepReport& report) {
    StepRecord step;
    step.step = report.step;
    step.epoch = report.epoch;
    step.loss = report.loss;
    step.accuracy = report.accuracy;
    step.learningRate = report.learningRate;
    step.startNs = report.startNs;
    step.endNs = report.endNs;
    step.durationNs = stepDurationNs(report);
    step.phases = splitStep(report);
    float low = std::numeric_limits<float>::infinity(), high = -low;
    for (const ReplicaStepStats& lane : report.replicas) {
        if (!lane.active) continue;
        step.hasLanes = true;
        low = std::min(low, lane.watched[0]);
        high = std::max(high, lane.watched[0]);
    }
    if (step.hasLanes) step.watchedSpread = high - low;
    step.samples = report.samples;
    step.worker = report.worker;
    step.staleness = report.staleness;
    step.serverBusyNs = report.serverBusyNs;
    return step;
}

ReplicaRecord toReplicaRecord(const StepReport& report, int replica, std::uint32_t watchGeneration) {
    const ReplicaStepStats& stats = report.replicas[static_cast<std::size_t>(replica)];
    ReplicaRecord record;
    record.step = report.step;
    record.replica = replica;
    record.localLoss = static_cast<float>(stats.localLoss());
    record.gradNormBefore = static_cast<float>(stats.gradNormBefore);
    record.gradNormAfter = static_cast<float>(stats.gradNormAfter);
    record.startNs = stats.startNs;
    record.computeEndNs = stats.computeEndNs;
    record.commEndNs = stats.commEndNs;
    record.updateEndNs = stats.updateEndNs;
    record.stepEndNs = report.endNs;
    record.commWaitNs = stats.commWaitNs;
    for (const Span& span : stats.spans) {
        if (span.kind != SpanKind::Network) continue;
        if (record.networkNs == 0) record.networkBeginNs = span.beginNs;
        record.networkNs += span.endNs - span.beginNs;
    }
    record.bytesSent = stats.bytesSent;
    record.bytesFromRingFormula = report.bytesFromRingFormula;
    std::copy(std::begin(stats.watched), std::end(stats.watched), std::begin(record.watched));
    record.active = stats.active;
    record.watchGeneration = watchGeneration;
    record.staleness = stats.staleness;
    return record;
}

}  // namespace distlab
