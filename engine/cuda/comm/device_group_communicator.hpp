#pragma once
// What the GPU groups' communicators (logical GPUs of one GPU, NCCL between GPUs) share: a rank of
// a group of `size` ranks that all-reduces and broadcasts on the devices (each subclass's own
// path), checks the all-reduce's options the same way, meets the others at the group's spin
// barrier, and refuses the calls no GPU strategy makes yet, naming the group.
#include <stdexcept>
#include <string>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/spin_barrier.hpp"

namespace distlab {

class DeviceGroupCommunicator : public Communicator {
public:
    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    Work barrier() override {
        CollectiveTiming timing;
        timing.startNs = nowNs();
        timing.waitNs = m_barrier.arriveAndWait();
        timing.endNs = nowNs();
        return timing;
    }
    Work reduce(std::span<float>, int, ReduceOp) override { throw notYet("reduce"); }
    Work allGather(std::span<const float>, std::span<float>) override { throw notYet("allGather"); }
    Work reduceScatter(std::span<const float>, std::span<float>, ReduceOp) override { throw notYet("reduceScatter"); }
    Work send(std::span<const float>, int) override { throw notYet("send"); }
    Work recv(std::span<float>, int) override { throw notYet("recv"); }
    void setTrace(CollectiveTrace*) override {}

protected:
    /// `between` names the ranks in messages ("logical GPUs", "NCCL ranks").
    DeviceGroupCommunicator(int rank, int size, SpinBarrier& barrier, const char* between)
        : m_rank(rank), m_size(size), m_barrier(barrier), m_between(between) {}
    /// SUM and MEAN without companion values: what the device all-reduces compute so far.
    void checkAllReduce(const AllReduceOptions& options) const {
        if (options.op != ReduceOp::Sum && options.op != ReduceOp::Mean)
            throw std::invalid_argument(std::string("allReduce: ") + m_between + " reduce with SUM and MEAN only so far");
        if (!options.companion.empty())
            throw std::invalid_argument(std::string("allReduce: ") + m_between + " take no companion values yet");
    }

private:
    std::invalid_argument notYet(const char* call) const {
        return std::invalid_argument(std::string(call) + ": not available between " + m_between + " yet");
    }

    int m_rank;
    int m_size;
    SpinBarrier& m_barrier;
    const char* m_between;
};

}  // namespace distlab
