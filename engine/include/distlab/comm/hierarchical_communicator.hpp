#pragma once
// The communicator of one replica of a multi-worker run: its worker's replicas are threads of one
// process (an in-process group), the workers are processes (a Gloo group of one rank per worker).
// An all-reduce goes as TensorFlow's MultiWorkerMirroredStrategy takes it: summed among the local
// replicas, across the workers by each worker's lead replica (local rank 0), and broadcast back.
// Global rank = worker * localSize + localRank, so batch shards and lanes follow the workers.
#include <vector>

#include "distlab/comm/communicator.hpp"

namespace distlab {

class HierarchicalCommunicator final : public Communicator {
public:
    /// `local`: this replica's communicator among its worker's replicas. `workers`: the group of
    /// one rank per worker (rank = worker index); only the lead (local rank 0) calls it, but every
    /// replica holds it for its rank and size. Both must outlive this communicator.
    HierarchicalCommunicator(Communicator& local, Communicator& workers);
    using Communicator::allReduce;
    using Communicator::broadcast;

    int rank() const override { return m_workers.rank() * m_local.size() + m_local.rank(); }
    int size() const override { return m_workers.size() * m_local.size(); }
    /// Local sum (with the companion), the leads' sum across workers, the local broadcast; Mean
    /// divides the whole sum once by size().
    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override;
    /// An all-reduce of a copy; root keeps the result, the others' buffers are left as they were.
    Work reduce(std::span<float> buffer, int root, ReduceOp op) override;
    /// Within root's worker, then across the leads, then within every other worker.
    Work broadcast(std::span<float> buffer, int root) override;
    /// The worker's inputs gathered locally, the leads' blocks gathered across, broadcast locally.
    Work allGather(std::span<const float> input, std::span<float> output) override;
    /// An all-reduce of a copy, keeping block rank().
    Work reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
    /// Between replicas of one worker only: replicas of different workers reach each other through
    /// collectives (throws std::invalid_argument naming both).
    Work send(std::span<const float> buffer, int peer) override;
    Work recv(std::span<float> buffer, int peer) override;
    Work barrier() override;
    /// Traces the in-process hops (Gloo's own are not observable).
    void setTrace(CollectiveTrace* trace) override { m_local.setTrace(trace); }

private:
    bool lead() const { return m_local.rank() == 0; }
    int localPeer(const char* what, int peer) const;

    Communicator& m_local;
    Communicator& m_workers;
    std::vector<float> m_scratch;  ///< reduce, reduceScatter and allGather work on a copy
};

}  // namespace distlab
