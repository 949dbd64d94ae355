#pragma once
// One rank's Communicator over a Gloo context (TCP pairs to every peer). Gloo's algorithms block
// until this rank's part is done, so every Work it returns is already done.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/context.h>

#include "distlab/comm/communicator.hpp"

namespace distlab::comm_detail {

class GlooCommunicator final : public Communicator {
public:
    GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context, std::chrono::milliseconds timeout);
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
    void guarded(const char* what, Call call);
    /// Gloo's reduction of in-place floats, allreduce with `op`'s function (Mean sums; the caller divides).
    void allReduceInPlace(std::span<float> values, ReduceOp op);
    std::uint32_t nextTag() { return m_tag++; }
    void checkPeer(const char* what, int peer) const;

    std::shared_ptr<gloo::rendezvous::Context> m_context;
    std::chrono::milliseconds m_timeout;
    int m_rank;
    int m_size;
    std::uint32_t m_tag = 0;                  ///< every collective its own tag: calls never match across
    std::vector<std::uint64_t> m_sentTo;      ///< point-to-point messages sent to each peer
    std::vector<std::uint64_t> m_receivedOf;  ///< and received from each
    std::vector<float> m_scratch;             ///< reduce and reduceScatter work on a copy
    std::vector<float> m_joined;              ///< a buffer and its companion, reduced in one ring
};

}  // namespace distlab::comm_detail
