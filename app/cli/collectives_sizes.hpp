#pragma once
// What both backends of `distlab-cli collectives` share: the resolved options and the sweep of
// sizes (doubling from --min-bytes to --max-bytes), which prints one row per size. A backend
// only says how one size is measured: threads of this process over an InProcessGroup, or this
// rank's process over its Gloo communicator.
#include <functional>
#include <string>
#include <vector>

#include "distlab/comm/all_reduce_benchmark.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab::cli {

struct CollectivesOptions {
    std::string backend = "inprocess";  ///< "inprocess" (threads) or "gloo" (processes)
    std::vector<CrossDeviceOps> algorithms{CrossDeviceOps::Ring};
    int replicas = 2;
    long long minBytes = 1024, maxBytes = 16LL << 20, iters = 20, warmup = 5;
    ReduceOp op = ReduceOp::Sum;
    bool json = false, memcpy = false;
    /// gloo: every all-reduce by Gloo's ring (--algorithm ring), else as a run's communication auto.
    bool glooRing = false;
};

/// "sum" or "mean".
const char* opName(ReduceOp op);

/// The table's two header lines (nothing with --json).
void printHeader(const CollectivesOptions& options);

/// Measures every size with `measure` (given the element count; returns the row, the same on every
/// rank) and, when `print` (rank 0), prints its row under `algorithm`'s name. Returns the wrong
/// elements of every size together.
long long measureSizes(const CollectivesOptions& options, const char* algorithm, bool print,
                       const std::function<AllReduceMeasurement(long long elements)>& measure);

}  // namespace distlab::cli
