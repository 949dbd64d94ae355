#include "bridge/all_reduce_capture.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace distlab::ui {

AllReduceCapture AllReduceCapture::fromTrace(const CollectiveTrace& trace, CrossDeviceOps algorithm, std::span<const PackRange> packs,
                                             std::int64_t trainingStep) {
    AllReduceCapture capture;
    const int ranks = trace.ranks();
    if (ranks < 2 || ranks > kMaxRanks || packs.empty()) return capture;
    capture.m_ranks = ranks;
    capture.m_algorithm = algorithm;
    capture.m_trainingStep = trainingStep;
    capture.m_packs.assign(packs.begin(), packs.end());
    capture.m_elements = packs.back().end;
    capture.m_stepsPerPack = allReduceStepCount(algorithm, ranks);
    const int packCount = static_cast<int>(packs.size());
    const int steps = capture.m_stepsPerPack;

    // The packs of one training step are consecutive collectives of the group, pack p the p-th: the
    // first collective the trace saw is pack 0 (it was attached between two steps). Later steps
    // (the trace may stay attached a little longer while training runs) are left out.
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (int r = 0; r < ranks; ++r) {
        for (const TransferEvent& event : trace.events(r)) first = std::min(first, event.collective);
        for (const SnapshotRecord& snapshot : trace.snapshots(r)) first = std::min(first, snapshot.collective);
    }
    auto ours = [&](std::int64_t collective, int pack, int step) {
        return pack >= 0 && pack < packCount && collective - first == pack && step >= -1 && step < steps;
    };

    for (int r = 0; r < ranks; ++r) {
        for (const TransferEvent& event : trace.events(r)) {
            if (!ours(event.collective, event.pack, event.step) || event.step < 0) continue;
            const std::int64_t offset = packs[static_cast<std::size_t>(event.pack)].begin;
            capture.m_transfers.push_back(CapturedTransfer{event.pack, event.step, event.fromRank, event.toRank, event.kind,
                                                           offset + event.beginElement, offset + event.endElement, event.bytes,
                                                           event.endNs - event.startNs});
        }
    }
    auto frameOf = [steps](const CapturedTransfer& t) { return 1 + t.pack * steps + t.step; };
    std::stable_sort(capture.m_transfers.begin(), capture.m_transfers.end(), [&](const CapturedTransfer& a, const CapturedTransfer& b) {
        if (frameOf(a) != frameOf(b)) return frameOf(a) < frameOf(b);
        return a.from != b.from ? a.from < b.from : a.to < b.to;
    });
    const int frames = capture.frameCount();
    capture.m_frameStart.assign(static_cast<std::size_t>(frames) + 1, 0);
    for (const CapturedTransfer& t : capture.m_transfers) ++capture.m_frameStart[static_cast<std::size_t>(frameOf(t)) + 1];
    for (int f = 0; f < frames; ++f)
        capture.m_frameStart[static_cast<std::size_t>(f) + 1] += capture.m_frameStart[static_cast<std::size_t>(f)];

    capture.m_linkBytes.assign(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks), 0);
    capture.m_linkNs.assign(capture.m_linkBytes.size(), 0);
    for (const CapturedTransfer& t : capture.m_transfers) {
        const auto link = static_cast<std::size_t>(t.from) * static_cast<std::size_t>(ranks) + static_cast<std::size_t>(t.to);
        capture.m_linkBytes[link] += t.bytes;
        capture.m_linkNs[link] += t.durationNs;
    }

    // The buffers: each rank's snapshot of each pack after each step (stage 0 = the input). A step
    // a rank took no snapshot of (hierarchical copy on two devices skips two) keeps the stage before.
    const auto stages = static_cast<std::size_t>(steps) + 1;
    capture.m_values.resize(static_cast<std::size_t>(ranks));
    capture.m_valueOffset.assign(static_cast<std::size_t>(ranks) * static_cast<std::size_t>(packCount) * stages, -1);
    bool complete = true;
    for (int r = 0; r < ranks; ++r) {
        std::vector<float>& values = capture.m_values[static_cast<std::size_t>(r)];
        for (const SnapshotRecord& snapshot : trace.snapshots(r)) {
            if (!ours(snapshot.collective, snapshot.pack, snapshot.step)) continue;
            if (snapshot.count != packs[static_cast<std::size_t>(snapshot.pack)].size()) continue;
            const auto floats = trace.values(r, snapshot);
            const auto slot =
                (static_cast<std::size_t>(r) * static_cast<std::size_t>(packCount) + static_cast<std::size_t>(snapshot.pack)) * stages +
                static_cast<std::size_t>(snapshot.step + 1);
            capture.m_valueOffset[slot] = static_cast<std::int64_t>(values.size());
            values.insert(values.end(), floats.begin(), floats.end());
        }
        for (int p = 0; p < packCount; ++p) {
            const std::size_t base =
                (static_cast<std::size_t>(r) * static_cast<std::size_t>(packCount) + static_cast<std::size_t>(p)) * stages;
            complete = complete && capture.m_valueOffset[base] >= 0;
            for (std::size_t s = 1; s < stages; ++s)
                if (capture.m_valueOffset[base + s] < 0) capture.m_valueOffset[base + s] = capture.m_valueOffset[base + s - 1];
        }
    }
    capture.m_hasValues = complete;
    if (!complete) capture.m_values.assign(static_cast<std::size_t>(ranks), {});

    capture.buildSegments();
    capture.buildContributors();
    return capture;
}

const char* AllReduceCapture::stepName(int frame) const {
    if (frame <= 0) return "input";
    return allReduceStepName(m_algorithm, m_ranks, stepOf(frame));
}

std::span<const CapturedTransfer> AllReduceCapture::transfers(int frame) const {
    if (frame <= 0 || frame >= frameCount()) return {};
    const auto begin = static_cast<std::size_t>(m_frameStart[static_cast<std::size_t>(frame)]);
    const auto end = static_cast<std::size_t>(m_frameStart[static_cast<std::size_t>(frame) + 1]);
    return std::span<const CapturedTransfer>(m_transfers).subspan(begin, end - begin);
}

int AllReduceCapture::stageOf(int frame, int pack) const {
    const int framePack = packOf(frame);
    if (pack < framePack) return m_stepsPerPack;
    if (pack == framePack) return stepOf(frame) + 1;
    return 0;
}

float AllReduceCapture::value(int frame, int rank, std::int64_t element) const {
    if (!m_hasValues || rank < 0 || rank >= m_ranks || element < 0 || element >= m_elements) return 0.0f;
    const auto pack =
        std::upper_bound(m_packs.begin(), m_packs.end(), element, [](std::int64_t e, const PackRange& range) { return e < range.end; }) -
        m_packs.begin();
    const auto stages = static_cast<std::size_t>(m_stepsPerPack) + 1;
    const auto slot = (static_cast<std::size_t>(rank) * m_packs.size() + static_cast<std::size_t>(pack)) * stages +
                      static_cast<std::size_t>(stageOf(std::clamp(frame, 0, frameCount() - 1), static_cast<int>(pack)));
    const std::int64_t offset = m_valueOffset[slot] + element - m_packs[static_cast<std::size_t>(pack)].begin;
    return m_values[static_cast<std::size_t>(rank)][static_cast<std::size_t>(offset)];
}

std::vector<float> AllReduceCapture::buffer(int frame, int rank) const {
    std::vector<float> out;
    if (!m_hasValues || rank < 0 || rank >= m_ranks) return out;
    out.reserve(static_cast<std::size_t>(m_elements));
    frame = std::clamp(frame, 0, frameCount() - 1);
    const auto stages = static_cast<std::size_t>(m_stepsPerPack) + 1;
    const std::vector<float>& values = m_values[static_cast<std::size_t>(rank)];
    for (std::size_t p = 0; p < m_packs.size(); ++p) {
        const std::int64_t offset = m_valueOffset[(static_cast<std::size_t>(rank) * m_packs.size() + p) * stages +
                                                  static_cast<std::size_t>(stageOf(frame, static_cast<int>(p)))];
        const auto begin = values.begin() + offset;
        out.insert(out.end(), begin, begin + m_packs[p].size());
    }
    return out;
}

void AllReduceCapture::buildSegments() {
    m_bounds = {0, m_elements};
    for (const PackRange& pack : m_packs) m_bounds.push_back(pack.begin);
    for (const CapturedTransfer& t : m_transfers) {
        m_bounds.push_back(t.begin);
        m_bounds.push_back(t.end);
    }
    std::sort(m_bounds.begin(), m_bounds.end());
    m_bounds.erase(std::unique(m_bounds.begin(), m_bounds.end()), m_bounds.end());
}

int AllReduceCapture::segmentOf(std::int64_t element) const {
    const auto it = std::upper_bound(m_bounds.begin(), m_bounds.end(), element);
    return std::clamp(static_cast<int>(it - m_bounds.begin()) - 1, 0, std::max(0, segmentCount() - 1));
}

void AllReduceCapture::buildContributors() {
    // Replays the transfers: a copy hands over the sender's contributions, a reduce adds them. Each
    // step reads what its sources held after the previous step (the algorithms never read a range
    // that its owner rewrites in the same step).
    const int frames = frameCount(), segments = segmentCount();
    const auto perFrame = static_cast<std::size_t>(m_ranks) * static_cast<std::size_t>(segments);
    m_contributors.assign(static_cast<std::size_t>(frames) * perFrame, 0);
    for (int r = 0; r < m_ranks; ++r)
        std::fill_n(m_contributors.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * static_cast<std::size_t>(segments)),
                    segments, std::uint64_t{1} << r);
    for (int f = 1; f < frames; ++f) {
        const std::uint64_t* before = m_contributors.data() + static_cast<std::size_t>(f - 1) * perFrame;
        std::uint64_t* after = m_contributors.data() + static_cast<std::size_t>(f) * perFrame;
        std::copy(before, before + perFrame, after);
        for (const CapturedTransfer& t : transfers(f)) {
            if (t.end <= t.begin) continue;
            for (int s = segmentOf(t.begin); s <= segmentOf(t.end - 1); ++s) {
                const std::uint64_t held =
                    before[static_cast<std::size_t>(t.from) * static_cast<std::size_t>(segments) + static_cast<std::size_t>(s)];
                std::uint64_t& mask =
                    after[static_cast<std::size_t>(t.to) * static_cast<std::size_t>(segments) + static_cast<std::size_t>(s)];
                mask = t.kind == TransferKind::Copy ? held : (mask | held);
            }
        }
    }
}

std::uint64_t AllReduceCapture::contributors(int frame, int rank, int segment) const {
    if (empty() || rank < 0 || rank >= m_ranks || segment < 0 || segment >= segmentCount()) return 0;
    frame = std::clamp(frame, 0, frameCount() - 1);
    const auto segments = static_cast<std::size_t>(segmentCount());
    return m_contributors[(static_cast<std::size_t>(frame) * static_cast<std::size_t>(m_ranks) + static_cast<std::size_t>(rank)) *
                              segments +
                          static_cast<std::size_t>(segment)];
}

int AllReduceCapture::contributions(int frame, int rank, std::int64_t element) const {
    return std::popcount(contributors(frame, rank, segmentOf(element)));
}

std::int64_t AllReduceCapture::linkBytes(int from, int to) const {
    if (from < 0 || to < 0 || from >= m_ranks || to >= m_ranks) return 0;
    return m_linkBytes[static_cast<std::size_t>(from) * static_cast<std::size_t>(m_ranks) + static_cast<std::size_t>(to)];
}

std::int64_t AllReduceCapture::linkNs(int from, int to) const {
    if (from < 0 || to < 0 || from >= m_ranks || to >= m_ranks) return 0;
    return m_linkNs[static_cast<std::size_t>(from) * static_cast<std::size_t>(m_ranks) + static_cast<std::size_t>(to)];
}

}  // namespace distlab::ui
