#pragma once
// The collectives benchmark's one measurement, as nccl-tests takes it: every rank runs untimed
// warm-up all-reduces, then timed ones; the time is the slowest rank's per iteration; the result
// is checked against the exact one before and after the timing (the buffers hold small integers,
// so every algorithm's float sum is exact). A rank is a thread (measureAllReduce over an
// InProcessGroup) or a process of its own (measureAllReduceRank over its Gloo communicator).
// `distlab-cli collectives` prints it; the study's step-time model fits its alpha-beta lines to it.
#include <span>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/tensor/aligned_allocator.hpp"

namespace distlab {

struct AllReduceMeasurement {
    long long bytes = 0;
    long long elements = 0;
    double timeUs = 0.0;     ///< the slowest rank's time per all-reduce
    double algbwGbps = 0.0;  ///< bytes / time
    double busbwGbps = 0.0;  ///< algbw x 2(n - 1)/n
    long long wrong = 0;     ///< elements off the exact result, in either check, on every rank
};

/// One rank's part: every rank of `comm`'s group calls it at once with the same element count,
/// op, warm-up and iterations; `buffer` is this rank's. The slowest rank's time and every rank's
/// wrong elements are gathered by all-reduces over `comm` after the timing, so every rank
/// returns the same measurement.
AllReduceMeasurement measureAllReduceRank(Communicator& comm, std::span<float> buffer, ReduceOp op, long long warmup, long long iters);

/// Measures `iters` all-reduces of `elements` floats over every rank of `group` after `warmup`
/// untimed ones; `buffers` holds one buffer per rank of at least `elements`. Starts a thread per
/// rank but the first (the caller's thread is rank 0) and blocks until all are done.
AllReduceMeasurement measureAllReduce(InProcessGroup& group, std::vector<AlignedVector<float>>& buffers, long long elements, ReduceOp op,
                                      long long warmup, long long iters);

}  // namespace distlab
