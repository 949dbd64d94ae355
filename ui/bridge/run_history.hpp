#pragma once
// Everything the live views show about one run, bounded: decimated series (flat memory over any
// run length), the last K steps of per-replica timings for the timeline, a step-time split per
// replica over the recent steps, and a thinned metrics table for CSV export. GUI thread only.
#include <cstdint>
#include <span>
#include <vector>

#include <distlab/telemetry/phase_split.hpp>
#include <distlab/telemetry/records.hpp>
#include <distlab/telemetry/thinned_log.hpp>

#include "bridge/decimated_series.hpp"
#include "bridge/update_tally.hpp"

namespace distlab::ui {

/// Series of the whole run (one value per step, or per throughput window / evaluation).
enum class GlobalSeries {
    TrainLoss,
    TrainAccuracy,
    TestLoss,
    TestAccuracy,
    SamplesPerSecond,
    StepsPerSecond,
    StepMs,
    ComputeMs,
    CommunicationMs,
    WaitingMs,
    OptimizerMs,
    IdleMs,
    LearningRate,
    Divergence,
    Count
};
/// Series kept for every replica.
enum class ReplicaSeries { LocalLoss, GradNormBefore, GradNormAfter, Watched, Count };

/// Where one replica's step time went, milliseconds (means over the recent steps).
struct StepSplit {
    double computeMs = 0.0;
    double communicationMs = 0.0;  ///< moving data, peers' waiting excluded
    double waitingMs = 0.0;        ///< waiting for peers inside the reduction
    double optimizerMs = 0.0;
    double idleMs = 0.0;  ///< done, waiting for the slowest replica
    double totalMs() const { return computeMs + communicationMs + waitingMs + optimizerMs + idleMs; }
};

/// One step of the timeline: the step's span and every replica's record (replica order).
struct TimelineStep {
    std::int64_t step = 0;
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
};

/// One row of the metrics CSV (NaN where a value is unknown).
struct MetricRow {
    std::int64_t step = 0;
    std::int64_t epoch = 0;
    double wallSeconds = 0.0;
    double loss = 0.0;
    double accuracy = 0.0;
    double learningRate = 0.0;
    double stepMs = 0.0;     ///< StepRecord::durationNs: never less than the split's parts
    double computeMs = 0.0;  ///< StepRecord::phases: the means over the step's active replicas, as the CLI's metrics
    double optimizerMs = 0.0;
    double communicationMs = 0.0;
    double waitingMs = 0.0;  ///< waiting for peers plus idle
    double samplesPerSecond = 0.0;
    double testLoss = 0.0;
    double testAccuracy = 0.0;
    std::int64_t worker = -1;    ///< parameter servers, async: whose gradient the update applied
    std::int64_t staleness = 0;  ///< parameter servers: updates between the gradient's read and its apply
};

/// One column of the metrics table, as the CSV export and a saved run name it (in this order).
struct MetricColumn {
    const char* name;
    double (*get)(const MetricRow&);
    void (*set)(MetricRow&, double);
    bool integer;          ///< written as an integer
    bool parameterServer;  ///< only parameter-server runs have it
};
/// Every column, in the CSV's order (docs/interfaces.md §12.2).
std::span<const MetricColumn> metricColumns();

/// Steps `first` to `last`, both included.
struct StepRange {
    std::int64_t first = 0;
    std::int64_t last = 0;
    bool operator==(const StepRange&) const = default;
};

/// One lane of one step as the trace export keeps it (the phase split's timestamps).
struct TraceLane {
    std::int64_t step = 0;  ///< 0: the lane did not report the step
    StepTimes times;
};

/// What a saved run keeps of a RunHistory (ui/bridge/saved_history.hpp writes and reads it): the
/// whole-run series and the metrics rows. Per-replica series, the timeline and the trace are not kept.
struct SavedHistory {
    std::vector<std::vector<SeriesPoint>> series;  ///< by GlobalSeries (Count of them)
    std::vector<MetricRow> rows;
    std::int64_t steps = 0;         ///< updates done
    double samplesPerSecond = 0.0;  ///< the last throughput window's
    bool regression = false;
    bool hasTest = false;
    bool parameterServer = false;
    /// Drops every point and row after update `step` (a run resumed from a checkpoint taken there).
    void truncate(std::int64_t step);
};

class RunHistory {
public:
    /// Steps kept at full detail for the timeline.
    static constexpr int kTimelineSteps = 256;
    /// Steps averaged into each replica's StepSplit.
    static constexpr int kSplitWindow = 64;
    static_assert(kSplitWindow <= kTimelineSteps);
    /// Steps kept for the Chrome trace export (every lane's timestamps; ~56 bytes a lane).
    static constexpr int kTraceSteps = 8192;

    explicit RunHistory(int replicas);

    /// Adds one step and the records of the replicas that reported it (any order, may be partial).
    /// `timeline` false leaves the step out of the timeline and the step-split window (a caller
    /// adding many steps at once passes true only for the last kTimelineSteps of them: all that the
    /// timeline and the window keep).
    void addStep(const StepRecord& step, std::span<const ReplicaRecord* const> replicas, bool timeline = true);
    void addEval(const EvalRecord& eval);
    /// What a saved run keeps of this history.
    SavedHistory saved() const;
    /// Starts from a saved run's history (a fresh history only): its series and rows are shown, and
    /// the steps that follow go on after them (wall time after the saved run's last).
    void restore(const SavedHistory& saved);
    /// Forgets the watched values (a different parameter element is followed from now on).
    void clearWatched();

    int replicaCount() const { return m_replicas; }
    const DecimatedSeries& series(GlobalSeries which) const { return m_global[static_cast<std::size_t>(which)]; }
    const DecimatedSeries& replicaSeries(int replica, ReplicaSeries which) const;
    StepSplit stepSplit(int replica) const;

    /// Timeline steps held (<= kTimelineSteps); index 0 is the oldest.
    int timelineCount() const { return m_timelineCount; }
    const TimelineStep& timelineStep(int index) const;
    /// Replica `replica`'s record of timeline step `index` (step == 0 when it was not reported).
    const ReplicaRecord& timelineRecord(int index, int replica) const;

    /// Steps held for the trace export (<= kTraceSteps); index 0 is the oldest.
    int traceCount() const { return m_traceCount; }
    /// Lane `replica` of trace step `index` (step == 0 when it was not reported).
    const TraceLane& traceLane(int index, int replica) const;

    /// The newest step's wall time as every view and export shows it (StepRecord::durationNs,
    /// stepDurationNs): from the earliest start of the step or of an active lane's part of it to
    /// the step's end. For mirrored runs that is the step's own span; for parameter servers it runs
    /// from the applied gradient's pull to its update, so it is never less than the phase split's
    /// parts (an update's interval can be shorter than the compute of the gradient it applied).
    double lastStepMs() const { return m_lastStepMs; }
    /// True once a step came from parameter servers (a server was busy applying it).
    bool isParameterServer() const { return m_parameterServer; }

    /// The rows in step order: every step's for the recent 20,000 steps, evenly thinned before that
    /// (every 2nd, 4th, ... step; under 50,000 rows in all: ThinnedLog). Built on each call (for export).
    std::vector<MetricRow> rows() const;

    /// Stretches of steps that arrived without any replica's record: the window was too busy to read
    /// them as they came, and the engine keeps the steps, not their replicas' detail. Their rows
    /// and whole-run curves are complete; the per-replica curves have no points there. Oldest
    /// first; at most kMaxDetailGaps (the two oldest merge when another comes).
    const std::vector<StepRange>& detailGaps() const { return m_detailGaps; }
    static constexpr std::size_t kMaxDetailGaps = 32;

    std::int64_t stepsSeen() const { return m_stepsSeen; }
    const StepRecord& lastStep() const { return m_lastStep; }
    double samplesPerSecond() const { return m_samplesPerSecond; }
    double stepsPerSecond() const { return m_stepsPerSecond; }
    /// True once a step reported accuracy -1 (regression).
    bool isRegression() const { return m_regression; }
    bool hasTest() const { return m_hasTest; }
    /// Parameter servers: who pushed the applied updates and their staleness.
    const UpdateTally& updates() const { return m_updates; }
    /// Changes whenever anything is added.
    std::uint64_t version() const { return m_version; }

private:
    void addThroughput(const StepRecord& step, double wall);
    /// The replica's part of the step into its split window (timeline steps only).
    void addSplit(int replica, const ReplicaRecord& record);
    void addRow(const StepRecord& step, double wall, double stepMs);
    void addTrace(const StepRecord& step, std::span<const ReplicaRecord* const> replicas);
    void addDetailGap(std::int64_t step);

    int m_replicas;
    std::vector<DecimatedSeries> m_global;
    std::vector<DecimatedSeries> m_perReplica;  // [replica * Count + series]
    std::vector<StepSplit> m_splitRing;         // [replica * kSplitWindow + i]
    std::vector<StepSplit> m_splitSum;
    std::vector<int> m_splitCount;
    std::vector<int> m_splitHead;
    std::vector<TimelineStep> m_timeline;
    std::vector<ReplicaRecord> m_timelineRecords;  // [slot * replicas + replica]
    int m_timelineHead = 0;
    int m_timelineCount = 0;
    ThinnedLog<MetricRow> m_rows;
    std::vector<TraceLane> m_trace;  // [slot * replicas + replica], allocated on first use
    int m_traceHead = 0;
    int m_traceCount = 0;
    std::vector<EvalRecord> m_pendingEvals;  // evaluations drained before their step
    std::vector<StepRange> m_detailGaps;
    double m_lastStepMs = 0.0;
    bool m_parameterServer = false;
    StepRecord m_lastStep;
    std::int64_t m_stepsSeen = 0;
    std::int64_t m_trainingStartNs = -1;  // the first step's start
    double m_wallOffsetSeconds = 0.0;     // a restored run's wall time before this session
    std::int64_t m_windowStartNs = -1;
    std::int64_t m_windowLastNs = 0;
    std::int64_t m_windowSteps = 0;
    std::int64_t m_windowSamples = 0;
    double m_samplesPerSecond = 0.0;
    double m_stepsPerSecond = 0.0;
    bool m_hasWindow = false;  // a whole throughput window has closed
    bool m_regression = false;
    bool m_hasTest = false;
    std::uint64_t m_version = 0;
    UpdateTally m_updates;
};

}  // namespace distlab::ui
