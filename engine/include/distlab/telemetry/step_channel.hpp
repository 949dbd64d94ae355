#pragma once
// How a session's steps reach their reader whole while the session never waits for it. While the
// reader keeps up, steps go through the ring. When the ring is full (the reader is busy), the
// session keeps them in a backlog of its own, thinned by the rule of the app's rows (ThinnedLog),
// and hands the backlog over under a try-lock once the reader has taken the one before; a marker
// record (StepRecordKind::Backlog) in the ring, pushed once it has room, says where the backlog
// belongs, and no step enters the ring between the backlog's first step and its marker. So the
// reader meets every step in order. Memory: the ring, plus at most two backlogs (the producer's
// and the handed-over one), each bounded by the thinning rule.
#include <atomic>
#include <cstddef>
#include <mutex>

#include "distlab/telemetry/records.hpp"
#include "distlab/telemetry/spsc_ring.hpp"
#include "distlab/telemetry/thinned_log.hpp"

namespace distlab {

class StepChannel {
public:
    /// `capacity` records in the ring (rounded up to a power of two).
    explicit StepChannel(std::size_t capacity) : m_ring(capacity) {}

    // Producer: the session thread.
    /// Sends one step: into the ring, or into the backlog while the ring is full or earlier steps
    /// are in the backlog. Never blocks; allocates only while a backlog grows.
    void publish(const StepRecord& step);
    /// Hands the backlog over and announces it, as far as can be done without waiting; true when
    /// no step is left on the producer's side. A producer that stops publishing (paused, finished)
    /// calls it now and then until it returns true.
    bool flush();
    /// The producer publishes no more (its thread ends): the reader takes what is left
    /// (takeLeftover).
    void closeProducer() { m_producerClosed.store(true, std::memory_order_release); }

    // Reader: one thread.
    /// The ring (steps and markers).
    SpscRing<StepRecord>& ring() { return m_ring; }
    /// At a Backlog marker: the steps it stands for, in order. Waits only while the producer swaps
    /// the log it hands over (no copy is made under the lock).
    ThinnedLog<StepRecord> takeBacklog();
    /// Once the producer is closed and the ring read to its end: the steps it never announced, in
    /// order (empty before).
    ThinnedLog<StepRecord> takeLeftover();

private:
    SpscRing<StepRecord> m_ring;
    ThinnedLog<StepRecord> m_backlog;  // producer only (the reader's once closed)
    bool m_markerOwed = false;         // producer only: the handed-over backlog awaits its marker
    std::atomic<bool> m_producerClosed{false};
    std::mutex m_handoverMutex;           // the producer only ever try-locks it
    ThinnedLog<StepRecord> m_handedOver;  // guarded by m_handoverMutex: empty once the reader took it
};

}  // namespace distlab
