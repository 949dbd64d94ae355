#include "distribute/gpu_step_graph.hpp"

#include <exception>

#include "cuda_math.h"
#include "distlab/core/error.hpp"

namespace distlab {

GpuStepGraph::~GpuStepGraph() { distlabCudaDestroyGraph(m_graph); }

std::string GpuStepGraph::capture(const std::function<void()>& queue, const std::vector<std::int64_t>& rows) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabCudaBeginCapture(m_device, message) != 0) return message;
    try {
        queue();
    } catch (const std::exception& error) {
        // A call refused under capture (it would allocate or synchronise): the capture is
        // invalidated; end it so the stream runs the step eagerly instead.
        distlabCudaAbortCapture(m_device);
        return error.what();
    }
    DistlabCudaGraph* graph = nullptr;
    if (distlabCudaEndCapture(m_device, &graph, message) != 0) {
        distlabCudaAbortCapture(m_device);
        return message;
    }
    distlabCudaDestroyGraph(m_graph);
    m_graph = graph;
    m_rows = rows;
    return {};
}

void GpuStepGraph::launch() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabCudaLaunch(m_device, m_graph, message) != 0) throw TrainingError(message);
}

}  // namespace distlab
