#pragma once
// The communicator one replica uses to talk to the others (the shape of PyTorch's c10d backends,
// trimmed to what is used). Calls are collective: every rank of the group calls the same
// collectives in the same order with the same element counts (send/recv: just the two peers).
// Every call returns a Work handle, as c10d's do: wait() for its completion record before reading
// or reusing the buffer.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "distlab/tensor/dtype.hpp"

namespace distlab {

class CollectiveTrace;

/// How a reduction combines the ranks' values: the sum, the sum divided once by the ranks (every
/// rank's result rounds the same exact sum), the least, the greatest.
enum class ReduceOp { Sum, Mean, Min, Max };

/// The part of a call that crossed processes (Gloo's TCP pairs): its span of time (steady-clock
/// nanoseconds), the wait for peers within it and the bytes this rank sent. Empty (all zero) for a
/// call that stayed in one process. A hierarchical all-reduce's is its exchange among worker leads.
struct NetworkTiming {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t waitNs = 0;
    std::int64_t bytesSent = 0;

    bool empty() const { return startNs == 0 && endNs == 0; }
    /// Widens this span to cover `other`'s and adds its wait and bytes.
    void accumulate(const NetworkTiming& other) {
        if (other.empty()) return;
        startNs = empty() ? other.startNs : std::min(startNs, other.startNs);
        endNs = std::max(endNs, other.endNs);
        waitNs += other.waitNs;
        bytesSent += other.bytesSent;
    }
};

/// The completion record of one call on one rank: its span of time (steady-clock nanoseconds),
/// how long it waited for peers, and the bytes it sent and received (what a real transport would
/// move; the in-process backend reads its peers' memory instead).
struct CollectiveTiming {
    std::int64_t startNs = 0;
    std::int64_t endNs = 0;
    std::int64_t waitNs = 0;
    std::int64_t bytesSent = 0;
    std::int64_t bytesReceived = 0;
    NetworkTiming network;  ///< the part that crossed processes; its wait and bytes are counted above too

    std::int64_t durationNs() const { return endNs - startNs; }
    /// Adds another call's time and bytes (e.g. the packs of one gradient reduction).
    void accumulate(const CollectiveTiming& other) {
        const bool empty = startNs == 0 && endNs == 0;
        startNs = empty ? other.startNs : std::min(startNs, other.startNs);
        endNs = empty ? other.endNs : std::max(endNs, other.endNs);
        waitNs += other.waitNs;
        bytesSent += other.bytesSent;
        bytesReceived += other.bytesReceived;
        network.accumulate(other.network);
    }
};

/// The most values an all-reduce's companion may hold.
inline constexpr std::size_t kMaxCompanionValues = 16;

/// What an asynchronous backend keeps of one call in flight (a CUDA event on the rank's stream, a
/// transport's pending request).
class WorkState {
public:
    virtual ~WorkState() = default;
    /// Whether this rank's part is done; never blocks.
    virtual bool done() = 0;
    /// Blocks until this rank's part is done; its completion record.
    virtual CollectiveTiming wait() = 0;
};

/// The handle of one call on one rank (c10d's Work). The in-process backend does a rank's part on
/// the calling thread, so its handles are done when returned; a backend that queues the work (on a
/// GPU stream, a network) returns at once with a WorkState, and the buffer is the backend's until
/// wait() returns.
class Work {
public:
    /// A call that is already done.
    Work(CollectiveTiming timing = {}) : m_timing(timing) {}  // NOLINT: a completion record is a done Work
    /// A call in flight.
    explicit Work(std::unique_ptr<WorkState> state) : m_state(std::move(state)) {}

    /// Whether this rank's part is done (then wait() returns at once). Never blocks.
    bool test() {
        if (m_state && m_state->done()) finish();
        return !m_state;
    }
    /// Blocks until this rank's part is done; its completion record (times, wait, bytes).
    CollectiveTiming wait() {
        if (m_state) finish();
        return m_timing;
    }

private:
    void finish() {
        m_timing = m_state->wait();
        m_state.reset();
    }
    CollectiveTiming m_timing;
    std::unique_ptr<WorkState> m_state;
};

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

    /// Reduces `buffer` across all ranks in place; every rank ends with the same result. This
    /// rank's thread only.
    virtual Work allReduce(std::span<float> buffer, const AllReduceOptions& options) = 0;
    /// allReduce with default options (pack 0).
    Work allReduce(std::span<float> buffer, ReduceOp op) { return allReduce(buffer, AllReduceOptions{op, 0}); }
    /// allReduce of a typed buffer. float32 as above. float16 and bfloat16 reduce with float32
    /// accumulation: this rank widens its values into a float32 workspace, the algorithm reduces
    /// there (so the partial sums that travel, and the bytes counted, are float32), and the result
    /// is rounded to the buffer's type once, so the returned Work is done. int32 throws
    /// std::invalid_argument. Allocation-free once the workspace has grown to the largest buffer.
    Work allReduce(BufferView buffer, const AllReduceOptions& options);
    /// Reduces every rank's `buffer` into root's `buffer`; the others' buffers are left as they
    /// were. Throws std::invalid_argument for a root out of range.
    virtual Work reduce(std::span<float> buffer, int root, ReduceOp op) = 0;
    /// Copies root's `buffer` into every rank's `buffer`.
    virtual Work broadcast(std::span<float> buffer, int root) = 0;
    /// broadcast of a typed buffer, every element bit for bit: int32 travels as its bits, float16
    /// and bfloat16 through the float32 workspace (widening and rounding back are exact), so the
    /// returned Work is done.
    Work broadcast(BufferView buffer, int root);
    /// output = every rank's input, in rank order (output.size() == size() * input.size()).
    /// Throws std::invalid_argument when the sizes do not match.
    virtual Work allGather(std::span<const float> input, std::span<float> output) = 0;
    /// output = block rank() of the reduction of every rank's input (input.size() ==
    /// size() * output.size()). Throws std::invalid_argument on sizes.
    virtual Work reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) = 0;
    /// Sends `buffer` to `peer`; done when the peer's matching recv has taken it. Throws
    /// std::invalid_argument for a peer out of range or equal to rank().
    virtual Work send(std::span<const float> buffer, int peer) = 0;
    /// Receives from `peer` into `buffer` (min(sent, buffer.size()) elements; the record's
    /// bytesReceived says how many).
    virtual Work recv(std::span<float> buffer, int peer) = 0;
    /// Done when every rank has arrived.
    virtual Work barrier() = 0;

    /// The observation hook: records this rank's transfers (and, when the trace captures them,
    /// its buffer after each algorithm step) into lane rank() of `trace`; nullptr (the default)
    /// records nothing. The trace must have size() lanes and outlive the attachment. Only while
    /// this rank runs no collective (e.g. between training steps, on the stepping thread).
    virtual void setTrace(CollectiveTrace* trace) = 0;

private:
    /// Runs `call` (allReduce or broadcast of a float32 span) on a 16-bit buffer through the
    /// float32 workspace: widened before, rounded back once after.
    template <typename Call>
    Work through32(BufferView buffer, Call call);

    std::vector<float> m_wide;  ///< the float32 workspace of 16-bit reductions
};

}  // namespace distlab
