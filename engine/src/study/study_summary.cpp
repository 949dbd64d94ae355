#include "distlab/study/study_summary.hpp"

#include <cmath>
#include <numeric>

namespace distlab {

const char* variantStateName(VariantState state) {
    switch (state) {
        case VariantState::Waiting:
            return "waiting";
        case VariantState::Loading:
            return "loading";
        case VariantState::Running:
            return "running";
        case VariantState::Finished:
            return "finished";
        case VariantState::Cancelled:
            return "cancelled";
        case VariantState::Failed:
            return "failed";
    }
    return "?";
}

PhaseShares phaseShares(const PhaseSplit& totals) {
    const double total = totals.total();
    if (!(total > 0.0)) return {};
    return {totals[Phase::Compute] / total, totals[Phase::Communication] / total, waitingAndIdleNs(totals) / total,
            totals[Phase::Optimizer] / total};
}

std::int64_t stepBytesCommunicated(const StepReport& report) {
    std::int64_t bytes = 0;
    for (const ReplicaStepStats& lane : report.replicas) {
        if (!lane.active) continue;
        bytes += lane.bytesSent;
        for (const Span& span : lane.spans)
            if (span.kind == SpanKind::Pull || span.kind == SpanKind::Push) bytes += span.bytes;
    }
    return bytes;
}

VariantTally::VariantTally(std::string label, std::optional<double> targetAccuracy) : m_target(targetAccuracy) {
    m_row.label = std::move(label);
}

void VariantTally::addStep(const StepReport& report, std::int64_t stepNs) {
    StudyRow& row = m_row;
    row.steps = report.step;
    m_trainingNs += stepNs;
    row.trainingSeconds = double(m_trainingNs) * 1e-9;
    row.finalLoss = report.loss;
    m_lastSplit = splitStep(report);
    row.phaseTotalsNs.add(m_lastSplit);
    row.shares = phaseShares(row.phaseTotalsNs);
    m_bytes += double(stepBytesCommunicated(report));
    row.bytesPerStep = m_bytes / double(row.steps);
    row.samples += report.samples;
    row.samplesPerSecond = m_trainingNs > 0 ? double(row.samples) / row.trainingSeconds : 0.0;
    if (m_bubbles) {
        m_bubbles->add(report);
        const std::vector<double> lanes = m_bubbles->fractions();
        if (!lanes.empty()) row.bubble = std::accumulate(lanes.begin(), lanes.end(), 0.0) / static_cast<double>(lanes.size());
    }
}

void VariantTally::measureBubbles(std::optional<double> theory) {
    m_bubbles.emplace();
    m_row.bubbleTheory = theory;
}

void VariantTally::addAccuracy(double accuracy) {
    if (accuracy < 0) return;  // regression
    m_row.accuracy = accuracy;
    if (m_target && !m_row.stepsToTarget && accuracy >= *m_target) {
        m_row.stepsToTarget = m_row.steps;
        m_row.secondsToTarget = m_row.trainingSeconds;
    }
}

void VariantTally::setFinalTest(const EvalResult& test) {
    m_row.testLoss = test.loss;
    addAccuracy(test.accuracy);
}

void VariantTally::finish(VariantState state, std::string message) {
    m_row.state = state;
    m_row.message = std::move(message);
}

}  // namespace distlab
