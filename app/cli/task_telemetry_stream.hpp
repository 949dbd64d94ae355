#pragma once
// distlab-worker --telemetry: the task's hello, steps, last state and summary, streamed to the app
// that started it (engine/proto/task_telemetry.proto; docs/interfaces.md §3.11). Training never
// waits for the app (TaskTelemetrySender queues; steps it has no room for are dropped).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "distlab/config/run_config.hpp"
#include "distlab/core/error.hpp"
#include "distlab/distribute/cluster_task.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/task_telemetry_sender.hpp"

namespace distlab::cli {

class TaskTelemetryStream {
public:
    /// Connects to the app at `address` (within the strategy's timeout_seconds) and says hello;
    /// every replica reports parameter 0's element 0 from then on (the value the app follows).
    static Result<std::unique_ptr<TaskTelemetryStream>> open(const std::string& address, const ClusterTask& task, Trainer& trainer);
    /// One step, with the test evaluation taken after it, if any.
    void step(const StepReport& report, const std::optional<EvalResult>& test, std::int64_t clockNs);
    /// Whether an evaluation for the app is due at `nowNs` (every half second, as the app's own
    /// sessions evaluate); true once per period.
    bool evaluationDue(std::int64_t nowNs);
    /// The coordinator's model for the app's network diagram and decision boundary, taken as the
    /// app's own sessions take it (every SessionOptions::snapshotIntervalSeconds, and when `last`),
    /// for models of at most kMaxSnapshotValues parameters. Other tasks send none.
    void maybeSnapshot(Trainer& trainer, std::int64_t nowNs, bool last);
    /// The run's end: its exit code (0, 1, 3, 130), the failure's message, and the summary line.
    void finish(int exitCode, const std::string& failure, const std::string& summary);

private:
    TaskTelemetryStream(std::unique_ptr<TaskTelemetrySender> sender, int firstReplica, bool snapshots)
        : m_sender(std::move(sender)), m_firstReplica(firstReplica), m_snapshots(snapshots) {}
    std::unique_ptr<TaskTelemetrySender> m_sender;
    int m_firstReplica;
    bool m_snapshots;  ///< the coordinator, of a model small enough
    std::int64_t m_nextEvaluationNs = 0;
    std::int64_t m_nextSnapshotNs = 0;
};

}  // namespace distlab::cli
