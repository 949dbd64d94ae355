#include "distlab/comm/spin_barrier.hpp"

#include <chrono>
#include <thread>

namespace distlab {
namespace {
// Measured on a 2-vCPU KVM guest shared with other work: any PAUSE-based spinning (4000 pauses
// were ~200 us there; even 1-4 us of them) was 2-5x slower than yielding at once, for the
// replica pool's step hand-off and for small all-reduces alike: PAUSE loops make the hypervisor
// deschedule the vCPU, and a spinning thread keeps the core from the peer it waits for whenever
// threads outnumber cores. So: a few plain re-reads (a peer that is already done), then
// sched_yield (hands the core to a runnable peer, answers within a microsecond otherwise), and
// after 200 us sleep on the atomic so idle threads cost nothing.
constexpr int kSpinChecks = 64;
constexpr std::int64_t kYieldNs = 200'000;
}  // namespace

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

namespace {
void throwIfAborted(const std::atomic<bool>* aborted) {
    if (aborted != nullptr && aborted->load(std::memory_order_acquire))
        throw CollectiveAborted("a peer failed while this one waited for it");
}
}  // namespace

void spinWaitWhileEqual(const std::atomic<std::uint32_t>& value, std::uint32_t old, const std::atomic<bool>* aborted) {
    for (int i = 0; i < kSpinChecks; ++i)
        if (value.load(std::memory_order_acquire) != old) return throwIfAborted(aborted);
    const std::int64_t start = nowNs();
    while (nowNs() - start < kYieldNs) {
        if (value.load(std::memory_order_acquire) != old) return throwIfAborted(aborted);
        throwIfAborted(aborted);
        std::this_thread::yield();
    }
    // No lost wake-up: an abort sets the flag before it changes the value, and wait() returns at
    // once when the value is no longer `old`.
    while (value.load(std::memory_order_acquire) == old) {
        throwIfAborted(aborted);
        value.wait(old, std::memory_order_acquire);
    }
    throwIfAborted(aborted);
}

void wakeForAbort(std::atomic<std::uint32_t>& value) {
    value.fetch_add(1, std::memory_order_acq_rel);
    value.notify_all();
}

std::int64_t SpinBarrier::arriveAndWait() {
    throwIfAborted(&m_aborted);
    if (m_participants <= 1) return 0;
    const std::uint32_t generation = m_generation.load(std::memory_order_acquire);
    if (m_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == m_participants) {
        m_arrived.store(0, std::memory_order_relaxed);
        m_generation.fetch_add(1, std::memory_order_acq_rel);
        m_generation.notify_all();
        return 0;
    }
    const std::int64_t start = nowNs();
    spinWaitWhileEqual(m_generation, generation, &m_aborted);
    return nowNs() - start;
}

void SpinBarrier::abort() {
    m_aborted.store(true, std::memory_order_release);
    wakeForAbort(m_generation);
}

}  // namespace distlab
