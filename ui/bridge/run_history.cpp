#include "bridge/run_history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace distlab::ui {

namespace {

constexpr double kNsPerMs = 1e6;
constexpr std::int64_t kThroughputWindowNs = 250'000'000;   // one throughput point per 0.25 s of training
constexpr std::int64_t kMinThroughputWindowNs = 2'000'000;  // ... or per 2 ms early in a run
constexpr std::int64_t kWindowsPerRun = 32;                 // windows are 1/32 of the training so far
constexpr std::int64_t kPauseGapNs = 2'000'000'000;         // a longer gap is a pause, not slow steps
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double ms(std::int64_t ns) { return static_cast<double>(ns) / kNsPerMs; }

void accumulate(StepSplit& into, const StepSplit& part, double sign) {
    into.computeMs += sign * part.computeMs;
    into.communicationMs += sign * part.communicationMs;
    into.waitingMs += sign * part.waitingMs;
    into.optimizerMs += sign * part.optimizerMs;
    into.idleMs += sign * part.idleMs;
}

}  // namespace

std::span<const MetricColumn> metricColumns() {
#define DISTLAB_METRIC_COLUMN(name, member, integer, server)                                                             \
    MetricColumn {                                                                                                       \
        name, [](const MetricRow& row) { return static_cast<double>(row.member); },                                      \
            [](MetricRow& row, double value) { row.member = static_cast<decltype(row.member)>(value); }, integer, server \
    }
    static const MetricColumn columns[] = {
        DISTLAB_METRIC_COLUMN("step", step, true, false),
        DISTLAB_METRIC_COLUMN("epoch", epoch, true, false),
        DISTLAB_METRIC_COLUMN("wall_seconds", wallSeconds, false, false),
        DISTLAB_METRIC_COLUMN("loss", loss, false, false),
        DISTLAB_METRIC_COLUMN("accuracy", accuracy, false, false),
        DISTLAB_METRIC_COLUMN("learning_rate", learningRate, false, false),
        DISTLAB_METRIC_COLUMN("step_ms", stepMs, false, false),
        DISTLAB_METRIC_COLUMN("compute_ms", computeMs, false, false),
        DISTLAB_METRIC_COLUMN("optimizer_ms", optimizerMs, false, false),
        DISTLAB_METRIC_COLUMN("communication_ms", communicationMs, false, false),
        DISTLAB_METRIC_COLUMN("waiting_ms", waitingMs, false, false),
        DISTLAB_METRIC_COLUMN("samples_per_second", samplesPerSecond, false, false),
        DISTLAB_METRIC_COLUMN("test_loss", testLoss, false, false),
        DISTLAB_METRIC_COLUMN("test_accuracy", testAccuracy, false, false),
        DISTLAB_METRIC_COLUMN("worker", worker, true, true),
        DISTLAB_METRIC_COLUMN("staleness", staleness, true, true),
    };
#undef DISTLAB_METRIC_COLUMN
    return columns;
}

RunHistory::RunHistory(int replicas)
    : m_replicas(std::max(1, replicas)),
      m_global(static_cast<std::size_t>(GlobalSeries::Count)),
      m_perReplica(static_cast<std::size_t>(m_replicas) * static_cast<std::size_t>(ReplicaSeries::Count)),
      m_splitRing(static_cast<std::size_t>(m_replicas) * kSplitWindow),
      m_splitSum(static_cast<std::size_t>(m_replicas)),
      m_splitCount(static_cast<std::size_t>(m_replicas), 0),
      m_splitHead(static_cast<std::size_t>(m_replicas), 0),
      m_timeline(kTimelineSteps),
      m_timelineRecords(static_cast<std::size_t>(kTimelineSteps) * static_cast<std::size_t>(m_replicas)),
      m_updates(m_replicas) {}

const DecimatedSeries& RunHistory::replicaSeries(int replica, ReplicaSeries which) const {
    const auto index = static_cast<std::size_t>(replica) * static_cast<std::size_t>(ReplicaSeries::Count) + static_cast<std::size_t>(which);
    return m_perReplica[index];
}

StepSplit RunHistory::stepSplit(int replica) const {
    StepSplit mean;
    const int count = m_splitCount[static_cast<std::size_t>(replica)];
    if (count == 0) return mean;
    accumulate(mean, m_splitSum[static_cast<std::size_t>(replica)], 1.0 / count);
    return mean;
}

const TimelineStep& RunHistory::timelineStep(int index) const {
    const int slot = (m_timelineHead - m_timelineCount + index + kTimelineSteps) % kTimelineSteps;
    return m_timeline[static_cast<std::size_t>(slot)];
}

const ReplicaRecord& RunHistory::timelineRecord(int index, int replica) const {
    const int slot = (m_timelineHead - m_timelineCount + index + kTimelineSteps) % kTimelineSteps;
    return m_timelineRecords[static_cast<std::size_t>(slot) * static_cast<std::size_t>(m_replicas) + static_cast<std::size_t>(replica)];
}

void RunHistory::addSplit(int replica, const ReplicaRecord& record) {
    const PhaseSplit phases = splitPhases(stepTimes(record));  // the engine's one definition
    const double compute = phases[Phase::Compute] / kNsPerMs;
    const double waiting = phases[Phase::Waiting] / kNsPerMs;
    const double communication = phases[Phase::Communication] / kNsPerMs;
    const double optimizer = phases[Phase::Optimizer] / kNsPerMs;
    const double idle = phases[Phase::Idle] / kNsPerMs;
    // The five times go to the ring and the window's sum as scalars: a split struct written and
    // copied straight back is reloaded with wider loads than it was stored with, and that stalls.
    const auto r = static_cast<std::size_t>(replica);
    StepSplit& slot = m_splitRing[r * kSplitWindow + static_cast<std::size_t>(m_splitHead[r])];
    StepSplit& sum = m_splitSum[r];
    if (m_splitCount[r] == kSplitWindow)
        accumulate(sum, slot, -1.0);
    else
        ++m_splitCount[r];
    slot.computeMs = compute;
    slot.communicationMs = communication;
    slot.waitingMs = waiting;
    slot.optimizerMs = optimizer;
    slot.idleMs = idle;
    sum.computeMs += compute;
    sum.communicationMs += communication;
    sum.waitingMs += waiting;
    sum.optimizerMs += optimizer;
    sum.idleMs += idle;
    m_splitHead[r] = (m_splitHead[r] + 1) % kSplitWindow;
}

const TraceLane& RunHistory::traceLane(int index, int replica) const {
    const int slot = (m_traceHead - m_traceCount + index + kTraceSteps) % kTraceSteps;
    return m_trace[static_cast<std::size_t>(slot) * static_cast<std::size_t>(m_replicas) + static_cast<std::size_t>(replica)];
}

void RunHistory::addTrace(const StepRecord& step, std::span<const ReplicaRecord* const> replicas) {
    if (m_trace.empty()) m_trace.resize(static_cast<std::size_t>(kTraceSteps) * static_cast<std::size_t>(m_replicas));
    TraceLane* lanes = &m_trace[static_cast<std::size_t>(m_traceHead) * static_cast<std::size_t>(m_replicas)];
    for (int r = 0; r < m_replicas; ++r) lanes[r].step = 0;
    for (const ReplicaRecord* record : replicas) {
        if (record == nullptr || !record->active || record->replica < 0 || record->replica >= m_replicas) continue;
        lanes[record->replica] = TraceLane{step.step, stepTimes(*record)};
    }
    m_traceHead = (m_traceHead + 1) % kTraceSteps;
    m_traceCount = std::min(m_traceCount + 1, kTraceSteps);
}

void RunHistory::addStep(const StepRecord& step, std::span<const ReplicaRecord* const> replicas, bool timeline) {
    ++m_version;
    ++m_stepsSeen;
    m_lastStep = step;
    m_parameterServer = m_parameterServer || step.serverBusyNs > 0 || step.worker >= 0;
    const double stepMs = ms(step.durationNs);
    m_lastStepMs = stepMs;
    const double x = static_cast<double>(step.step);
    const double wall = m_wallOffsetSeconds + static_cast<double>(step.endNs) / kNanosecondsPerSecond;
    auto add = [&](GlobalSeries which, double value) {
        m_global[static_cast<std::size_t>(which)].append(x, wall, static_cast<float>(value));
    };
    add(GlobalSeries::TrainLoss, step.loss);
    if (step.accuracy >= 0.0)
        add(GlobalSeries::TrainAccuracy, step.accuracy);
    else
        m_regression = true;
    add(GlobalSeries::LearningRate, step.learningRate);
    add(GlobalSeries::StepMs, stepMs);
    addThroughput(step, wall);

    // The timeline slot of this step; replicas that did not report keep step == 0.
    ReplicaRecord* slotRecords = nullptr;
    if (timeline) {
        const int slot = m_timelineHead;
        m_timeline[static_cast<std::size_t>(slot)] = TimelineStep{step.step, step.startNs, step.endNs};
        slotRecords = &m_timelineRecords[static_cast<std::size_t>(slot) * static_cast<std::size_t>(m_replicas)];
        std::fill(slotRecords, slotRecords + m_replicas, ReplicaRecord{});
        m_timelineHead = (m_timelineHead + 1) % kTimelineSteps;
        m_timelineCount = std::min(m_timelineCount + 1, kTimelineSteps);
    }

    bool reported = false;
    for (const ReplicaRecord* record : replicas) {
        // Only lanes that took part (as splitStep): an asynchronous worker that did not contribute has no numbers.
        if (record == nullptr || !record->active || record->replica < 0 || record->replica >= m_replicas) continue;
        const int r = record->replica;
        if (slotRecords != nullptr) {
            slotRecords[r] = *record;
            addSplit(r, *record);
        }
        auto addReplica = [&](ReplicaSeries which, float value) {
            m_perReplica[static_cast<std::size_t>(r) * static_cast<std::size_t>(ReplicaSeries::Count) + static_cast<std::size_t>(which)]
                .append(x, wall, value);
        };
        addReplica(ReplicaSeries::LocalLoss, record->localLoss);
        addReplica(ReplicaSeries::GradNormBefore, record->gradNormBefore);
        addReplica(ReplicaSeries::GradNormAfter, record->gradNormAfter);
        addReplica(ReplicaSeries::Watched, record->watched[0]);
        reported = true;
    }
    if (step.hasLanes && !reported) addDetailGap(step.step);
    // The step's own split and spread (worked out by the engine): whole even when lanes' records were dropped.
    if (step.hasLanes) {
        add(GlobalSeries::ComputeMs, ms(step.phases[Phase::Compute]));
        add(GlobalSeries::CommunicationMs, ms(step.phases[Phase::Communication]));
        add(GlobalSeries::WaitingMs, ms(step.phases[Phase::Waiting]));
        add(GlobalSeries::OptimizerMs, ms(step.phases[Phase::Optimizer]));
        add(GlobalSeries::IdleMs, ms(step.phases[Phase::Idle]));
        add(GlobalSeries::Divergence, step.watchedSpread);
    }
    addRow(step, wall, stepMs);
    if (step.evaluation.step != 0) addEval(step.evaluation);
    // Evaluations drained before their step (they came between steps, the step was still on its way).
    while (!m_pendingEvals.empty() && m_pendingEvals.front().step <= step.step) {
        const EvalRecord eval = m_pendingEvals.front();
        m_pendingEvals.erase(m_pendingEvals.begin());
        addEval(eval);
    }
    addTrace(step, replicas);
    m_updates.add(step, replicas);
}

void RunHistory::addDetailGap(std::int64_t step) {
    if (!m_detailGaps.empty() && m_detailGaps.back().last + 1 == step) {
        m_detailGaps.back().last = step;
        return;
    }
    if (m_detailGaps.size() == kMaxDetailGaps) {
        m_detailGaps[1].first = m_detailGaps[0].first;
        m_detailGaps.erase(m_detailGaps.begin());
    }
    m_detailGaps.push_back({step, step});
}

void RunHistory::addThroughput(const StepRecord& step, double wall) {
    // One point per window of training time; a long gap (pause, slow speed limit) restarts the window.
    if (m_trainingStartNs < 0) m_trainingStartNs = step.startNs;
    if (m_windowStartNs < 0 || step.endNs - m_windowLastNs > kPauseGapNs) {
        m_windowStartNs = step.startNs;
        m_windowSteps = 0;
        m_windowSamples = 0;
    }
    m_windowLastNs = step.endNs;
    ++m_windowSteps;
    m_windowSamples += step.samples;
    const std::int64_t elapsed = step.endNs - m_windowStartNs;
    if (elapsed <= 0) return;
    const double seconds = static_cast<double>(elapsed) / kNanosecondsPerSecond;
    // Windows grow with the run, up to kThroughputWindowNs: a run over in a tenth of a second
    // still draws a few dozen points, a long one four a second.
    const std::int64_t window =
        std::clamp<std::int64_t>((step.endNs - m_trainingStartNs) / kWindowsPerRun, kMinThroughputWindowNs, kThroughputWindowNs);
    if (elapsed < window) {
        // Until the first window closes (a short run may never close one), the status bar shows
        // the rate so far; the series get points per whole window only.
        if (!m_hasWindow) {
            m_samplesPerSecond = static_cast<double>(m_windowSamples) / seconds;
            m_stepsPerSecond = static_cast<double>(m_windowSteps) / seconds;
        }
        return;
    }
    m_hasWindow = true;
    m_samplesPerSecond = static_cast<double>(m_windowSamples) / seconds;
    m_stepsPerSecond = static_cast<double>(m_windowSteps) / seconds;
    const double x = static_cast<double>(step.step);
    m_global[static_cast<std::size_t>(GlobalSeries::SamplesPerSecond)].append(x, wall, static_cast<float>(m_samplesPerSecond));
    m_global[static_cast<std::size_t>(GlobalSeries::StepsPerSecond)].append(x, wall, static_cast<float>(m_stepsPerSecond));
    m_windowStartNs = step.endNs;
    m_windowSteps = 0;
    m_windowSamples = 0;
}

void RunHistory::addRow(const StepRecord& step, double wall, double stepMs) {
    MetricRow row;
    row.step = step.step;
    row.epoch = step.epoch;
    row.wallSeconds = wall;
    row.loss = step.loss;
    row.accuracy = step.accuracy >= 0.0 ? step.accuracy : kNaN;
    row.learningRate = step.learningRate;
    row.stepMs = stepMs;
    row.computeMs = ms(step.phases[Phase::Compute]);
    row.optimizerMs = ms(step.phases[Phase::Optimizer]);
    row.communicationMs = ms(step.phases[Phase::Communication]);
    row.waitingMs = ms(step.phases[Phase::Waiting] + step.phases[Phase::Idle]);
    row.samplesPerSecond = m_samplesPerSecond;
    row.testLoss = kNaN;
    row.testAccuracy = kNaN;
    row.worker = step.worker;
    row.staleness = step.staleness;
    m_rows.add(row);
}

std::vector<MetricRow> RunHistory::rows() const { return m_rows.rows(); }

void RunHistory::addEval(const EvalRecord& eval) {
    if (!eval.hasTest) return;
    // One for a step not added yet waits for it, so the test curve's points stay in step order.
    if (eval.step > m_lastStep.step) {
        if (m_pendingEvals.size() < 64) m_pendingEvals.push_back(eval);
        return;
    }
    ++m_version;
    m_hasTest = true;
    const double x = static_cast<double>(eval.step);
    const double wall = m_wallOffsetSeconds + static_cast<double>(eval.wallNs) / kNanosecondsPerSecond;
    m_global[static_cast<std::size_t>(GlobalSeries::TestLoss)].append(x, wall, static_cast<float>(eval.testLoss));
    if (eval.testAccuracy >= 0.0) {
        m_global[static_cast<std::size_t>(GlobalSeries::TestAccuracy)].append(x, wall, static_cast<float>(eval.testAccuracy));
    }
    // The row of the evaluated step (usually the newest; search back a little).
    for (std::size_t back = 0; back < m_rows.recentCount() && back < 4096; ++back) {
        MetricRow& row = m_rows.fromNewest(back);
        if (row.step > eval.step) continue;
        if (row.step == eval.step) {
            row.testLoss = eval.testLoss;
            row.testAccuracy = eval.testAccuracy >= 0.0 ? eval.testAccuracy : kNaN;
        }
        break;
    }
}

void SavedHistory::truncate(std::int64_t step) {
    const auto last = static_cast<double>(step);
    // A bucket that starts at or before the step is kept whole: it stands for steps up to it.
    for (std::vector<SeriesPoint>& points : series) std::erase_if(points, [last](const SeriesPoint& point) { return point.step > last; });
    std::erase_if(rows, [step](const MetricRow& row) { return row.step > step; });
    steps = std::min(steps, step);
}

SavedHistory RunHistory::saved() const {
    SavedHistory saved;
    for (const DecimatedSeries& series : m_global) {
        std::vector<SeriesPoint>& points = saved.series.emplace_back();
        points.reserve(series.heldCount());
        series.forEach([&](const SeriesPoint& point) { points.push_back(point); });
    }
    saved.rows = rows();
    saved.steps = m_lastStep.step;
    saved.samplesPerSecond = m_samplesPerSecond;
    saved.regression = m_regression;
    saved.hasTest = m_hasTest;
    saved.parameterServer = m_parameterServer;
    return saved;
}

void RunHistory::restore(const SavedHistory& saved) {
    ++m_version;
    double lastWall = 0.0;
    for (std::size_t s = 0; s < m_global.size() && s < saved.series.size(); ++s) {
        m_global[s].restore(saved.series[s]);
        if (!saved.series[s].empty()) lastWall = std::max(lastWall, saved.series[s].back().wallSeconds);
    }
    // The rows go in as they came, under the same thinning rule.
    m_rows.clear();
    for (const MetricRow& row : saved.rows) m_rows.add(row);
    if (!saved.rows.empty()) lastWall = std::max(lastWall, saved.rows.back().wallSeconds);
    m_wallOffsetSeconds = lastWall;
    m_lastStep.step = saved.steps;
    if (!saved.rows.empty()) {
        m_lastStep.loss = saved.rows.back().loss;
        m_lastStep.accuracy = std::isnan(saved.rows.back().accuracy) ? -1.0 : saved.rows.back().accuracy;
        m_lastStep.epoch = saved.rows.back().epoch;
        m_lastStepMs = saved.rows.back().stepMs;
    }
    m_samplesPerSecond = saved.samplesPerSecond;
    m_regression = saved.regression;
    m_hasTest = saved.hasTest;
    m_parameterServer = saved.parameterServer;
}

void RunHistory::clearWatched() {
    ++m_version;
    for (int r = 0; r < m_replicas; ++r) {
        m_perReplica[static_cast<std::size_t>(r) * static_cast<std::size_t>(ReplicaSeries::Count) +
                     static_cast<std::size_t>(ReplicaSeries::Watched)]
            .clear();
    }
    m_global[static_cast<std::size_t>(GlobalSeries::Divergence)].clear();
}

}  // namespace distlab::ui
