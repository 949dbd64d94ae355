#include "comm/in_process_algorithms.hpp"

#include <algorithm>
#include <bit>

namespace distlab::comm_detail {
namespace {

int floorLog2(int value) { return value <= 1 ? 0 : std::bit_width(static_cast<unsigned>(value)) - 1; }

float* begin(std::span<float> buffer) { return buffer.data(); }
std::int64_t count(std::span<float> buffer) { return static_cast<std::int64_t>(buffer.size()); }

void divideIfMean(ReduceOp op, int ranks, float* values, std::int64_t elements) {
    if (op == ReduceOp::Mean && elements > 0) divideBy(values, static_cast<float>(ranks), static_cast<std::size_t>(elements));
}

// Publishes this rank's buffer and waits until every rank has published (step "-1").
void start(CollectiveStep& step, std::span<float> buffer) {
    step.group().publish(step.rank(), buffer.data());
    step.snapshotInput(buffer);
    step.sync();
}

// own[0, size) = own op the buffers of `sources` ranks (sourceRank(0), sourceRank(1), ... in that
// order), fused block by block; logged as one Reduce transfer per source.
template <typename SourceRank>
void combineFrom(CollectiveStep& step, int stepIndex, ReduceOp op, std::span<float> own, int sources, SourceRank sourceRank) {
    if (sources <= 0) return;
    const std::int64_t started = step.traceClock();
    combineManyInto(
        op, begin(own), sources, [&](int s) { return step.group().buffer(sourceRank(s)); }, own.size());
    for (int s = 0; s < sources; ++s) step.logTransfer(stepIndex, sourceRank(s), TransferKind::Reduce, 0, count(own), started);
}

}  // namespace

void reduceToOneDeviceAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op) {
    const int n = step.size(), rank = step.rank();
    start(step, buffer);
    if (rank == 0) {
        combineFrom(step, 0, op, buffer, n - 1, [](int s) { return s + 1; });
        divideIfMean(op, n, begin(buffer), count(buffer));
    } else {
        step.sent(count(buffer));
    }
    step.endStep(0, buffer);
    if (rank != 0)
        step.copyFrom(1, 0, begin(buffer), 0, count(buffer));
    else
        step.sent(count(buffer) * (n - 1));
    step.endStep(1, buffer);
}

void hierarchicalCopyAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op, int pack) {
    const int n = step.size(), rank = step.rank();
    const int firstHalf = (n + 1) / 2;  // the larger half, so step 0 is empty only for N = 2
    auto halfBegin = [&](int r) { return r < firstHalf ? 0 : firstHalf; };
    auto halfSize = [&](int r) { return r < firstHalf ? firstHalf : n - firstHalf; };
    const int lead0 = ((pack % n) + n) % n;
    const int otherBegin = halfBegin(lead0) == 0 ? firstHalf : 0;
    const int lead1 = otherBegin + (lead0 - halfBegin(lead0)) % (n - halfSize(lead0));
    const int myLead = halfBegin(rank) == halfBegin(lead0) ? lead0 : lead1;
    const int members = halfSize(rank) - 1;  // the others in my half
    const bool halvesOfOne = n == 2;
    const std::int64_t size = count(buffer);

    start(step, buffer);
    // Step 0: each lead sums its half (rank order, the lead's own value first).
    if (rank == myLead) {
        const int first = halfBegin(rank);
        combineFrom(step, 0, op, buffer, members, [&](int s) { return first + s + (first + s >= myLead ? 1 : 0); });
    } else {
        step.sent(size);
    }
    if (!halvesOfOne) step.endStep(0, buffer);
    // Step 1: lead 0 adds lead 1's partial sum.
    if (rank == lead0) {
        step.reduceFrom(1, lead1, op, begin(buffer), 0, size);
        divideIfMean(op, n, begin(buffer), size);
    } else if (rank == lead1) {
        step.sent(size);
    }
    step.endStep(1, buffer);
    // Step 2: lead 1 copies the total.
    if (rank == lead1)
        step.copyFrom(2, lead0, begin(buffer), 0, size);
    else if (rank == lead0)
        step.sent(size);
    step.endStep(2, buffer);
    // Step 3: everyone else copies from the lead of their half.
    if (halvesOfOne) return;
    if (rank != myLead)
        step.copyFrom(3, myLead, begin(buffer), 0, size);
    else
        step.sent(size * members);
    step.endStep(3, buffer);
}

void ringAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op) {
    const int n = step.size(), rank = step.rank(), steps = 2 * (n - 1);
    const std::int64_t total = count(buffer);
    auto wrap = [&](int chunk) { return ((chunk % n) + n) % n; };
    const int predecessor = wrap(rank - 1), successor = wrap(rank + 1);
    float* own = begin(buffer);
    // Snapshots show the textbook picture: the whole buffer as one segment.
    const std::int64_t segment = step.capturingSnapshots() ? total : kRingSegmentElements;

    // Progress: every rank's counter holds the same value on entry (calls are collective); +1 says
    // "published", then +1 per (segment, step) done. No barrier: a rank waits only for its
    // predecessor, whose buffer it reads, and at the end for its successor, the only rank that
    // reads its own buffer.
    std::uint32_t done = step.group().progress(rank).load(std::memory_order_relaxed) + 1;
    step.group().publish(rank, own);
    step.snapshotInput(buffer);
    step.advanceProgress(done);
    step.waitForProgress(predecessor, done);
    for (std::int64_t first = 0; first < total; first += segment) {
        const std::int64_t length = std::min(segment, total - first);
        auto from = [&](int chunk) { return first + ringChunkBegin(length, n, wrap(chunk)); };
        auto to = [&](int chunk) { return first + ringChunkBegin(length, n, wrap(chunk) + 1); };
        for (int s = 0; s < steps; ++s) {
            // Step 0 of a segment reads the predecessor's untouched input (it overwrites that
            // chunk only in its all-gather, after this rank's step 0); later steps read what the
            // predecessor's previous step wrote.
            if (s > 0) step.waitForProgress(predecessor, done);
            if (s < n - 1) {
                // Reduce-scatter: receive chunk (rank - s - 1) and add it to this rank's own; after
                // n - 1 steps this rank holds the full sum of chunk (rank + 1).
                const int chunk = rank - s - 1;
                step.reduceFrom(s, predecessor, op, own, from(chunk), to(chunk));
                step.sent(to(rank - s) - from(rank - s));
                if (s == n - 2) divideIfMean(op, n, own + from(chunk), to(chunk) - from(chunk));
            } else {
                // All-gather: copy the finished chunk (rank - t) from the predecessor.
                const int t = s - (n - 1), chunk = rank - t;
                step.copyFrom(s, predecessor, own, from(chunk), to(chunk));
                step.sent(to(rank + 1 - t) - from(rank + 1 - t));
            }
            step.snapshot(s, buffer);
            step.advanceProgress(++done);
        }
    }
    step.waitForProgress(successor, done);
}

void treeAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op) {
    const int n = step.size(), rank = step.rank();
    const int depth = floorLog2(rank + 1), levels = floorLog2(n);
    const int firstChild = 2 * rank + 1;
    const int children = std::clamp(n - firstChild, 0, 2);
    const std::int64_t size = count(buffer);

    start(step, buffer);
    // Reduce: step i finishes the nodes at depth (levels - 1 - i), whose children are final.
    for (int i = 0; i < levels; ++i) {
        const int level = levels - 1 - i;
        if (depth == level) {
            combineFrom(step, i, op, buffer, children, [&](int c) { return firstChild + c; });
            if (level == 0) divideIfMean(op, n, begin(buffer), size);
        } else if (depth == level + 1) {
            step.sent(size);
        }
        step.endStep(i, buffer);
    }
    // Broadcast: step levels + j copies the result down to depth j + 1.
    for (int j = 0; j < levels; ++j) {
        if (depth == j + 1)
            step.copyFrom(levels + j, (rank - 1) / 2, begin(buffer), 0, size);
        else if (depth == j)
            step.sent(size * children);
        step.endStep(levels + j, buffer);
    }
}

}  // namespace distlab::comm_detail
