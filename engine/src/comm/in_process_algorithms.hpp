#pragma once
// The all-reduce algorithms of the in-process backend (docs/semantics.md §5), over the buffers the
// ranks publish. Each is correct for any rank count and any element count (every rank passes the
// same count); every rank ends with bit-identical values. A rank writes only its own buffer, and
// a step ends with a barrier (the ring: with a progress counter its successor waits for), so the
// step structure is exactly what the communication view shows. Each returns only once no peer
// reads this rank's buffer any more.
#include <span>

#include "comm/collective_step.hpp"
#include "comm/ring_schedule.hpp"

namespace distlab::comm_detail {

/// Device 0 adds every buffer (all terms at once, rank order), divides for MEAN, and every other
/// rank copies the result back. 2 steps; device 0 receives (N-1) x size and sends (N-1) x size.
void reduceToOneDeviceAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op);

/// Two halves [0, ceil(N/2)) and [ceil(N/2), N): each half is summed on its lead, lead 0 adds
/// the other lead's partial sum (and divides for MEAN), lead 1 copies the total, and every other
/// rank copies it from its own half's lead. Lead 0 is rank (pack mod N) and lead 1 sits at the
/// same position in the other half, so the leads rotate from pack to pack (TensorFlow's
/// hierarchical copy, generalised to any N). 4 steps (2 for N = 2).
void hierarchicalCopyAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op, int pack);

/// Reduce-scatter then all-gather around the ring 0 -> 1 -> ... -> N-1 -> 0: 2(N-1) steps, each
/// moving one chunk of about size/N elements from a rank to its successor (the first size mod N
/// chunks hold one extra element). MEAN divides each finished chunk once, before the all-gather.
/// Ranks synchronise pairwise (each waits for its predecessor's progress), not with barriers, and
/// a buffer over 1 MB runs as consecutive 1 MB segments, each a full ring (2(N-1) steps each), so
/// chunks stay in cache between steps; while snapshots are captured the buffer is one segment.
void ringAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op);

/// Binary tree (rank r's children are 2r+1 and 2r+2): level by level from the leaves, each node
/// adds its children's sums; rank 0 divides for MEAN; then level by level each node copies its
/// parent's result. 2 floor(log2 N) steps.
void treeAllReduce(CollectiveStep& step, std::span<float> buffer, ReduceOp op);

}  // namespace distlab::comm_detail
