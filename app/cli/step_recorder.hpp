#pragma once
// Turns each StepReport into a metrics line and timeline spans for the files train writes.
// Both files are staged (StagedFile): the targets change only when published, each time whole.
#include <optional>
#include <vector>
#include <string>

#include "distlab/telemetry/step_report.hpp"
#include "distlab/formats/chrome_trace_writer.hpp"
#include "distlab/formats/metrics_writer.hpp"

namespace distlab::cli {

class StepRecorder {
public:
    /// Prepares the files that were asked for (empty path: not written); existing files are left
    /// as they are until the first publish.
    static Result<StepRecorder> open(const std::string& metricsPath, const std::string& tracePath, const std::string& runName, int replicas,
                                     bool parameterServer = false);
    /// Records one step. Allocation-free once warmed up (apart from the writers' buffers).
    void record(const StepReport& report, std::optional<EvalResult> test = std::nullopt);
    /// Replaces both files with everything recorded so far; returns the first error.
    Status publish();
    /// publish() once the last one is long enough ago: kPublishEveryNs, and at least 20 times what
    /// the last one took, so republishing the growing files costs at most ~5% of the run. Gives a
    /// run killed without --checkpoint-every its metrics up to a few seconds before. No-op otherwise.
    Status publishIfDue(std::int64_t now);
    /// Publishes and closes both files; returns the first error.
    Status close();

private:
    /// Lane `device`'s reduction track (track replicas + device, "cpu:N reduction"), named on first use.
    int reductionTrack(int device, int replicas);

    std::optional<MetricsWriter> m_metrics;
    std::optional<ChromeTraceWriter> m_trace;
    MetricsRecord m_record;
    std::int64_t m_nextPublishNs = 0;     ///< 0: not started (set by the first publishIfDue)
    bool m_parameterServer = false;       ///< adds "worker" and "staleness" to every metrics line
    std::vector<bool> m_reductionTracks;  ///< which lanes' reduction tracks are named
};

}  // namespace distlab::cli
