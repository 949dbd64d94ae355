#pragma once
// Ranks that are logical GPUs on distinct physical GPUs, reduced by NCCL (engine/cuda/nccl_bridge.h):
// one communicator per GPU, created together. Two ways to drive it: one thread queues every rank's
// call at once (allReduceAll: NCCL's grouped calls, what GpuTrainer does, since it queues every
// replica's work from one thread), or a thread per GPU calls its own rank's Communicator. Every
// wait polls NCCL's asynchronous errors and gives up after a timeout, aborting the communicators,
// so a lost peer stops the run with a TrainingError naming the device instead of hanging it.
// Part of the CUDA backend module (engine/cuda/); without NCCL the constructor throws saying NCCL is
// not built in.
#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/comm/spin_barrier.hpp"

struct DistlabCudaDevice;  // engine/cuda/cuda_math.h
struct DistlabNcclGroup;   // engine/cuda/nccl_bridge.h

namespace distlab {

/// How long a wait for NCCL may take before the communicators are aborted: far past any step of a
/// model this app trains, short enough that a dead peer does not leave the app waiting for good.
inline constexpr std::chrono::milliseconds kNcclTimeout{120'000};

class NcclGroup {
public:
    /// One communicator per device, rank r on devices[r]. Throws TrainingError naming the device
    /// and NCCL's cause (or that NCCL is not built in).
    NcclGroup(std::span<DistlabCudaDevice* const> devices, std::chrono::milliseconds timeout = kNcclTimeout);
    ~NcclGroup();
    NcclGroup(const NcclGroup&) = delete;
    NcclGroup& operator=(const NcclGroup&) = delete;

    int size() const { return static_cast<int>(m_devices.size()); }
    /// From one thread: a SUM all-reduce of `count` floats in every rank's buffer (buffers[r] on
    /// rank r's GPU), queued on each rank's stream as one grouped call.
    void allReduceAll(std::span<float* const> buffers, std::int64_t count);
    /// Blocks until every rank's stream has passed its last NCCL call. Throws TrainingError naming
    /// the device on an NCCL error or after the timeout (the communicators are then aborted).
    void waitAll();
    /// Rank `rank`'s communicator, for a thread per GPU (allReduce with SUM or MEAN, broadcast, barrier).
    Communicator& communicator(int rank) { return *m_communicators[static_cast<std::size_t>(rank)]; }

    // Used by the communicators.
    DistlabNcclGroup* handle() const { return m_group; }
    DistlabCudaDevice* device(int rank) const { return m_devices[static_cast<std::size_t>(rank)]; }
    std::chrono::milliseconds timeout() const { return m_timeout; }
    SpinBarrier& barrier() { return m_barrier; }

private:
    std::vector<DistlabCudaDevice*> m_devices;
    DistlabNcclGroup* m_group = nullptr;
    std::chrono::milliseconds m_timeout;
    SpinBarrier m_barrier;
    std::vector<std::unique_ptr<Communicator>> m_communicators;
};

}  // namespace distlab
