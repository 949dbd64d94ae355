#pragma once
// One device's step recorded once in a CUDA graph and replayed: the work a callback queues on the
// device's stream is captured (not run), then every launch runs all of it with one call, so a small
// model's step is not bound by kernel-launch overhead. The graph reads and writes the same device
// addresses on every launch, so the caller uploads each step's inputs and scalars into its fixed
// buffers before launching, and allocates nothing while capturing. Built only with CUDA.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct DistlabCudaDevice;  // engine/cuda/cuda_math.h
struct DistlabCudaGraph;

namespace distlab {

class GpuStepGraph {
public:
    explicit GpuStepGraph(DistlabCudaDevice* device) : m_device(device) {}
    ~GpuStepGraph();
    GpuStepGraph(const GpuStepGraph&) = delete;
    GpuStepGraph& operator=(const GpuStepGraph&) = delete;

    bool ready() const { return m_graph != nullptr; }
    /// Whether a step whose micro-batches have `rows` rows may replay the graph (its kernels were
    /// recorded with the captured rows).
    bool matches(const std::vector<std::int64_t>& rows) const { return ready() && rows == m_rows; }
    /// Records what `queue` puts on the stream for micro-batches of `rows` rows. On failure (a
    /// queued call refused under capture, or instantiation failed) returns the bridge's message,
    /// which names the device, and leaves the stream eager with nothing recorded; "" on success.
    std::string capture(const std::function<void()>& queue, const std::vector<std::int64_t>& rows);
    /// Launches the recorded step on the stream (queued). Throws TrainingError naming the device.
    void launch();

private:
    DistlabCudaDevice* m_device;
    DistlabCudaGraph* m_graph = nullptr;
    std::vector<std::int64_t> m_rows;
};

}  // namespace distlab
