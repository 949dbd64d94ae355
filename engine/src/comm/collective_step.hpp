#pragma once
// One rank's side of one in-process collective: the barrier that ends each step, the transfers
// (peer memory read into this rank's buffer) and their accounting in the completion record and,
// when a trace is attached, in the trace. Lives on the rank's stack for one call.
#include <cstdint>
#include <span>

#include "comm/buffer_kernels.hpp"
#include "distlab/comm/collective_trace.hpp"
#include "distlab/comm/in_process_group.hpp"

namespace distlab::comm_detail {

class CollectiveStep {
public:
    /// `trace`: the rank's observation hook (Communicator::setTrace), or null.
    CollectiveStep(InProcessGroup& group, int rank, std::int64_t collective, int pack, CollectiveTiming& timing, CollectiveTrace* trace)
        : m_group(group),
          m_rank(rank),
          m_collective(collective),
          m_pack(pack),
          m_timing(timing),
          m_trace(trace),
          m_snapshots(m_trace != nullptr && m_trace->captureSnapshots()) {}

    InProcessGroup& group() const { return m_group; }
    int rank() const { return m_rank; }
    int size() const { return m_group.size(); }

    /// Waits for every rank (publishing, or making sure nobody still reads a buffer).
    void sync() { m_timing.waitNs += m_group.barrier().arriveAndWait(); }
    /// Whether buffer snapshots are being captured in this collective.
    bool capturingSnapshots() const { return m_snapshots; }
    /// Blocks until `peer`'s progress counter has reached `target` (wrap-safe).
    void waitForProgress(int peer, std::uint32_t target) {
        std::atomic<std::uint32_t>& counter = m_group.progress(peer);
        std::uint32_t value = counter.load(std::memory_order_acquire);
        if (static_cast<std::int32_t>(value - target) >= 0) return;
        const std::int64_t started = nowNs();
        do {
            spinWaitWhileEqual(counter, value, &m_group.abortFlag());
            value = counter.load(std::memory_order_acquire);
        } while (static_cast<std::int32_t>(value - target) < 0);
        m_timing.waitNs += nowNs() - started;
    }
    /// Sets this rank's progress counter (release: everything written before is visible to a
    /// peer that sees the value) and wakes peers sleeping on it.
    void advanceProgress(std::uint32_t value) {
        std::atomic<std::uint32_t>& counter = m_group.progress(m_rank);
        counter.store(value, std::memory_order_release);
        counter.notify_all();
    }
    /// Snapshots this rank's buffer as the input of the collective (when capturing).
    void snapshotInput(std::span<const float> own) {
        if (m_snapshots) m_trace->snapshot(m_rank, m_collective, m_pack, -1, own);
    }
    /// Ends algorithm step `step`: snapshots this rank's buffer (when capturing; only this rank
    /// writes it, so it is final for the step), then waits for every rank.
    void endStep(int step, std::span<const float> own) {
        snapshot(step, own);
        sync();
    }
    /// Snapshots this rank's buffer after `step` (when capturing).
    void snapshot(int step, std::span<const float> own) {
        if (m_snapshots) m_trace->snapshot(m_rank, m_collective, m_pack, step, own);
    }

    /// own[begin, end) = own op from's published buffer [begin, end): one chunk received in `step`.
    void reduceFrom(int step, int from, ReduceOp op, float* own, std::int64_t begin, std::int64_t end) {
        transfer(step, from, TransferKind::Reduce, begin, end,
                 [&] { combineInto(op, own + begin, m_group.buffer(from) + begin, static_cast<std::size_t>(end - begin)); });
    }
    /// own[begin, end) = from's published buffer [begin, end).
    void copyFrom(int step, int from, float* own, std::int64_t begin, std::int64_t end) {
        transfer(step, from, TransferKind::Copy, begin, end,
                 [&] { copyInto(own + begin, m_group.buffer(from) + begin, static_cast<std::size_t>(end - begin)); });
    }
    /// Runs `work` (which moves [begin, end) from `from` into this rank) and accounts for it.
    template <typename Work>
    void transfer(int step, int from, TransferKind kind, std::int64_t begin, std::int64_t end, Work&& work) {
        const std::int64_t bytes = (end - begin) * static_cast<std::int64_t>(sizeof(float));
        m_timing.bytesReceived += bytes;
        if (m_trace == nullptr) {
            work();
            return;
        }
        TransferEvent event{
            m_collective, m_pack,  step, static_cast<std::int16_t>(from), static_cast<std::int16_t>(m_rank), kind, begin, end,
            bytes,        nowNs(), 0};
        work();
        event.endNs = nowNs();
        m_trace->record(m_rank, event);
    }
    /// Logs a transfer whose work was done together with others (the fused add of several sources).
    void logTransfer(int step, int from, TransferKind kind, std::int64_t begin, std::int64_t end, std::int64_t startNs) {
        const std::int64_t bytes = (end - begin) * static_cast<std::int64_t>(sizeof(float));
        m_timing.bytesReceived += bytes;
        if (m_trace != nullptr)
            m_trace->record(m_rank, TransferEvent{m_collective, m_pack, step, static_cast<std::int16_t>(from),
                                                  static_cast<std::int16_t>(m_rank), kind, begin, end, bytes, startNs, nowNs()});
    }
    /// The start time for logTransfer (0 when nothing is traced, saving the clock read).
    std::int64_t traceClock() const { return m_trace != nullptr ? nowNs() : 0; }
    /// Counts bytes this rank's buffer supplies to peers (what a transport would send).
    void sent(std::int64_t elements) { m_timing.bytesSent += elements * static_cast<std::int64_t>(sizeof(float)); }

private:
    InProcessGroup& m_group;
    int m_rank;
    std::int64_t m_collective;
    int m_pack;
    CollectiveTiming& m_timing;
    CollectiveTrace* m_trace;
    bool m_snapshots;
};

}  // namespace distlab::comm_detail
