#pragma once
// Empties a session's rings and joins each StepRecord with the ReplicaRecords of the same step.
// Records are read in place in the rings (no copies: at tens of thousands of steps per second,
// copying them was a large share of the GUI thread's time) and released once handed over. Each
// replica has its own ring, so one drain may see a step on some replicas only: such a step waits
// for the next drain, but no longer (the engine pushes a step's replica records right after the
// step, so a record still missing then was dropped, or the replica did not take part, as an
// asynchronous parameter-server worker). Steps the steps' ring had no room for (the GUI thread was
// busy) come as a backlog at a marker in the ring (telemetry/step_channel.hpp) and are added there,
// in order: the history misses no step. GUI thread.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <distlab/telemetry/telemetry_hub.hpp>

namespace distlab::ui {

class RunHistory;

class TelemetryDrain {
public:
    explicit TelemetryDrain(int replicas);

    /// Drains every ring of `hub` into `history`; returns the steps handed over. With `flush`, steps
    /// whose replica records have not all arrived are handed over anyway (the run has ended).
    std::size_t drain(TelemetryHub& hub, RunHistory& history, bool flush);
    /// Replica records dropped by the engine because the GUI fell behind (their steps still arrive:
    /// those steps lack per-replica detail).
    std::uint64_t droppedCount(TelemetryHub& hub) const;
    /// Steps that came through the engine's backlog rather than the ring.
    std::int64_t backfilledSteps() const { return m_backfilled; }

private:
    /// Joins `step` with its replicas' records and adds it; false when a record is still awaited
    /// (and `force` is not set): the step is left for the next drain.
    bool addStep(TelemetryHub& hub, RunHistory& history, const StepRecord& step, bool force, bool timeline);
    void addBacklog(TelemetryHub& hub, RunHistory& history, const ThinnedLog<StepRecord>& backlog);

    std::size_t m_seenWaiting = 0;         // steps left waiting by the last drain: handed over now
    std::vector<std::size_t> m_available;  // per replica ring: records readable in this drain
    std::vector<std::size_t> m_position;   // per replica ring: next record to look at
    std::vector<const ReplicaRecord*> m_group;
    std::int64_t m_backfilled = 0;
};

}  // namespace distlab::ui
