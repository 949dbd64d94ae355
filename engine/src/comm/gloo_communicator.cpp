#include "comm/gloo_communicator.hpp"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/reduce.h>
#include <gloo/transport/unbound_buffer.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/error.hpp"

namespace distlab::comm_detail {
namespace {

using ReduceFunction = void (*)(void*, const void*, const void*, std::size_t);

ReduceFunction reduceFunction(ReduceOp op) {
    switch (op) {
        case ReduceOp::Min:
            return &gloo::min<float>;
        case ReduceOp::Max:
            return &gloo::max<float>;
        case ReduceOp::Sum:
        case ReduceOp::Mean:
            break;
    }
    return &gloo::sum<float>;
}

/// Point-to-point slots live far above the collectives' (Gloo builds those from an 8-bit prefix
/// and the call's tag), so a message can never be taken by a collective.
constexpr std::uint64_t kPointToPointSlots = std::uint64_t{0x7f} << 56;

std::int64_t bytesOf(std::size_t elements) { return static_cast<std::int64_t>(elements * sizeof(float)); }

// Up to this many bytes a buffer is copied to share its companion's ring (see allReduce).
constexpr std::int64_t kJoinedBytes = 4LL << 20;

// The direct exchange's slots, apart from the point-to-point ones and Gloo's collectives'.
constexpr std::uint64_t kExchangeSlots = std::uint64_t{0x7e} << 56;

}  // namespace

GlooCommunicator::GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context, std::chrono::milliseconds timeout, bool alwaysRing,
                                   GlooRankNames names)
    : m_context(std::move(context)),
      m_timeout(timeout),
      m_rank(m_context->rank),
      m_size(m_context->size),
      m_alwaysRing(alwaysRing),
      m_names(std::move(names)),
      m_sentTo(static_cast<std::size_t>(m_size)),
      m_receivedOf(static_cast<std::size_t>(m_size)) {}

CollectiveTiming GlooCommunicator::completed(CollectiveTiming timing) const {
    timing.endNs = nowNs();
    // Everything a call of more than one rank does here goes between processes.
    if (m_size > 1) timing.network = {timing.startNs, timing.endNs, timing.waitNs, timing.bytesSent};
    return timing;
}

template <typename Call>
void GlooCommunicator::guarded(const std::string& what, Call call) {
    try {
        call();
    } catch (const gloo::Exception& error) {
        // The pair to a lost peer fails at once (its connection closed) or after the timeout
        // (a peer that stopped answering). Either way the group cannot go on.
        throw TrainingError("Gloo " + what + " failed on rank " + rankName(m_rank) + " of " + groupSizeName() + ": " + error.what());
    }
}

std::string GlooCommunicator::rankName(int rank) const {
    return std::to_string(m_names.groupRanks.empty() ? rank : m_names.groupRanks[static_cast<std::size_t>(rank)]);
}

std::string GlooCommunicator::groupSizeName() const { return std::to_string(m_names.groupSize > 0 ? m_names.groupSize : m_size); }

void GlooCommunicator::checkPeer(const char* what, int peer) const {
    if (peer < 0 || peer >= m_size || peer == m_rank)
        throw std::invalid_argument(std::string(what) + ": peer " + std::to_string(peer) + " is not another rank of " +
                                    std::to_string(m_size));
}

bool GlooCommunicator::exchanges(std::size_t elements) const {
    return !m_alwaysRing && (m_size == 2 || bytesOf(elements) <= kExchangeBytes);
}

std::int64_t GlooCommunicator::allReduceBytes(std::size_t elements) const {
    if (m_size == 1 || elements == 0) return 0;
    // The exchange sends the buffer to every peer; a ring 2 (n - 1) / n of it.
    return exchanges(elements) ? bytesOf(elements) * (m_size - 1) : bytesOf(elements) * 2 * (m_size - 1) / m_size;
}

void GlooCommunicator::growPairBlocks(std::size_t count) {
    // Both ranks see the same sequence of all-reduces, so both grow at the same call and take the
    // same slots: rank r receives in slots base + 2 r + parity, and sends to the peer's.
    m_pairReceives = {};
    m_pairSlot = m_context->nextSlot(4);
    auto& pair = m_context->getPair(1 - m_rank);
    for (std::size_t parity = 0; parity < 2; ++parity) {
        m_pairBlocks[parity].assign(count, 0.0F);
        m_pairReceives[parity] =
            pair->createRecvBuffer(m_pairSlot + 2 * m_rank + static_cast<int>(parity), m_pairBlocks[parity].data(), count * sizeof(float));
    }
}

void GlooCommunicator::pairSum(std::span<float> values) {
    const std::size_t count = values.size();
    if (count > m_pairBlocks[0].size()) growPairBlocks(count);
    // Two blocks taken in turn: the peer sends the next call's values only after it has this
    // call's values from us, which we send only after summing the previous call's block.
    const std::size_t parity = m_pairParity;
    m_pairParity ^= 1U;
    const int peer = 1 - m_rank;
    guarded("all-reduce", [&] {
        // A registered block needs no notice before the peer writes into it, so the values leave
        // from this thread at once, without the round trip an unbound receive would need first.
        auto mine = m_context->getPair(peer)->createSendBuffer(m_pairSlot + 2 * peer + static_cast<int>(parity), values.data(),
                                                               count * sizeof(float));
        mine->send(0, count * sizeof(float));
        m_pairReceives[parity]->waitRecv();
        mine->waitSend();
    });
    // v0 + v1 on rank 0, v1 + v0 on rank 1: float addition is commutative, so both ranks hold the
    // bits of the rank-order sum, with neither buffer copied.
    gloo::sum<float>(values.data(), values.data(), m_pairBlocks[parity].data(), count);
}

void GlooCommunicator::exchangeAllReduce(std::span<float> values, ReduceOp op) {
    if (m_size == 2 && (op == ReduceOp::Sum || op == ReduceOp::Mean)) {
        pairSum(values);
        return;
    }
    const std::size_t count = values.size();
    const auto block = [&](int rank) { return m_exchange.data() + static_cast<std::size_t>(rank) * count; };
    m_exchange.resize(count * static_cast<std::size_t>(m_size));
    std::copy(values.begin(), values.end(), block(m_rank));
    const std::uint64_t slot = kExchangeSlots | nextTag();
    guarded("all-reduce", [&] {
        auto mine = m_context->createUnboundBuffer(block(m_rank), count * sizeof(float));
        std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> theirs;
        for (int peer = 0; peer < m_size; ++peer) {
            if (peer == m_rank) continue;
            theirs.push_back(m_context->createUnboundBuffer(block(peer), count * sizeof(float)));
            theirs.back()->recv(peer, slot);  // posted before anything is sent: no peer waits on this one
        }
        for (int peer = 0; peer < m_size; ++peer)
            if (peer != m_rank) mine->send(peer, slot);
        for (auto& buffer : theirs)
            if (!buffer->waitRecv(m_timeout)) throw gloo::IoException("timed out waiting for a peer's values");
        for (int sent = 1; sent < m_size; ++sent)
            if (!mine->waitSend(m_timeout)) throw gloo::IoException("timed out sending to a peer");
    });
    // Every rank sums the same blocks in rank order, so every rank ends with the same bits.
    const ReduceFunction combine = reduceFunction(op);
    std::copy(block(0), block(0) + count, values.begin());
    for (int rank = 1; rank < m_size; ++rank) combine(values.data(), values.data(), block(rank), count);
}

void GlooCommunicator::allReduceInPlace(std::span<float> values, ReduceOp op) {
    if (values.empty() || m_size == 1) return;
    if (exchanges(values.size())) {
        exchangeAllReduce(values, op);
        return;
    }
    gloo::AllreduceOptions options(m_context);
    options.setOutput(values.data(), values.size());
    options.setReduceFunction(reduceFunction(op));
    options.setAlgorithm(gloo::AllreduceOptions::Algorithm::RING);
    options.setTag(nextTag());
    options.setTimeout(m_timeout);
    guarded("all-reduce", [&] { gloo::allreduce(options); });
}

Work GlooCommunicator::allReduce(std::span<float> buffer, const AllReduceOptions& options) {
    if (options.companion.size() > kMaxCompanionValues)
        throw std::invalid_argument("allReduce: at most " + std::to_string(kMaxCompanionValues) + " companion values");
    CollectiveTiming timing;
    timing.startNs = nowNs();
    // A small buffer's companion rides in the same ring: a second ring, however tiny, costs a
    // round trip between every pair (a millisecond or more on a loaded two-core host, and a
    // training step of a small model is little else), while copying the buffer in and out costs
    // a pass of memory. A large buffer's ring is long next to a round trip, so its companion
    // keeps a tiny ring of its own rather than a copy of the buffer.
    const bool join = !options.companion.empty() && bytesOf(buffer.size()) <= kJoinedBytes;
    std::array<std::span<float>, 2> rings{buffer, options.companion};
    if (join) {
        m_joined.resize(buffer.size() + options.companion.size());
        std::copy(buffer.begin(), buffer.end(), m_joined.begin());
        std::copy(options.companion.begin(), options.companion.end(), m_joined.begin() + static_cast<std::ptrdiff_t>(buffer.size()));
        rings = {std::span<float>(m_joined), std::span<float>()};
    }
    for (const std::span<float> values : rings) {
        allReduceInPlace(values, options.op);
        if (options.op == ReduceOp::Mean) {
            const float ranks = static_cast<float>(m_size);
            for (float& value : values) value /= ranks;
        }
        const std::int64_t moved = allReduceBytes(values.size());
        timing.bytesSent += moved;
        timing.bytesReceived += moved;
    }
    if (join) {
        const auto split = m_joined.begin() + static_cast<std::ptrdiff_t>(buffer.size());
        std::copy(m_joined.begin(), split, buffer.begin());
        std::copy(split, m_joined.end(), options.companion.begin());
    }
    return completed(timing);
}

Work GlooCommunicator::reduce(std::span<float> buffer, int root, ReduceOp op) {
    if (root < 0 || root >= m_size) throw std::invalid_argument("reduce: root " + std::to_string(root) + " is not a rank");
    CollectiveTiming timing;
    timing.startNs = nowNs();
    // Gloo reduces in place through every rank's buffer; the others' buffers must stay as they were.
    m_scratch.assign(buffer.begin(), buffer.end());
    if (m_size > 1 && !buffer.empty()) {
        gloo::ReduceOptions options(m_context);
        options.setOutput(m_scratch.data(), m_scratch.size());
        options.setRoot(root);
        options.setReduceFunction(reduceFunction(op));
        options.setTag(nextTag());
        options.setTimeout(m_timeout);
        guarded("reduce", [&] { gloo::reduce(options); });
    }
    if (m_rank == root) {
        if (op == ReduceOp::Mean)
            for (float& value : m_scratch) value /= static_cast<float>(m_size);
        std::copy(m_scratch.begin(), m_scratch.end(), buffer.begin());
        timing.bytesReceived = bytesOf(buffer.size()) * (m_size - 1);
    } else {
        timing.bytesSent = bytesOf(buffer.size());
    }
    return completed(timing);
}

Work GlooCommunicator::broadcast(std::span<float> buffer, int root) {
    if (root < 0 || root >= m_size) throw std::invalid_argument("broadcast: root " + std::to_string(root) + " is not a rank");
    CollectiveTiming timing;
    timing.startNs = nowNs();
    if (m_size > 1 && !buffer.empty()) {
        gloo::BroadcastOptions options(m_context);
        options.setOutput(buffer.data(), buffer.size());
        options.setRoot(root);
        options.setTag(nextTag());
        options.setTimeout(m_timeout);
        guarded("broadcast", [&] { gloo::broadcast(options); });
        if (m_rank == root)
            timing.bytesSent = bytesOf(buffer.size()) * (m_size - 1);
        else
            timing.bytesReceived = bytesOf(buffer.size());
    }
    return completed(timing);
}

Work GlooCommunicator::allGather(std::span<const float> input, std::span<float> output) {
    if (output.size() != input.size() * static_cast<std::size_t>(m_size))
        throw std::invalid_argument("allGather: the output must hold size() inputs (" + std::to_string(m_size) + " x " +
                                    std::to_string(input.size()) + ", got " + std::to_string(output.size()) + ")");
    CollectiveTiming timing;
    timing.startNs = nowNs();
    if (m_size == 1 || input.empty()) {
        std::copy(input.begin(), input.end(), output.begin());
    } else {
        gloo::AllgatherOptions options(m_context);
        // Gloo only reads its input; its options take a mutable pointer.
        options.setInput(const_cast<float*>(input.data()), input.size());  // NOLINT(cppcoreguidelines-pro-type-const-cast)
        options.setOutput(output.data(), output.size());
        options.setTag(nextTag());
        options.setTimeout(m_timeout);
        guarded("all-gather", [&] { gloo::allgather(options); });
        timing.bytesSent = bytesOf(input.size()) * (m_size - 1);
        timing.bytesReceived = timing.bytesSent;
    }
    return completed(timing);
}

Work GlooCommunicator::reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) {
    if (input.size() != output.size() * static_cast<std::size_t>(m_size))
        throw std::invalid_argument("reduceScatter: the input must hold size() outputs (" + std::to_string(m_size) + " x " +
                                    std::to_string(output.size()) + ", got " + std::to_string(input.size()) + ")");
    // An all-reduce of a copy, keeping this rank's block: the bytes of a ring all-reduce, twice a
    // reduce-scatter's; Debian's Gloo has no reduce-scatter in its options API.
    CollectiveTiming timing;
    timing.startNs = nowNs();
    m_scratch.assign(input.begin(), input.end());
    allReduceInPlace(m_scratch, op);
    const auto first = m_scratch.begin() + static_cast<std::ptrdiff_t>(output.size() * static_cast<std::size_t>(m_rank));
    std::copy(first, first + static_cast<std::ptrdiff_t>(output.size()), output.begin());
    if (op == ReduceOp::Mean)
        for (float& value : output) value /= static_cast<float>(m_size);
    const std::int64_t moved = m_size > 1 ? bytesOf(input.size()) * 2 * (m_size - 1) / m_size : 0;
    timing.bytesSent = moved;
    timing.bytesReceived = moved;
    return completed(timing);
}

Work GlooCommunicator::send(std::span<const float> buffer, int peer) {
    checkPeer("send", peer);
    CollectiveTiming timing;
    timing.startNs = nowNs();
    // The count goes first, so the receiver can take a message of any length.
    std::uint64_t count = buffer.size();
    const std::uint64_t slot = kPointToPointSlots | (m_sentTo[static_cast<std::size_t>(peer)]++ << 1U);
    guarded("send to rank " + rankName(peer), [&] {
        auto header = m_context->createUnboundBuffer(&count, sizeof count);
        header->send(peer, slot);
        if (!header->waitSend(m_timeout)) throw gloo::IoException("timed out sending to rank " + std::to_string(peer));
        if (count == 0) return;
        // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): Gloo only reads a buffer it sends
        auto data = m_context->createUnboundBuffer(const_cast<float*>(buffer.data()), buffer.size_bytes());
        data->send(peer, slot | 1U);
        if (!data->waitSend(m_timeout)) throw gloo::IoException("timed out sending to rank " + std::to_string(peer));
    });
    timing.bytesSent = bytesOf(buffer.size());
    return completed(timing);
}

Work GlooCommunicator::recv(std::span<float> buffer, int peer) {
    checkPeer("recv", peer);
    CollectiveTiming timing;
    timing.startNs = nowNs();
    std::uint64_t count = 0;
    const std::uint64_t slot = kPointToPointSlots | (m_receivedOf[static_cast<std::size_t>(peer)]++ << 1U);
    guarded("recv from rank " + rankName(peer), [&] {
        auto header = m_context->createUnboundBuffer(&count, sizeof count);
        header->recv(peer, slot);
        if (!header->waitRecv(m_timeout)) throw gloo::IoException("timed out receiving from rank " + std::to_string(peer));
        if (count == 0) return;
        // A longer message than the buffer is taken whole, and its first buffer.size() values kept.
        float* target = buffer.data();
        if (count > buffer.size()) {
            m_scratch.resize(count);
            target = m_scratch.data();
        }
        auto data = m_context->createUnboundBuffer(target, count * sizeof(float));
        data->recv(peer, slot | 1U);
        if (!data->waitRecv(m_timeout)) throw gloo::IoException("timed out receiving from rank " + std::to_string(peer));
        if (target != buffer.data()) std::copy_n(m_scratch.begin(), buffer.size(), buffer.begin());
    });
    timing.bytesReceived = bytesOf(std::min<std::size_t>(count, buffer.size()));
    return completed(timing);
}

Work GlooCommunicator::barrier() {
    CollectiveTiming timing;
    timing.startNs = nowNs();
    if (m_size > 1) {
        gloo::BarrierOptions options(m_context);
        options.setTag(nextTag());
        options.setTimeout(m_timeout);
        guarded("barrier", [&] { gloo::barrier(options); });
    }
    return completed(timing);
}

}  // namespace distlab::comm_detail
