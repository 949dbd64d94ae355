#pragma once
// The collectives benchmark's one measurement, as nccl-tests takes it: every rank (a thread)
// runs untimed warm-up all-reduces, then timed ones; the time is the slowest rank's per
// iteration; the result is checked against the exact one before and after the timing (the
// buffers hold small integers, so every algorithm's float sum is exact). `distlab-cli
// collectives` prints it; the study's step-time model fits its alpha-beta lines to it.
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
    long long wrong = 0;     ///< elements off the exact result, in either check
};

/// Measures `iters` all-reduces of `elements` floats over every rank of `group` after `warmup`
/// untimed ones; `buffers` holds one buffer per rank of at least `elements`. Starts a thread per
/// rank but the first (the caller's thread is rank 0) and blocks until all are done.
AllReduceMeasurement measureAllReduce(InProcessGroup& group, std::vector<AlignedVector<float>>& buffers, long long elements, ReduceOp op,
                                      long long warmup, long long iters);

}  // namespace distlab
