#include "distlab/comm/collective_trace.hpp"

#include <algorithm>
#include <bit>

namespace distlab {

// One rank's logs, on their own cache lines so two ranks recording at once never share one.
struct alignas(64) CollectiveTrace::RankLog {
    std::vector<TransferEvent> events;  // sized to capacity once; eventCount says how many are used
    std::vector<SnapshotRecord> snapshots;
    std::vector<float> pool;
    std::int64_t eventCount = 0;
    std::int64_t snapshotCount = 0;
    std::int64_t poolUsed = 0;
    std::int64_t droppedEvents = 0;
    std::int64_t droppedSnapshots = 0;
};

CollectiveTrace::CollectiveTrace(int ranks, Limits limits)
    : m_ranks(std::max(ranks, 0)), m_limits(limits), m_logs(std::make_unique<RankLog[]>(static_cast<std::size_t>(m_ranks))) {
    m_limits.eventsPerRank = std::max<std::int64_t>(0, m_limits.eventsPerRank);
    m_limits.snapshotsPerRank = std::max<std::int64_t>(0, m_limits.snapshotsPerRank);
    m_limits.snapshotFloatsPerRank = std::max<std::int64_t>(0, m_limits.snapshotFloatsPerRank);
    for (int r = 0; r < m_ranks; ++r) {
        RankLog& rankLog = log(r);
        rankLog.events.resize(static_cast<std::size_t>(m_limits.eventsPerRank));
        rankLog.snapshots.resize(static_cast<std::size_t>(m_limits.snapshotsPerRank));
        rankLog.pool.resize(static_cast<std::size_t>(m_limits.snapshotFloatsPerRank));
    }
}

CollectiveTrace::~CollectiveTrace() = default;

CollectiveTrace::RankLog& CollectiveTrace::log(int rank) const { return m_logs[static_cast<std::size_t>(rank)]; }

void CollectiveTrace::record(int rank, const TransferEvent& event) noexcept {
    if (rank < 0 || rank >= m_ranks) return;
    RankLog& rankLog = log(rank);
    if (rankLog.eventCount >= m_limits.eventsPerRank) {
        ++rankLog.droppedEvents;
        return;
    }
    rankLog.events[static_cast<std::size_t>(rankLog.eventCount++)] = event;
}

void CollectiveTrace::snapshot(int rank, std::int64_t collective, int pack, int step, std::span<const float> values) noexcept {
    if (rank < 0 || rank >= m_ranks) return;
    RankLog& rankLog = log(rank);
    const auto count = static_cast<std::int64_t>(values.size());
    if (rankLog.snapshotCount >= m_limits.snapshotsPerRank || rankLog.poolUsed + count > m_limits.snapshotFloatsPerRank) {
        ++rankLog.droppedSnapshots;
        return;
    }
    std::copy(values.begin(), values.end(), rankLog.pool.begin() + rankLog.poolUsed);
    rankLog.snapshots[static_cast<std::size_t>(rankLog.snapshotCount++)] = SnapshotRecord{collective, pack, step, rankLog.poolUsed, count};
    rankLog.poolUsed += count;
}

std::span<const TransferEvent> CollectiveTrace::events(int rank) const {
    const RankLog& rankLog = log(rank);
    return {rankLog.events.data(), static_cast<std::size_t>(rankLog.eventCount)};
}

std::span<const SnapshotRecord> CollectiveTrace::snapshots(int rank) const {
    const RankLog& rankLog = log(rank);
    return {rankLog.snapshots.data(), static_cast<std::size_t>(rankLog.snapshotCount)};
}

std::span<const float> CollectiveTrace::values(int rank, const SnapshotRecord& snapshot) const {
    const RankLog& rankLog = log(rank);
    if (snapshot.offset < 0 || snapshot.count < 0 || snapshot.offset + snapshot.count > rankLog.poolUsed) return {};
    return {rankLog.pool.data() + snapshot.offset, static_cast<std::size_t>(snapshot.count)};
}

std::int64_t CollectiveTrace::droppedEvents(int rank) const { return log(rank).droppedEvents; }
std::int64_t CollectiveTrace::droppedSnapshots(int rank) const { return log(rank).droppedSnapshots; }

void CollectiveTrace::clear() {
    for (int r = 0; r < m_ranks; ++r) {
        RankLog& rankLog = log(r);
        rankLog.eventCount = rankLog.snapshotCount = rankLog.poolUsed = 0;
        rankLog.droppedEvents = rankLog.droppedSnapshots = 0;
    }
}

namespace {
int floorLog2(int value) { return value <= 1 ? 0 : std::bit_width(static_cast<unsigned>(value)) - 1; }
}  // namespace

int allReduceStepCount(CrossDeviceOps algorithm, int ranks) {
    if (ranks <= 1) return 0;
    switch (algorithm) {
        case CrossDeviceOps::ReductionToOneDevice:
            return 2;
        case CrossDeviceOps::HierarchicalCopy:
            return 4;
        case CrossDeviceOps::Tree:
            return 2 * floorLog2(ranks);
        case CrossDeviceOps::Ring:
        case CrossDeviceOps::Nccl:
            return 2 * (ranks - 1);
    }
    return 0;
}

const char* allReduceStepName(CrossDeviceOps algorithm, int ranks, int step) {
    if (step < 0) return "input";
    if (step >= allReduceStepCount(algorithm, ranks)) return "done";
    switch (algorithm) {
        case CrossDeviceOps::ReductionToOneDevice:
            return step == 0 ? "sum on device 0" : "copy back";
        case CrossDeviceOps::HierarchicalCopy: {
            static constexpr const char* kNames[] = {"sum each half on its lead", "add the two partial sums",
                                                     "copy the total to the other lead", "copy down from the leads"};
            return kNames[step];
        }
        case CrossDeviceOps::Tree:
            return step < floorLog2(ranks) ? "tree reduce" : "tree broadcast";
        case CrossDeviceOps::Ring:
        case CrossDeviceOps::Nccl:
            return step < ranks - 1 ? "reduce-scatter" : "all-gather";
    }
    return "unknown";
}

}  // namespace distlab
