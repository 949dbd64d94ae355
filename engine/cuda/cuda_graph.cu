// CUDA graphs (a whole step recorded once, replayed with one launch) and the timing events that
// measure a step's phases on a device's stream, replayed or not.
#include "cuda_device.cuh"

#include <vector>

using namespace distlab_cuda;

struct DistlabCudaTimer {
    DistlabCudaDevice* device = nullptr;
    std::vector<cudaEvent_t> events;
};

extern "C" {

int distlabCudaBeginCapture(DistlabCudaDevice* device, char* message) {
    return check(cudaStreamBeginCapture(device->stream, cudaStreamCaptureModeThreadLocal), message, device, "begin graph capture");
}

int distlabCudaEndCapture(DistlabCudaDevice* device, DistlabCudaGraph** graph, char* message) {
    *graph = nullptr;
    auto* captured = new DistlabCudaGraph;
    int code = check(cudaStreamEndCapture(device->stream, &captured->graph), message, device, "end graph capture");
    if (code == 0) code = check(cudaGraphInstantiate(&captured->exec, captured->graph, 0), message, device, "instantiate graph");
    if (code != 0) {
        distlabCudaDestroyGraph(captured);
        return code;
    }
    *graph = captured;
    return 0;
}

int distlabCudaLaunch(DistlabCudaDevice* device, const DistlabCudaGraph* graph, char* message) {
    return check(cudaGraphLaunch(graph->exec, device->stream), message, device, "launch graph");
}

void distlabCudaDestroyGraph(DistlabCudaGraph* graph) {
    if (graph == nullptr) return;
    if (graph->exec != nullptr) cudaGraphExecDestroy(graph->exec);
    if (graph->graph != nullptr) cudaGraphDestroy(graph->graph);
    delete graph;
}

int distlabCudaAbortCapture(DistlabCudaDevice* device) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(device->stream, &status) != cudaSuccess || status == cudaStreamCaptureStatusNone) return 0;
    cudaGraph_t partial = nullptr;
    const cudaError_t error = cudaStreamEndCapture(device->stream, &partial);
    if (partial != nullptr) cudaGraphDestroy(partial);
    cudaGetLastError();  // an invalidated capture's error belongs to the capture, not to later work
    return static_cast<int>(error);
}

int distlabCudaTimerCreate(DistlabCudaDevice* device, int points, DistlabCudaTimer** timer, char* message) {
    *timer = nullptr;
    if (points <= 0) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "timer", "no points");
    auto* created = new DistlabCudaTimer{device, std::vector<cudaEvent_t>(static_cast<std::size_t>(points), nullptr)};
    for (cudaEvent_t& event : created->events) {
        // Timing events (no cudaEventDisableTiming): the phases are differences between them.
        const int code = check(cudaEventCreate(&event), message, device, "cannot create a timing event");
        if (code != 0) {
            distlabCudaTimerDestroy(created);
            return code;
        }
    }
    *timer = created;
    return 0;
}

void distlabCudaTimerDestroy(DistlabCudaTimer* timer) {
    if (timer == nullptr) return;
    for (cudaEvent_t event : timer->events)
        if (event != nullptr) cudaEventDestroy(event);
    delete timer;
}

int distlabCudaTimerMark(DistlabCudaTimer* timer, int point, char* message) {
    DistlabCudaDevice* device = timer->device;
    if (point < 0 || point >= static_cast<int>(timer->events.size()))
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "timer", "no such point");
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    int code = check(cudaStreamIsCapturing(device->stream, &status), message, device, "timer");
    if (code != 0) return code;
    // In a capture a plain record only orders streams; an external record becomes a node of the
    // graph that records the event on every launch, so a replayed step is timed as an eager one.
    const unsigned flags = status == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : cudaEventRecordDefault;
    return check(cudaEventRecordWithFlags(timer->events[static_cast<std::size_t>(point)], device->stream, flags), message, device,
                 "timer mark");
}

int distlabCudaTimerElapsed(DistlabCudaTimer* timer, float* milliseconds, int points, char* message) {
    DistlabCudaDevice* device = timer->device;
    if (points > static_cast<int>(timer->events.size()))
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "timer", "more points asked for than marked");
    for (int p = 0; p < points; ++p) {
        const int code = check(cudaEventElapsedTime(&milliseconds[p], timer->events[0], timer->events[static_cast<std::size_t>(p)]),
                               message, device, "timer elapsed");
        if (code != 0) return code;
    }
    return 0;
}

}  // extern "C"
