#include "comm/logical_gpu_group.hpp"

#include <stdexcept>
#include <string>

#include "comm/device_group_communicator.hpp"
#include "cuda_math.h"
#include "distlab/core/error.hpp"

namespace distlab {
namespace {

[[noreturn]] void throwCuda(const char* message) { throw TrainingError(message); }

/// A call in flight: done when the rank's stream has passed the event recorded after its work.
class StreamWork final : public WorkState {
public:
    StreamWork(DistlabCudaEvent* event, CollectiveTiming timing) : m_event(event), m_timing(timing) {}
    ~StreamWork() override { distlabCudaEventDestroy(m_event); }
    bool done() override {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        const int state = distlabCudaEventDone(m_event, message);
        if (state < 0) throwCuda(message);
        return state == 1;
    }
    CollectiveTiming wait() override {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaEventWait(m_event, message) != 0) throwCuda(message);
        m_timing.endNs = nowNs();
        return m_timing;
    }

private:
    DistlabCudaEvent* m_event;
    CollectiveTiming m_timing;
};

class LogicalGpuCommunicator final : public DeviceGroupCommunicator {
public:
    LogicalGpuCommunicator(LogicalGpuGroup& group, int rank)
        : DeviceGroupCommunicator(rank, group.size(), group.barrier(), "logical GPUs"), m_group(group), m_rank(rank) {}

    Work allReduce(std::span<float> buffer, const AllReduceOptions& options) override {
        checkAllReduce(options);
        CollectiveTiming timing;
        timing.startNs = nowNs();
        // Every rank publishes its buffer; one thread queues the whole ring on every rank's
        // stream (its steps ordered by events); the others wait until it has, then mark their
        // own stream's end of it.
        m_group.publish(m_rank, buffer.data());
        timing.waitNs += m_group.barrier().arriveAndWait();
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        int code = 0;
        if (m_rank == 0)
            code = distlabCudaRingAllReduce(m_group.devices(), m_group.buffers(), size(), static_cast<long long>(buffer.size()),
                                            options.op == ReduceOp::Mean ? 1 : 0, message);
        timing.waitNs += m_group.barrier().arriveAndWait();
        if (code != 0) throwCuda(message);
        const auto n = static_cast<std::int64_t>(size());
        timing.bytesSent = timing.bytesReceived = n > 1 ? 2 * (n - 1) * static_cast<std::int64_t>(buffer.size_bytes()) / n : 0;
        return inFlight(timing);
    }
    Work broadcast(std::span<float> buffer, int root) override {
        if (root < 0 || root >= size()) throw std::invalid_argument("broadcast: root " + std::to_string(root) + " is not a rank");
        CollectiveTiming timing;
        timing.startNs = nowNs();
        m_group.publish(m_rank, buffer.data());
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        // The root marks when its buffer is ready; every other rank's stream waits for that, copies.
        DistlabCudaEvent* ready = nullptr;
        if (m_rank == root && distlabCudaRecord(m_group.device(root), &ready, message) != 0) throwCuda(message);
        if (m_rank == root) m_ready = ready;
        timing.waitNs += m_group.barrier().arriveAndWait();
        auto* rootSelf = static_cast<LogicalGpuCommunicator*>(&m_group.communicator(root));
        if (m_rank != root) {
            if (distlabCudaStreamWait(m_group.device(m_rank), rootSelf->m_ready, message) != 0 ||
                distlabCudaCopy(m_group.device(m_rank), buffer.data(), m_group.buffers()[root], buffer.size_bytes(), message) != 0)
                throwCuda(message);
            timing.bytesReceived = static_cast<std::int64_t>(buffer.size_bytes());
        } else {
            timing.bytesSent = static_cast<std::int64_t>(buffer.size_bytes()) * (size() - 1);
        }
        timing.waitNs += m_group.barrier().arriveAndWait();  // every wait is queued: the root's event may go
        if (m_rank == root) {
            distlabCudaEventDestroy(m_ready);
            m_ready = nullptr;
        }
        return inFlight(timing);
    }

private:
    Work inFlight(const CollectiveTiming& timing) {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        DistlabCudaEvent* event = nullptr;
        if (distlabCudaRecord(m_group.device(m_rank), &event, message) != 0) throwCuda(message);
        return Work(std::make_unique<StreamWork>(event, timing));
    }

    LogicalGpuGroup& m_group;
    int m_rank;
    DistlabCudaEvent* m_ready = nullptr;  ///< as broadcast's root: when the buffer is ready
};

}  // namespace

namespace {
std::vector<LogicalGpuPlacement> onePhysicalGpu(int size, int physical, unsigned long long limitBytes) {
    std::vector<LogicalGpuPlacement> placements;
    for (int rank = 0; rank < size; ++rank) placements.push_back({rank, physical, limitBytes});
    return placements;
}
}  // namespace

LogicalGpuGroup::LogicalGpuGroup(int size, int physical, unsigned long long limitBytes)
    : LogicalGpuGroup(onePhysicalGpu(size, physical, limitBytes)) {}

LogicalGpuGroup::LogicalGpuGroup(std::span<const LogicalGpuPlacement> placements)
    : m_devices(placements.size(), nullptr), m_buffers(placements.size(), nullptr), m_barrier(static_cast<int>(placements.size())) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    for (std::size_t rank = 0; rank < placements.size(); ++rank) {
        const LogicalGpuPlacement& place = placements[rank];
        if (distlabCudaOpen(place.logical, place.physical, place.memoryLimitBytes, &m_devices[rank], message) != 0) {
            for (DistlabCudaDevice* device : m_devices) distlabCudaClose(device);
            throwCuda(message);
        }
    }
    for (int rank = 0; rank < size(); ++rank) m_communicators.push_back(std::make_unique<LogicalGpuCommunicator>(*this, rank));
}

LogicalGpuGroup::~LogicalGpuGroup() {
    m_communicators.clear();
    for (DistlabCudaDevice* device : m_devices) distlabCudaClose(device);
}

}  // namespace distlab
