#pragma once
// One rank's Communicator of an InProcessGroup (the group creates one per rank).
#include <cstdint>

#include "distlab/comm/in_process_group.hpp"

namespace distlab::comm_detail {

class InProcessCommunicator final : public Communicator {
public:
    InProcessCommunicator(InProcessGroup& group, int rank) : m_group(group), m_rank(rank) {}
    using Communicator::allReduce;

    int rank() const override { return m_rank; }
    int size() const override { return m_group.size(); }
    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override;
    Work reduce(std::span<float> buffer, int root, ReduceOp op) override;
    Work broadcast(std::span<float> buffer, int root) override;
    Work allGather(std::span<const float> input, std::span<float> output) override;
    Work reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) override;
    Work send(std::span<const float> buffer, int peer) override;
    Work recv(std::span<float> buffer, int peer) override;
    Work barrier() override;
    void setTrace(CollectiveTrace* trace) override { m_trace = trace; }

private:
    InProcessGroup& m_group;
    int m_rank;
    CollectiveTrace* m_trace = nullptr;
    std::int64_t m_sequence = 0;         ///< collectives called so far (equal on every rank: calls are collective)
    std::uint32_t m_companionCalls = 0;  ///< picks the slot parity of the next companion
};

}  // namespace distlab::comm_detail
