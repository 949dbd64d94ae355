// What every CUDA source of the bridge shares: one logical GPU's state (DistlabCudaDevice: its
// stream, cuBLAS handle, caching allocator, scratch) and the helpers that turn CUDA and cuBLAS
// failures into the bridge's messages naming gpu:K. Included only by engine/cuda/*.cu.
#pragma once

#include "cuda_math.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <map>
#include <unordered_map>

struct DistlabCudaGraph {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
};

struct DistlabCudaDevice {
    int logical = 0;
    int physical = 0;
    cudaStream_t stream = nullptr;
    cublasHandle_t blas = nullptr;
    void* blasWorkspace = nullptr;  // given to cuBLAS up front, so a captured product allocates nothing
    cudaEvent_t ringEvents[2] = {nullptr, nullptr};  // a ring step's completion, by the step's parity
    // Partial sums of distlabCudaSumSquares, allocated when the device opens so a captured step
    // allocates nothing (DISTLAB_CUDA_SUM_BLOCKS doubles).
    double* sumScratch = nullptr;
    unsigned long long limit = 0;
    unsigned long long live = 0;
    unsigned long long peak = 0;
    unsigned long long cached = 0;
    std::multimap<unsigned long long, void*> cache;            // free blocks by size
    std::unordered_map<void*, unsigned long long> blockSizes;  // every block this device holds
};

namespace distlab_cuda {

constexpr int kThreads = 256;
/// Blocks of the first pass of a sum of squares: a fixed count, so the partial sums and the order
/// they are added in do not depend on the GPU (the same bits on every GPU and every launch).
constexpr int kSumBlocks = 128;

inline int fail(char* message, const DistlabCudaDevice* device, int code, const char* what, const char* cause) {
    if (message != nullptr)
        std::snprintf(message, DISTLAB_CUDA_MESSAGE_SIZE, "gpu:%d: %s: %s", device != nullptr ? device->logical : -1, what,
                      cause);
    return code;
}

inline int check(cudaError_t error, char* message, const DistlabCudaDevice* device, const char* what) {
    if (error == cudaSuccess) return 0;
    return fail(message, device, static_cast<int>(error), what, cudaGetErrorString(error));
}

inline int checkBlas(cublasStatus_t status, char* message, const DistlabCudaDevice* device, const char* what) {
    if (status == CUBLAS_STATUS_SUCCESS) return 0;
    return fail(message, device, DISTLAB_CUDA_CUBLAS_FAILED, what, cublasGetStatusString(status));
}

inline int blocksFor(long long count) { return static_cast<int>((count + kThreads - 1) / kThreads); }

}  // namespace distlab_cuda
