#include "comm/nccl_group.hpp"

#include <numeric>
#include <stdexcept>
#include <string>

#include "comm/device_group_communicator.hpp"
#include "cuda_math.h"
#include "distlab/core/error.hpp"
#include "nccl_bridge.h"

namespace distlab {
namespace {

[[noreturn]] void throwNccl(const char* message) { throw TrainingError(message); }

/// A rank's call in flight: done when its stream has passed the call; waiting polls NCCL's errors
/// and gives up after the group's timeout.
class NcclWork final : public WorkState {
public:
    NcclWork(NcclGroup& group, int rank, CollectiveTiming timing) : m_group(group), m_rank(rank), m_timing(timing) {}
    bool done() override {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        const int state = distlabNcclPoll(m_group.handle(), m_rank, message);
        if (state < 0) throwNccl(message);
        return state == 1;
    }
    CollectiveTiming wait() override {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabNcclWait(m_group.handle(), m_rank, m_group.timeout().count(), message) != 0) throwNccl(message);
        m_timing.endNs = nowNs();
        return m_timing;
    }

private:
    NcclGroup& m_group;
    int m_rank;
    CollectiveTiming m_timing;
};

class NcclCommunicator final : public DeviceGroupCommunicator {
public:
    NcclCommunicator(NcclGroup& group, int rank)
        : DeviceGroupCommunicator(rank, group.size(), group.barrier(), "NCCL ranks"), m_group(group), m_rank(rank) {}

    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override {
        checkAllReduce(options);
        CollectiveTiming timing;
        timing.startNs = nowNs();
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        float* data = buffer.data();
        if (distlabCudaMakeCurrent(m_group.device(m_rank), message) != 0 ||
            distlabNcclAllReduce(m_group.handle(), &m_rank, &data, 1, static_cast<long long>(buffer.size()),
                                 options.op == ReduceOp::Mean ? 1 : 0, message) != 0)
            throwNccl(message);
        const auto n = static_cast<std::int64_t>(size());
        timing.bytesSent = timing.bytesReceived = n > 1 ? 2 * (n - 1) * static_cast<std::int64_t>(buffer.size_bytes()) / n : 0;
        return Work(std::make_unique<NcclWork>(m_group, m_rank, timing));
    }
    Work broadcast(std::span<float> buffer, int root) override {
        if (root < 0 || root >= size()) throw std::invalid_argument("broadcast: root " + std::to_string(root) + " is not a rank");
        CollectiveTiming timing;
        timing.startNs = nowNs();
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        float* data = buffer.data();
        if (distlabCudaMakeCurrent(m_group.device(m_rank), message) != 0 ||
            distlabNcclBroadcast(m_group.handle(), &m_rank, &data, 1, static_cast<long long>(buffer.size()), root, message) != 0)
            throwNccl(message);
        if (m_rank == root)
            timing.bytesSent = static_cast<std::int64_t>(buffer.size_bytes()) * (size() - 1);
        else
            timing.bytesReceived = static_cast<std::int64_t>(buffer.size_bytes());
        return Work(std::make_unique<NcclWork>(m_group, m_rank, timing));
    }

private:
    NcclGroup& m_group;
    int m_rank;
};

}  // namespace

NcclGroup::NcclGroup(std::span<DistlabCudaDevice* const> devices, std::chrono::milliseconds timeout)
    : m_devices(devices.begin(), devices.end()), m_timeout(timeout), m_barrier(static_cast<int>(devices.size())) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabNcclOpen(m_devices.data(), size(), &m_group, message) != 0) throwNccl(message);
    for (int rank = 0; rank < size(); ++rank) m_communicators.push_back(std::make_unique<NcclCommunicator>(*this, rank));
}

NcclGroup::~NcclGroup() {
    m_communicators.clear();
    distlabNcclClose(m_group);
}

void NcclGroup::allReduceAll(std::span<float* const> buffers, std::int64_t count) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    std::vector<int> ranks(m_devices.size());
    std::iota(ranks.begin(), ranks.end(), 0);
    if (distlabNcclAllReduce(m_group, ranks.data(), buffers.data(), size(), static_cast<long long>(count), 0, message) != 0)
        throwNccl(message);
}

void NcclGroup::waitAll() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    for (int rank = 0; rank < size(); ++rank)
        if (distlabNcclWait(m_group, rank, m_timeout.count(), message) != 0) throwNccl(message);
}

}  // namespace distlab
