#pragma once
// A group whose ranks talk point to point only (a parameter-server run's tasks), with one Gloo
// context of two ranks per pair of ranks, so that each link fails alone.
//
// Why not one context of every rank: Gloo ends every pair of a context when any wait in it times
// out ("Application timeout caused pair closure"), and a send already queued on a pair whose peer
// then dies is released only by that timeout (the TCP pair hands its error to the operations still
// waiting for the peer, not to those queued for writing). In one context, a worker killed at that
// moment ended the chief's and the servers' links to every task; here it ends the links to that
// worker only, within timeout_seconds, and the run goes on without it.
#include <memory>
#include <vector>

#include "comm/gloo_communicator.hpp"

namespace distlab::comm_detail {

class GlooLinks final : public Communicator {
public:
    /// `links[peer]` carries this rank's messages to `peer` (null at `rank`): a context of two
    /// ranks, the lower group rank its rank 0.
    GlooLinks(int rank, std::vector<std::unique_ptr<GlooCommunicator>> links);

    int rank() const override { return m_rank; }
    int size() const override { return static_cast<int>(m_links.size()); }
    Work send(std::span<const float> buffer, int peer) override;
    Work recv(std::span<float> buffer, int peer) override;
    /// The collectives need one context of every rank: a group of links refuses them
    /// (std::logic_error). Its users (parameter_server_tasks.cpp, the cluster trainer) send and
    /// receive only.
    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override;
    Work reduce(std::span<float> buffer, int root, ReduceOp op) override;
    Work broadcast(std::span<float> buffer, int root) override;
    Work allGather(std::span<const float> input, std::span<float> output) override;
    Work reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
    Work barrier() override;
    void setTrace(CollectiveTrace*) override {}

private:
    /// The link to `peer`, and `peer`'s rank in it; std::invalid_argument for this rank or none.
    GlooCommunicator& link(const char* what, int peer) const;
    static int linkRank(int rank, int peer) { return rank < peer ? 0 : 1; }

    int m_rank;
    std::vector<std::unique_ptr<GlooCommunicator>> m_links;
};

}  // namespace distlab::comm_detail
