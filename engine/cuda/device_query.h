#ifndef DISTLAB_CUDA_DEVICE_QUERY_H
#define DISTLAB_CUDA_DEVICE_QUERY_H
/* A plain C bridge between the engine's C++20 sources and the CUDA sources (compiled as C++17
 * without Eigen), so neither side needs the other's headers. Only fixed-size fields cross it. */

#ifdef __cplusplus
extern "C" {
#endif

#define DISTLAB_CUDA_TEXT_SIZE 256

/* The state of the CUDA runtime, the driver and NCCL on this machine. */
typedef struct DistlabCudaStatus {
    int runtimeVersion;                       /* cudaRuntimeGetVersion, e.g. 13000 for 13.0 */
    int driverVersion;                        /* cudaDriverGetVersion; 0 when no driver is loaded */
    int deviceCount;                          /* cudaGetDeviceCount; 0 when it failed */
    int errorCode;                            /* cudaGetDeviceCount's cudaError_t; 0 on success */
    char errorName[DISTLAB_CUDA_TEXT_SIZE];   /* cudaGetErrorName, e.g. "cudaErrorInsufficientDriver" */
    char errorString[DISTLAB_CUDA_TEXT_SIZE]; /* cudaGetErrorString */
    int ncclBuiltIn;                          /* 1 when the CUDA sources were built with NCCL */
    int ncclVersion;                          /* ncclGetVersion code (works without a GPU); 0 when unknown */
} DistlabCudaStatus;

/* One GPU's properties. */
typedef struct DistlabGpuProperties {
    char name[DISTLAB_CUDA_TEXT_SIZE];
    unsigned long long totalMemoryBytes;
    int computeMajor;
    int computeMinor;
    int multiprocessors;
    int errorCode; /* cudaGetDeviceProperties' cudaError_t; 0 on success */
    char errorString[DISTLAB_CUDA_TEXT_SIZE];
} DistlabGpuProperties;

/* Fills *status (every field, also on failure). Blocks while the CUDA runtime initialises. */
void distlabCudaQueryStatus(DistlabCudaStatus* status);

/* Fills *properties for device `index`; returns 0 on success, else the cudaError_t. */
int distlabCudaQueryGpu(int index, DistlabGpuProperties* properties);

#ifdef __cplusplus
}
#endif

#endif /* DISTLAB_CUDA_DEVICE_QUERY_H */
