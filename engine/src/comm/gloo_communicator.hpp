#pragma once
// One rank's Communicator over a Gloo context (TCP pairs to every peer). Gloo's algorithms block
// until this rank's part is done, so every Work it returns is already done.
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/context.h>
#include <gloo/transport/buffer.h>

#include "distlab/comm/communicator.hpp"

namespace distlab::comm_detail {

/// Up to this many bytes an all-reduce among more than 2 ranks goes by direct exchange.
inline constexpr std::int64_t kExchangeBytes = std::int64_t{64} * 1024;

/// How a communicator's messages name its ranks: as themselves, or (a link of GlooLinks) as the
/// ranks of the larger group its two ranks belong to.
struct GlooRankNames {
    std::vector<int> groupRanks;  ///< the group rank of each of this context's ranks; empty: the same
    int groupSize = 0;            ///< the group's size; 0: this context's
};

class GlooCommunicator final : public Communicator {
public:
    /// `alwaysRing`: every all-reduce by Gloo's ring, never by the direct exchange (exchanges()).
    GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context, std::chrono::milliseconds timeout, bool alwaysRing = false,
                     GlooRankNames names = {});
    using Communicator::allReduce;
    using Communicator::broadcast;

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override;
    Work reduce(std::span<float> buffer, int root, ReduceOp op) override;
    Work broadcast(std::span<float> buffer, int root) override;
    Work allGather(std::span<const float> input, std::span<float> output) override;
    Work reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
    Work send(std::span<const float> buffer, int peer) override;
    Work recv(std::span<float> buffer, int peer) override;
    Work barrier() override;
    /// Gloo runs each algorithm inside the library, where its steps cannot be watched: a trace
    /// attached here records nothing (the in-process hops of a multi-worker run are traced).
    void setTrace(CollectiveTrace*) override {}

private:
    /// Runs one Gloo call, turning Gloo's errors (a peer that closed its connection, a timeout)
    /// into TrainingError naming the call, this rank and the cause.
    template <typename Call>
    void guarded(const std::string& what, Call call);
    /// The reduction of in-place floats with `op`'s function (Mean sums; the caller divides): the
    /// direct exchange where exchanges() says so, else Gloo's ring.
    void allReduceInPlace(std::span<float> values, ReduceOp op);
    /// Whether an all-reduce of `elements` goes by direct exchange (never when m_alwaysRing): with 2 ranks always (it moves
    /// what the ring moves, in one message each way instead of the ring's steps and notifications,
    /// which made a small model's step a dozen socket round trips), with more up to
    /// kExchangeBytes, where latency rules and (n - 1) copies of the buffer cost little.
    bool exchanges(std::size_t elements) const;
    /// Bytes this rank sends (and receives) in an all-reduce of `elements`.
    std::int64_t allReduceBytes(std::size_t elements) const;
    /// Every rank sends its values to every other and sums all of them in rank order.
    void exchangeAllReduce(std::span<float> values, ReduceOp op);
    /// exchangeAllReduce's sum between 2 ranks: the values go out from the buffer itself, the
    /// peer's arrive in one of m_pairBlocks and are added in place (no copy of either).
    void pairSum(std::span<float> values);
    /// Registers pairSum's two receive blocks for `count` values in fresh slots.
    void growPairBlocks(std::size_t count);
    /// `timing` ended now, with its network part: the whole call where there are peers.
    CollectiveTiming completed(CollectiveTiming timing) const;
    std::uint32_t nextTag() { return m_tag++; }
    void checkPeer(const char* what, int peer) const;
    /// The number messages give this context's `rank`, and the group's size (GlooRankNames).
    std::string rankName(int rank) const;
    std::string groupSizeName() const;

    std::shared_ptr<gloo::rendezvous::Context> m_context;
    std::chrono::milliseconds m_timeout;
    int m_rank;
    int m_size;
    bool m_alwaysRing;
    GlooRankNames m_names;
    std::uint32_t m_tag = 0;                                                 ///< every collective its own tag: calls never match across
    std::vector<std::uint64_t> m_sentTo;                                     ///< point-to-point messages sent to each peer
    std::vector<std::uint64_t> m_receivedOf;                                 ///< and received from each
    std::vector<float> m_scratch;                                            ///< reduce and reduceScatter work on a copy
    std::vector<float> m_joined;                                             ///< a buffer and its companion, reduced in one ring
    std::vector<float> m_exchange;                                           ///< the direct exchange's blocks, one per rank
    std::array<std::vector<float>, 2> m_pairBlocks;                          ///< pairSum's receive blocks, taken in turn
    std::array<std::unique_ptr<gloo::transport::Buffer>, 2> m_pairReceives;  ///< registered with the pair
    int m_pairSlot = 0;
    unsigned m_pairParity = 0;
};

}  // namespace distlab::comm_detail
