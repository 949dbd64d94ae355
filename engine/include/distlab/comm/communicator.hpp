#pragma once
// The communicator one replica uses to talk to the others (the shape of PyTorch's c10d backends,
// trimmed to what is used). Calls are collective: every rank of the group calls the same
// collectives in the same order with the same element counts (send/recv: just the two peers).
// Every call blocks until this rank's part is done and returns its completion record.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "distlab/tensor/dtype.hpp"

namespace distlab {

class CollectiveTrace;

/// How a reduction combines the ranks' values: the sum, the sum divided once by the ranks (every
/// rank's result rounds the same exact sum), the least, the greatest.
enum class ReduceOp { Sum, Mean, Min, Max };

/// The completion record of one call on one rank: its span of time (steady-clock nanoseconds),
/// how long it waited for peers, and the bytes it sent and received (what a real transport would
/// move; the in-process backend reads its peers' memory instead).
struct CollectiveTiming {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t waitNs = 0;
    std::int64_t bytesSent = 0;
    std::int64_t bytesReceived = 0;

    std::int64_t durationNs() const { return endNs - startNs; }
    /// Adds another call's time and bytes (e.g. the packs of one gradient reduction).
    void accumulate(const CollectiveTiming& other) {
        const bool empty = startNs == 0 && endNs == 0;
        startNs = empty ? other.startNs : std::min(startNs, other.startNs);
        endNs = empty ? other.endNs : std::max(endNs, other.endNs);
        waitNs += other.waitNs;
        bytesSent += other.bytesSent;
        bytesReceived += other.bytesReceived;
    }
};

/// The most values an all-reduce's companion may hold.
inline constexpr std::size_t kMaxCompanionValues = 16;

/// Options of one all-reduce.
struct AllReduceOptions {
    ReduceOp op = ReduceOp::Sum;
    int packIndex = 0;  ///< which pack of a packed reduction (hierarchical_copy rotates its lead by it; traces carry it)
    /// A few values (at most kMaxCompanionValues; more throw std::invalid_argument) reduced by
    /// the same op in the same call, as c10d's coalesced all-reduce does: a step's loss and counts
    /// ride on the gradient's last pack. They cost bytes but no extra synchronisation, and the
    /// result is the reduction in rank order, the same on every rank. Traces see the buffer only.
    std::span<float> companion;
};

class Communicator {
public:
    virtual ~Communicator() = default;
    /// This rank, in [0, size()). Any thread.
    virtual int rank() const = 0;
    /// Ranks in the group. Any thread.
    virtual int size() const = 0;

    /// Reduces `buffer` across all ranks in place; every rank ends with the same result. Blocks
    /// until this rank's part is done; call from this rank's thread only.
    virtual CollectiveTiming allReduce(std::span<float> buffer, const AllReduceOptions& options) = 0;
    /// allReduce with default options (pack 0). Blocks; this rank's thread.
    CollectiveTiming allReduce(std::span<float> buffer, ReduceOp op) { return allReduce(buffer, AllReduceOptions{op, 0}); }
    /// allReduce of a typed buffer. float32 as above. float16 and bfloat16 reduce with float32
    /// accumulation: this rank widens its values into a float32 workspace, the algorithm reduces
    /// there (so the partial sums that travel, and the bytes counted, are float32), and the result
    /// is rounded to the buffer's type once. int32 throws std::invalid_argument. Blocks; this
    /// rank's thread; allocation-free once the workspace has grown to the largest buffer.
    CollectiveTiming allReduce(BufferView buffer, const AllReduceOptions& options);
    /// Reduces every rank's `buffer` into root's `buffer`; the others' buffers are left as they
    /// were. Blocks; this rank's thread. Throws std::invalid_argument for a root out of range.
    virtual CollectiveTiming reduce(std::span<float> buffer, int root, ReduceOp op) = 0;
    /// Copies root's `buffer` into every rank's `buffer`. Blocks; this rank's thread.
    virtual CollectiveTiming broadcast(std::span<float> buffer, int root) = 0;
    /// output = every rank's input, in rank order (output.size() == size() * input.size()).
    /// Blocks; this rank's thread. Throws std::invalid_argument when the sizes do not match.
    virtual CollectiveTiming allGather(std::span<const float> input, std::span<float> output) = 0;
    /// output = block rank() of the reduction of every rank's input (input.size() ==
    /// size() * output.size()). Blocks; this rank's thread. Throws std::invalid_argument on sizes.
    virtual CollectiveTiming reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) = 0;
    /// Sends `buffer` to `peer`; blocks until the peer's matching recv has taken it. This rank's
    /// thread. Throws std::invalid_argument for a peer out of range or equal to rank().
    virtual CollectiveTiming send(std::span<const float> buffer, int peer) = 0;
    /// Receives from `peer` into `buffer` (min(sent, buffer.size()) elements; the record's
    /// bytesReceived says how many). Blocks until the peer sends. This rank's thread.
    virtual CollectiveTiming recv(std::span<float> buffer, int peer) = 0;
    /// Blocks until every rank has arrived. This rank's thread.
    virtual CollectiveTiming barrier() = 0;

    /// The observation hook: records this rank's transfers (and, when the trace captures them,
    /// its buffer after each algorithm step) into lane rank() of `trace`; nullptr (the default)
    /// records nothing. The trace must have size() lanes and outlive the attachment. Only while
    /// this rank runs no collective (e.g. between training steps, on the stepping thread).
    virtual void setTrace(CollectiveTrace* trace) = 0;

private:
    std::vector<float> m_wide;  ///< the float32 workspace of 16-bit reductions
};

}  // namespace distlab
