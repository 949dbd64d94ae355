#pragma once
// Spans: what a producer (a mirrored rank, a parameter-server worker) did in one step, piece by
// piece: each micro-batch's forward and backward, each pack's all-reduce with its bytes and its
// wait for peers (on a multi-worker lead, with its network hop inside), the optimizer, the
// central variables' broadcast; a worker's pull of the parameters, its straggler's delay and its
// push of the gradient. A producer records its spans in its own SpanRecorder; the step's phase
// split (phase_split.hpp) and the trace export read them. Times are nanoseconds on the run's clock.
#include <array>
#include <cstdint>
#include <span>

namespace distlab {

/// Network: the part of a collective that crossed processes (a multi-worker all-reduce's exchange
/// among worker leads), recorded by the lead inside its pack's AllReduce span.
/// BackwardInput and BackwardWeight: a zero-bubble pipeline's backward in two (input gradient, then
/// the parameters').
enum class SpanKind : std::uint8_t {
    Forward,
    Backward,
    AllReduce,
    Optimizer,
    Broadcast,
    Pull,
    Delay,
    Push,
    Network,
    BackwardInput,
    BackwardWeight
};
/// "forward", "backward", "all_reduce", "optimizer", "broadcast", "pull", "delay", "push",
/// "network", "backward_input", "backward_weight": trace event names.
const char* spanKindName(SpanKind kind);

struct Span {
    std::int64_t beginNs = 0;
    std::int64_t endNs = 0;
    std::int64_t bytes = 0;        ///< sent by this producer (collectives, push) or received (pull)
    std::int64_t waitNs = 0;       ///< collectives: the part spent waiting for peers
    std::int16_t microBatch = -1;  ///< forward and backward: which micro-batch of the step
    std::int16_t pack = -1;        ///< all-reduce and network: which pack of the gradient
    SpanKind kind = SpanKind::Forward;
    /// Ran on the producer's reduction thread, beside its compute (an all-reduce overlapped with
    /// backward, and its network hop): traces draw it on the lane's reduction track.
    bool overlapped = false;
    std::int16_t stage = -1;  ///< forward and backward of a split model (pipeline, model_parallel): its stage
};

/// One producer's spans of the current step: a fixed buffer only that producer writes, read by
/// the stepping thread once the step is over (the join of the step orders the two). Recording
/// never allocates; spans past the capacity are counted and dropped.
class SpanRecorder {
public:
    static constexpr std::size_t kCapacity = 256;

    /// Starts a step: forgets the last step's spans.
    void clear() { m_count = 0; }
    void add(const Span& span) noexcept {
        if (m_count < kCapacity)
            m_spans[m_count++] = span;
        else
            ++m_dropped;
    }
    /// Moves the end of the last span to `endNs` (work that belongs with it, measured after it).
    void extendLast(std::int64_t endNs) noexcept {
        if (m_count > 0) m_spans[m_count - 1].endNs = endNs;
    }
    std::span<const Span> spans() const { return {m_spans.data(), m_count}; }
    /// Spans dropped because a step recorded more than kCapacity.
    std::int64_t dropped() const { return m_dropped; }

private:
    std::array<Span, kCapacity> m_spans{};
    std::size_t m_count = 0;
    std::int64_t m_dropped = 0;
};

}  // namespace distlab
