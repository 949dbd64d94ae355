#pragma once
// Ranks that are threads of one process (logical devices) reduce through shared memory: each
// rank publishes its buffer and the algorithm reads its peers' buffers at its own granularity
// (a ring step, a tree level, a copy to the lead device), with a barrier where a real transfer
// would complete. A rank only ever writes its own buffer, so no two threads write one cache line.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab {

class InProcessGroup {
public:
    /// A group of `size` ranks (>= 1) whose allReduce runs `algorithm` (nccl, GPU-only, runs ring).
    InProcessGroup(int size, CrossDeviceOps algorithm);
    ~InProcessGroup();

    int size() const { return m_size; }
    /// The all-reduce algorithm. Any thread.
    CrossDeviceOps algorithm() const { return m_algorithm.load(std::memory_order_relaxed); }
    /// Switches the all-reduce algorithm. Only while no collective runs (e.g. between steps).
    void setAlgorithm(CrossDeviceOps algorithm) { m_algorithm.store(algorithm, std::memory_order_relaxed); }
    /// The communicator of one rank; owned by the group, valid while the group lives.
    Communicator& communicator(int rank) { return *m_communicators[static_cast<std::size_t>(rank)]; }

    // Used by the algorithms (the communicators call these on their rank's thread). A published
    // pointer is read by peers only after the barrier that follows the publish.
    void publish(int rank, float* buffer, const float* input = nullptr) {
        Slot& slot = m_slots[static_cast<std::size_t>(rank)];
        slot.buffer = buffer;
        slot.input = input;
    }
    float* buffer(int rank) const { return m_slots[static_cast<std::size_t>(rank)].buffer; }
    const float* input(int rank) const { return m_slots[static_cast<std::size_t>(rank)].input; }
    SpinBarrier& barrier() { return m_barrier; }
    /// Rank's copy of an all-reduce's companion values, in two alternating slots. A rank rewrites
    /// slot p two companion calls later, so only after it has finished the call in between; no
    /// all-reduce finishes before every rank has entered it, and a rank enters a call only after
    /// it has read the slots of the one before.
    float* companionValues(int rank, int parity) { return m_companions[static_cast<std::size_t>(rank)].values[parity]; }
    /// Ends the group after a rank failed: every rank waiting in (or later entering) a collective
    /// throws CollectiveAborted instead of waiting for the failed one. Any thread; idempotent.
    /// The group cannot be used again.
    void abort();
    /// Set once abort() was called; the flag every wait of the group checks.
    const std::atomic<bool>& abortFlag() const { return m_aborted; }
    /// Rank's progress counter: the ring's pairwise synchronisation (a rank waits for its
    /// predecessor's count instead of a barrier). Only the rank itself advances it.
    std::atomic<std::uint32_t>& progress(int rank) { return m_progress[static_cast<std::size_t>(rank)].value; }

    /// The rendezvous of send(from -> to) and recv: one slot per ordered pair of ranks.
    struct alignas(64) Mailbox {
        const float* data = nullptr;
        std::size_t count = 0;
        std::atomic<std::uint32_t> posted{0};  ///< messages the sender has offered
        std::atomic<std::uint32_t> taken{0};   ///< messages the receiver has copied
    };
    Mailbox& mailbox(int from, int to) {
        return m_mailboxes[static_cast<std::size_t>(from) * static_cast<std::size_t>(m_size) + static_cast<std::size_t>(to)];
    }

private:
    struct alignas(64) Slot {
        float* buffer = nullptr;
        const float* input = nullptr;
    };
    struct alignas(64) Progress {
        std::atomic<std::uint32_t> value{0};
    };
    struct alignas(64) CompanionValues {
        float values[2][kMaxCompanionValues];
    };
    int m_size;
    std::atomic<CrossDeviceOps> m_algorithm;
    std::atomic<bool> m_aborted{false};
    SpinBarrier m_barrier;
    std::unique_ptr<Slot[]> m_slots;
    std::unique_ptr<Mailbox[]> m_mailboxes;
    std::unique_ptr<Progress[]> m_progress;
    std::unique_ptr<CompanionValues[]> m_companions;
    std::vector<std::unique_ptr<Communicator>> m_communicators;
};

}  // namespace distlab
