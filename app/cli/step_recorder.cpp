#include "step_recorder.hpp"

#include <algorithm>
#include <limits>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/telemetry/phase_split.hpp"

namespace distlab::cli {
namespace {

constexpr std::int64_t kPublishEveryNs = 10'000'000'000;
constexpr std::int64_t kPublishCostFactor = 20;

}  // namespace

Result<StepRecorder> StepRecorder::open(const std::string& metricsPath, const std::string& tracePath, const std::string& runName,
                                        int replicas, bool parameterServer) {
    StepRecorder recorder;
    recorder.m_parameterServer = parameterServer;
    if (!metricsPath.empty()) {
        auto metrics = MetricsWriter::open(metricsPath);
        if (!metrics) return metrics.error();
        recorder.m_metrics.emplace(std::move(metrics.value()));
    }
    if (!tracePath.empty()) {
        std::vector<std::string> devices;
        for (int r = 0; r < replicas; ++r) devices.push_back("cpu:" + std::to_string(r));
        auto trace = ChromeTraceWriter::open(tracePath, runName, devices);
        if (!trace) return trace.error();
        recorder.m_trace.emplace(std::move(trace.value()));
    }
    return recorder;
}

void StepRecorder::record(const StepReport& report, std::optional<EvalResult> test) {
    if (m_metrics) {
        MetricsRecord& r = m_record;
        const std::size_t n = report.replicas.size();
        r.step = report.step;
        r.epoch = report.epoch;
        r.loss = report.loss;
        r.learningRate = report.learningRate;
        r.stepMs = double(stepDurationNs(report)) * 1e-6;
        r.gradNormBefore.resize(n);
        r.gradNormAfter.resize(n);
        r.replicaLoss.resize(n);
        r.bytesCommunicated = 0;
        r.bytesFromRingFormula = report.bytesFromRingFormula;
        for (std::size_t i = 0; i < n; ++i) {
            const ReplicaStepStats& s = report.replicas[i];
            if (!s.active) {  // an asynchronous worker that did not contribute: no numbers (null)
                r.gradNormBefore[i] = r.gradNormAfter[i] = r.replicaLoss[i] = std::numeric_limits<double>::quiet_NaN();
                continue;
            }
            r.gradNormBefore[i] = s.gradNormBefore;
            r.gradNormAfter[i] = s.gradNormAfter;
            r.replicaLoss[i] = s.localLoss();
            r.bytesCommunicated += s.bytesSent;
        }
        const PhaseSplit split = splitStep(report);
        r.computeMs = split[Phase::Compute] * 1e-6;
        r.optimizerMs = split[Phase::Optimizer] * 1e-6;
        r.commMs = split[Phase::Communication] * 1e-6;
        r.waitMs = (split[Phase::Waiting] + split[Phase::Idle]) * 1e-6;
        const bool parameterServer = m_parameterServer;
        r.worker = parameterServer ? std::optional<std::int64_t>(report.worker) : std::nullopt;
        r.staleness = parameterServer ? std::optional<std::int64_t>(report.staleness) : std::nullopt;
        r.trainAccuracy = report.accuracy >= 0 ? std::optional<double>(report.accuracy) : std::nullopt;
        r.testLoss = test ? std::optional<double>(test->loss) : std::nullopt;
        r.testAccuracy = test && test->accuracy >= 0 ? std::optional<double>(test->accuracy) : std::nullopt;
        m_metrics->write(r);
    }
    if (m_trace) {
        for (std::size_t i = 0; i < report.replicas.size(); ++i) {
            const ReplicaStepStats& s = report.replicas[i];
            if (!s.active) continue;
            const int device = static_cast<int>(i);
            if (s.spans.empty()) {
                // A lane without spans: its four phases.
                for (const PhaseSpan& span : phaseSpans(stepTimes(s, report.endNs)))
                    if (span.endNs > span.beginNs)
                        m_trace->add({device,
                                      phaseName(span.phase),
                                      {},
                                      report.step,
                                      double(span.beginNs) * 1e-3,
                                      double(span.endNs - span.beginNs) * 1e-3});
                continue;
            }
            // Piece by piece: each micro-batch's forward and backward, each pack's all-reduce with
            // its bytes, the update (a worker: its pull, compute, push and straggler delay); then
            // the wait for the slowest replica.
            for (const Span& span : s.spans) {
                // An all-reduce overlapped with backward goes on the lane's reduction track, beside
                // the compute it overlaps (events of one track must nest).
                const int track = span.overlapped ? reductionTrack(device, static_cast<int>(report.replicas.size())) : device;
                const bool moves = span.kind == SpanKind::AllReduce || span.kind == SpanKind::Broadcast || span.kind == SpanKind::Pull ||
                                   span.kind == SpanKind::Push || span.kind == SpanKind::Network;
                m_trace->add({track, spanKindName(span.kind), phaseName(phaseOf(span.kind)), report.step, double(span.beginNs) * 1e-3,
                              double(span.endNs - span.beginNs) * 1e-3, span.microBatch, span.pack, moves ? span.bytes : -1,
                              moves && report.bytesFromRingFormula, span.stage});
            }
            // A parameter-server worker's gradient then waits at the servers until it is applied
            // (its lane's optimizer phase, from the protocol's timestamps).
            const std::int64_t spansEnd = s.spans.back().endNs;
            if (s.updateEndNs > spansEnd)
                m_trace->add({device, "applied", phaseName(Phase::Optimizer), report.step, double(spansEnd) * 1e-3,
                              double(s.updateEndNs - spansEnd) * 1e-3});
            if (report.endNs > s.updateEndNs)
                m_trace->add({device,
                              phaseName(Phase::Idle),
                              {},
                              report.step,
                              double(s.updateEndNs) * 1e-3,
                              double(report.endNs - s.updateEndNs) * 1e-3});
        }
    }
}

int StepRecorder::reductionTrack(int device, int replicas) {
    const int track = replicas + device;
    if (m_reductionTracks.size() <= static_cast<std::size_t>(device)) m_reductionTracks.resize(static_cast<std::size_t>(device) + 1);
    if (!m_reductionTracks[static_cast<std::size_t>(device)]) {
        m_trace->nameTrack(track, "cpu:" + std::to_string(device) + " reduction", device);
        m_reductionTracks[static_cast<std::size_t>(device)] = true;
    }
    return track;
}

Status StepRecorder::publish() {
    Status result = Ok{};
    if (m_metrics) result = m_metrics->publish();
    if (m_trace)
        if (Status status = m_trace->publish(); !status && result) result = status;
    return result;
}

Status StepRecorder::publishIfDue(std::int64_t now) {
    if (m_nextPublishNs == 0) m_nextPublishNs = now + kPublishEveryNs;
    if (now < m_nextPublishNs || (!m_metrics && !m_trace)) return Ok{};
    Status result = publish();
    const std::int64_t done = nowNs();
    m_nextPublishNs = done + std::max(kPublishEveryNs, kPublishCostFactor * (done - now));
    return result;
}

Status StepRecorder::close() {
    Status result = Ok{};
    if (m_metrics) {
        auto status = m_metrics->close();
        if (!status) result = status;
        m_metrics.reset();
    }
    if (m_trace) {
        auto status = m_trace->close();
        if (!status && result) result = status;
        m_trace.reset();
    }
    return result;
}

}  // namespace distlab::cli
