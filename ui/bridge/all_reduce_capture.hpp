#pragma once
// One all-reduce of the real gradient buffers, copied out of a CollectiveTrace: every transfer of
// every pack at the algorithm's own granularity, every rank's buffer after each step (when the
// snapshots fitted) and, for every element, which replicas' contributions it holds at each point.
// The communication view steps through it. Built once (on any thread), then read-only.
#include <cstdint>
#include <span>
#include <vector>

#include <distlab/comm/collective_trace.hpp>
#include <distlab/comm/gradient_packer.hpp>
#include <distlab/config/run_config.hpp>

namespace distlab::ui {

/// One chunk moved in one step of one pack; elements are those of the whole flat gradient buffer.
struct CapturedTransfer {
    int pack = 0;
    int step = 0;
    int from = 0;
    int to = 0;
    TransferKind kind = TransferKind::Copy;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t bytes = 0;
    std::int64_t durationNs = 0;
};

class AllReduceCapture {
public:
    /// Most ranks a capture can follow (one contribution bit per replica).
    static constexpr int kMaxRanks = 64;

    AllReduceCapture() = default;
    /// Copies the first all-reduce of each of `packs` (the first `packs.size()` collectives the
    /// trace saw) of `algorithm` out of `trace`. `trainingStep` is the optimizer step whose
    /// gradients they reduced. Only while no collective runs (e.g. between two training steps).
    static AllReduceCapture fromTrace(const CollectiveTrace& trace, CrossDeviceOps algorithm, std::span<const PackRange> packs,
                                      std::int64_t trainingStep);

    bool empty() const { return m_ranks == 0; }
    int ranks() const { return m_ranks; }
    CrossDeviceOps algorithm() const { return m_algorithm; }
    std::int64_t trainingStep() const { return m_trainingStep; }
    /// Elements of the flat gradient buffer (every pack together).
    std::int64_t elements() const { return m_elements; }
    std::span<const PackRange> packs() const { return m_packs; }
    /// Steps of one pack's all-reduce (allReduceStepCount).
    int stepsPerPack() const { return m_stepsPerPack; }
    /// Steps of the whole reduction: packs × stepsPerPack (the packs are reduced one after another).
    int stepCount() const { return static_cast<int>(m_packs.size()) * m_stepsPerPack; }
    /// Frame 0 is the input; frame f > 0 is the state after step stepOf(f) of pack packOf(f).
    int frameCount() const { return empty() ? 0 : stepCount() + 1; }
    int packOf(int frame) const { return frame <= 0 || m_stepsPerPack == 0 ? -1 : (frame - 1) / m_stepsPerPack; }
    int stepOf(int frame) const { return frame <= 0 || m_stepsPerPack == 0 ? -1 : (frame - 1) % m_stepsPerPack; }
    /// allReduceStepName of the frame's step ("input" for frame 0).
    const char* stepName(int frame) const;

    /// The transfers that produced frame `frame` (none for frame 0).
    std::span<const CapturedTransfer> transfers(int frame) const;
    std::span<const CapturedTransfer> allTransfers() const { return m_transfers; }

    /// Whether every rank's buffer was captured (not for very large models).
    bool hasValues() const { return m_hasValues; }
    /// Element `element` of rank's buffer at `frame` (0 without values).
    float value(int frame, int rank, std::int64_t element) const;
    /// Rank's whole buffer at `frame` (empty without values). Allocates.
    std::vector<float> buffer(int frame, int rank) const;

    /// Elements fall into segments that share their history: segment i is [segmentBegin(i), segmentBegin(i + 1)).
    int segmentCount() const { return static_cast<int>(m_bounds.size()) - 1; }
    std::int64_t segmentBegin(int segment) const { return m_bounds[static_cast<std::size_t>(segment)]; }
    std::int64_t segmentEnd(int segment) const { return m_bounds[static_cast<std::size_t>(segment) + 1]; }
    int segmentOf(std::int64_t element) const;
    /// Bit r set: at `frame`, rank's copy of the segment holds replica r's contribution.
    std::uint64_t contributors(int frame, int rank, int segment) const;
    /// How many replicas' contributions rank's element holds at `frame` (1 at the input, ranks() when reduced).
    int contributions(int frame, int rank, std::int64_t element) const;

    /// Bytes the link from -> to carried, and the time its transfers took, over the whole all-reduce.
    std::int64_t linkBytes(int from, int to) const;
    std::int64_t linkNs(int from, int to) const;

private:
    int stageOf(int frame, int pack) const;
    void buildSegments();
    void buildContributors();

    int m_ranks = 0;
    CrossDeviceOps m_algorithm = CrossDeviceOps::Ring;
    std::int64_t m_trainingStep = 0;
    std::int64_t m_elements = 0;
    int m_stepsPerPack = 0;
    std::vector<PackRange> m_packs;
    std::vector<CapturedTransfer> m_transfers;  // sorted by frame
    std::vector<int> m_frameStart;              // transfers of frame f: [m_frameStart[f], m_frameStart[f + 1])
    bool m_hasValues = false;
    std::vector<std::vector<float>> m_values;   // per rank: the snapshots' floats
    std::vector<std::int64_t> m_valueOffset;    // [(rank * packs + pack) * (steps + 1) + stage] into m_values[rank]
    std::vector<std::int64_t> m_bounds;         // segment boundaries, 0 first, elements last
    std::vector<std::uint64_t> m_contributors;  // [(frame * ranks + rank) * segments + segment]
    std::vector<std::int64_t> m_linkBytes;      // [from * ranks + to]
    std::vector<std::int64_t> m_linkNs;
};

}  // namespace distlab::ui
