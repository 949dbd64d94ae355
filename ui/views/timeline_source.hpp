#pragma once
// What a timeline canvas paints, from wherever the steps are kept: the live run's RunHistory (the
// device timeline view) or a study variant's recent updates (the study window's timelines). One
// painter for both, so a study's timelines read exactly like the run's. GUI thread.
#include <cstdint>
#include <optional>

#include <distlab/telemetry/phase_split.hpp>

#include "bridge/run_history.hpp"

namespace distlab::ui {

/// One lane's part of one step.
struct TimelineLaneTimes {
    StepTimes times;
    std::int64_t bytesSent = 0;         ///< in the step's reduction
    bool bytesFromRingFormula = false;  ///< bytesSent is the ring's formula, not a count (GPU runs)
    std::int64_t networkBeginNs = 0;    ///< the hop between processes (ReplicaRecord's): its start
    std::int64_t networkNs = 0;         ///< and its total; 0: none
};

class TimelineSource {
public:
    virtual ~TimelineSource() = default;
    /// Steps held, oldest first.
    virtual int stepCount() const = 0;
    virtual TimelineStep step(int index) const = 0;
    /// Lane `lane`'s times in step `index`; none where it did not take part or was not reported.
    virtual std::optional<TimelineLaneTimes> lane(int index, int lane) const = 0;
};

/// The live run's timeline steps (RunHistory::timelineStep / timelineRecord).
class HistoryTimelineSource final : public TimelineSource {
public:
    explicit HistoryTimelineSource(const RunHistory* history = nullptr) : m_history(history) {}
    void setHistory(const RunHistory* history) { m_history = history; }
    int stepCount() const override { return m_history != nullptr ? m_history->timelineCount() : 0; }
    TimelineStep step(int index) const override { return m_history->timelineStep(index); }
    std::optional<TimelineLaneTimes> lane(int index, int lane) const override;

private:
    const RunHistory* m_history;
};

}  // namespace distlab::ui
