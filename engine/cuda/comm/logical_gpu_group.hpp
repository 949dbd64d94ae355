#pragma once
// Ranks that are logical GPUs of one physical GPU, each rank a thread with its own stream (NCCL
// refuses two ranks on one GPU, so they reduce over device memory as the CPU ranks of
// InProcessGroup do over host memory). Buffers given to the communicators are device memory of the
// rank's logical GPU. Calls return as soon as the work is queued; their Work is done when the rank's
// stream has reached the end of it. Part of the CUDA backend module (engine/cuda/).
#include <memory>
#include <span>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/device/gpu_plan.hpp"

struct DistlabCudaDevice;  // engine/cuda/cuda_math.h

namespace distlab {

class LogicalGpuGroup {
public:
    /// `size` logical GPUs gpu:0 .. gpu:size-1 on physical GPU `physical`, each with
    /// `limitBytes` of memory (0: no limit). Throws TrainingError with the CUDA bridge's message
    /// when one cannot be opened.
    LogicalGpuGroup(int size, int physical, unsigned long long limitBytes);
    /// One rank per placement: rank r is logical GPU placements[r].logical ("gpu:K" in messages) on
    /// its physical GPU with its limit (GpuPlan::replicas). The ring needs them on one physical GPU.
    explicit LogicalGpuGroup(std::span<const LogicalGpuPlacement> placements);
    ~LogicalGpuGroup();
    LogicalGpuGroup(const LogicalGpuGroup&) = delete;
    LogicalGpuGroup& operator=(const LogicalGpuGroup&) = delete;

    int size() const { return static_cast<int>(m_devices.size()); }
    /// Rank `rank`'s logical GPU (its stream and allocator), for the rank's own work.
    DistlabCudaDevice* device(int rank) const { return m_devices[static_cast<std::size_t>(rank)]; }
    Communicator& communicator(int rank) { return *m_communicators[static_cast<std::size_t>(rank)]; }

    // Used by the communicators, on their ranks' threads.
    SpinBarrier& barrier() { return m_barrier; }
    void publish(int rank, float* buffer) { m_buffers[static_cast<std::size_t>(rank)] = buffer; }
    DistlabCudaDevice* const* devices() const { return m_devices.data(); }
    float* const* buffers() const { return m_buffers.data(); }

private:
    std::vector<DistlabCudaDevice*> m_devices;
    std::vector<float*> m_buffers;
    SpinBarrier m_barrier;
    std::vector<std::unique_ptr<Communicator>> m_communicators;
};

}  // namespace distlab
