#pragma once
// What the communication view shows: every transfer an in-process collective makes, at the
// algorithm's own granularity (each ring step, each tree level, each copy), and, when asked, each
// rank's buffer (the partial sums) after every step of the algorithm.
//
// Use: build a CollectiveTrace for the group's rank count with the capacities you can afford,
// attach it to every rank's communicator (Communicator::setTrace, the communicator's observation
// hook; a trainer does it with Trainer::setCollectiveTrace) while no collective runs, run, then read it while no
// collective runs (e.g. between two training steps) and clear() it. Each rank's thread writes only
// its own log, so recording takes no lock; the logs are bounded: preallocated at construction,
// full logs drop (and count) what does not fit. With no trace attached the algorithms pay one
// pointer test per step; with snapshots off they pay one flag test per step.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "distlab/config/run_config.hpp"

namespace distlab {

/// Whether a transfer overwrote the destination range (Copy) or added into it (Reduce).
enum class TransferKind : std::uint8_t { Copy, Reduce };

/// One chunk moving from one rank to another in one step of a collective. Trivially copyable.
struct TransferEvent {
    std::int64_t collective = 0;  ///< sequence number of the collective in its group (equal on every rank)
    std::int32_t pack = 0;        ///< AllReduceOptions::packIndex
    std::int32_t step = 0;        ///< the algorithm's step (see allReduceStepName)
    std::int16_t fromRank = 0;
    std::int16_t toRank = 0;  ///< the rank whose buffer changed (the one that logs it)
    TransferKind kind = TransferKind::Copy;
    std::int64_t beginElement = 0;  ///< the chunk: elements [beginElement, endElement) of the buffer
    std::int64_t endElement = 0;
    std::int64_t bytes = 0;
    std::int64_t startNs = 0;  ///< steady-clock nanoseconds (nowNs())
    std::int64_t endNs = 0;
};

/// One rank's buffer after one step: `count` floats from `offset` of that rank's value pool.
struct SnapshotRecord {
    std::int64_t collective = 0;
    std::int32_t pack = 0;
    std::int32_t step = -1;  ///< -1: the input, before the first step
    std::int64_t offset = 0;
    std::int64_t count = 0;
};

class CollectiveTrace {
public:
    struct Limits {
        std::int64_t eventsPerRank = 4096;       ///< transfer events kept per rank
        std::int64_t snapshotsPerRank = 0;       ///< buffer snapshots kept per rank (0: none)
        std::int64_t snapshotFloatsPerRank = 0;  ///< floats of snapshot values kept per rank
    };

    /// Preallocates every log. Call from any thread.
    CollectiveTrace(int ranks, Limits limits);
    ~CollectiveTrace();

    int ranks() const { return m_ranks; }
    const Limits& limits() const { return m_limits; }

    /// Turns buffer snapshots after each step on or off (off at first). Any thread; collectives
    /// that start afterwards see it.
    void setCaptureSnapshots(bool capture) { m_captureSnapshots.store(capture, std::memory_order_relaxed); }
    bool captureSnapshots() const { return m_captureSnapshots.load(std::memory_order_relaxed); }

    /// Appends one event to rank's log (dropped and counted when full). Rank's thread, during a
    /// collective; never allocates.
    void record(int rank, const TransferEvent& event) noexcept;
    /// Copies `values` (rank's buffer) into rank's pool (dropped and counted when it does not
    /// fit). Rank's thread, during a collective; never allocates.
    void snapshot(int rank, std::int64_t collective, int pack, int step, std::span<const float> values) noexcept;

    /// Rank's events in the order it logged them. Only while no collective runs.
    std::span<const TransferEvent> events(int rank) const;
    /// Rank's snapshots in the order it took them. Only while no collective runs.
    std::span<const SnapshotRecord> snapshots(int rank) const;
    /// The values of one of rank's snapshots. Only while no collective runs.
    std::span<const float> values(int rank, const SnapshotRecord& snapshot) const;
    /// Events / snapshots that did not fit since the last clear().
    std::int64_t droppedEvents(int rank) const;
    std::int64_t droppedSnapshots(int rank) const;
    /// Empties every log (keeps the memory). Only while no collective runs.
    void clear();

private:
    struct RankLog;
    RankLog& log(int rank) const;

    int m_ranks;
    Limits m_limits;
    std::atomic<bool> m_captureSnapshots{false};
    std::unique_ptr<RankLog[]> m_logs;
};

/// Steps of one all-reduce of `algorithm` on `ranks` ranks (ring: 2(N-1); tree: 2 floor(log2 N);
/// hierarchical_copy: 4; reduction_to_one_device: 2; 0 for one rank). Any thread.
int allReduceStepCount(CrossDeviceOps algorithm, int ranks);
/// What step `step` of that all-reduce does, in a few words ("reduce-scatter", "all-gather",
/// "tree reduce", "broadcast", ...). Any thread.
const char* allReduceStepName(CrossDeviceOps algorithm, int ranks, int step);

}  // namespace distlab
