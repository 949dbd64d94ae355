#include "distlab/telemetry/step_channel.hpp"

#include <utility>

namespace distlab {

void StepChannel::publish(const StepRecord& step) {
    if (m_backlog.empty() && !m_markerOwed && m_ring.hasRoom()) {
        m_ring.tryPush(step);
        return;
    }
    m_backlog.add(step);
    flush();
}

bool StepChannel::flush() {
    if (!m_backlog.empty() && !m_markerOwed) {
        // One backlog at a time: the reader takes the last one at its marker before this one goes.
        std::unique_lock lock(m_handoverMutex, std::try_to_lock);
        if (lock.owns_lock() && m_handedOver.empty()) {
            std::swap(m_handedOver, m_backlog);
            m_markerOwed = true;
        }
    }
    if (m_markerOwed && m_ring.hasRoom()) {
        StepRecord marker;
        marker.kind = StepRecordKind::Backlog;
        m_ring.tryPush(marker);
        m_markerOwed = false;
    }
    return m_backlog.empty() && !m_markerOwed;
}

ThinnedLog<StepRecord> StepChannel::takeBacklog() {
    ThinnedLog<StepRecord> taken;
    std::lock_guard lock(m_handoverMutex);
    std::swap(taken, m_handedOver);
    return taken;
}

ThinnedLog<StepRecord> StepChannel::takeLeftover() {
    if (!m_producerClosed.load(std::memory_order_acquire) || m_ring.readable() > 0) return {};
    // The producer is done: a backlog handed over without its marker comes first, then its own.
    ThinnedLog<StepRecord> left = takeBacklog();
    m_backlog.forEach([&](const StepRecord& step) { left.add(step); });
    m_backlog.clear();
    m_markerOwed = false;
    return left;
}

}  // namespace distlab
