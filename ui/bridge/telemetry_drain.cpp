#include "bridge/telemetry_drain.hpp"

#include "bridge/run_history.hpp"

#include <algorithm>

namespace distlab::ui {

TelemetryDrain::TelemetryDrain(int replicas)
    : m_available(static_cast<std::size_t>(std::max(0, replicas))), m_position(m_available.size()) {
    m_group.reserve(m_available.size());
}

bool TelemetryDrain::addStep(TelemetryHub& hub, RunHistory& history, const StepRecord& step, bool force, bool timeline) {
    const std::size_t replicas = std::min(static_cast<std::size_t>(hub.replicaCount()), m_available.size());
    bool waiting = false;
    m_group.clear();
    for (std::size_t r = 0; r < replicas; ++r) {
        SpscRing<ReplicaRecord>& ring = hub.replica(static_cast<int>(r));
        // Records of steps whose StepRecord was dropped have no partner: skip them.
        std::size_t& position = m_position[r];
        while (position < m_available[r] && ring.peek(position).step < step.step) ++position;
        if (position == m_available[r]) {
            waiting = waiting || !force;
            continue;
        }
        if (ring.peek(position).step == step.step) m_group.push_back(&ring.peek(position));
    }
    if (waiting) return false;
    history.addStep(step, m_group, timeline);
    for (std::size_t r = 0; r < replicas; ++r) {
        if (m_position[r] < m_available[r] && hub.replica(static_cast<int>(r)).peek(m_position[r]).step == step.step) ++m_position[r];
    }
    return true;
}

void TelemetryDrain::addBacklog(TelemetryHub& hub, RunHistory& history, const ThinnedLog<StepRecord>& backlog) {
    // Steps the ring had no room for: their lanes' records were mostly dropped too, so none waits
    // for them (what is in the rings still joins), and they stay out of the timeline.
    backlog.forEach([&](const StepRecord& step) { addStep(hub, history, step, /*force=*/true, /*timeline=*/false); });
    m_backfilled += static_cast<std::int64_t>(backlog.size());
}

std::size_t TelemetryDrain::drain(TelemetryHub& hub, RunHistory& history, bool flush) {
    hub.evals().drain([&](const EvalRecord& record) { history.addEval(record); });
    SpscRing<StepRecord>& steps = hub.steps();
    const std::size_t stepCount = steps.readable();
    const std::size_t replicas = std::min(static_cast<std::size_t>(hub.replicaCount()), m_available.size());
    for (std::size_t r = 0; r < replicas; ++r) {
        m_available[r] = hub.replica(static_cast<int>(r)).readable();
        m_position[r] = 0;
    }
    // The timeline keeps the last kTimelineSteps steps: older ones of a large batch skip it.
    const std::size_t detailFrom = stepCount > RunHistory::kTimelineSteps ? stepCount - RunHistory::kTimelineSteps : 0;
    std::size_t joined = 0;
    for (; joined < stepCount; ++joined) {
        const StepRecord& step = steps.peek(joined);
        if (step.kind == StepRecordKind::Backlog) {
            addBacklog(hub, history, hub.stepChannel().takeBacklog());
            continue;
        }
        const bool force = flush || joined < m_seenWaiting;
        if (!addStep(hub, history, step, force, /*timeline=*/joined >= detailFrom)) break;
    }
    steps.release(joined);
    // A session whose thread has ended leaves the steps it could not announce: they come last.
    if (flush && joined == stepCount) addBacklog(hub, history, hub.stepChannel().takeLeftover());
    for (std::size_t r = 0; r < replicas; ++r) hub.replica(static_cast<int>(r)).release(m_position[r]);
    m_seenWaiting = stepCount - joined;
    return joined;
}

std::uint64_t TelemetryDrain::droppedCount(TelemetryHub& hub) const {
    std::uint64_t dropped = hub.steps().dropped();
    for (int r = 0; r < hub.replicaCount(); ++r) dropped += hub.replica(r).dropped();
    return dropped;
}

}  // namespace distlab::ui
