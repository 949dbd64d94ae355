#pragma once
// A reusable barrier for replica threads: re-checks briefly, then yields the core for up to
// 200 us (replicas usually arrive within microseconds of each other, and a yield lets a peer
// that shares the core run), then sleeps on the atomic so idle threads cost nothing.
//
// Waits can be aborted: when one participant fails, the others must not wait for it forever. An
// abort sets a flag and moves every counter a waiter may sleep on (a futex wait returns only when
// the value changes), so each waiter wakes, sees the flag and throws CollectiveAborted.
#include <atomic>
#include <cstdint>
#include <stdexcept>

namespace distlab {

/// Thrown on a participant whose wait was aborted because another participant failed.
class CollectiveAborted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class SpinBarrier {
public:
    explicit SpinBarrier(int participants) : m_participants(participants) {}

    /// Blocks until every participant has arrived. Returns the nanoseconds spent waiting. Throws
    /// CollectiveAborted once abort() was called (before or during the wait).
    std::int64_t arriveAndWait();
    /// Releases every waiter, now and later, with CollectiveAborted. Any thread; idempotent.
    void abort();
    bool aborted() const { return m_aborted.load(std::memory_order_acquire); }
    int participants() const { return m_participants; }

private:
    const int m_participants;
    alignas(64) std::atomic<int> m_arrived{0};
    alignas(64) std::atomic<std::uint32_t> m_generation{0};
    std::atomic<bool> m_aborted{false};
};

/// Waits until `value` differs from `old`: a few re-reads, yields for up to 200 us, then sleep on
/// the atomic (the writer must notify). With `aborted`, throws CollectiveAborted when the flag is
/// set (whoever sets it must then change `value` and notify, to wake a sleeper). Blocks; any thread.
void spinWaitWhileEqual(const std::atomic<std::uint32_t>& value, std::uint32_t old, const std::atomic<bool>* aborted = nullptr);
/// Changes `value` and wakes every thread sleeping on it (the second half of an abort).
void wakeForAbort(std::atomic<std::uint32_t>& value);

/// Monotonic nanoseconds (steady clock).
std::int64_t nowNs();

}  // namespace distlab
