// One logical GPU for the tensor core: its stream, its cuBLAS handle, a caching allocator with a
// memory limit, and the dense layer's math (cuBLAS products, elementwise kernels that follow the
// CPU kernels of engine/src/model/dense_kernels.hpp formula for formula).
#include "cuda_device.cuh"

#include "comm/ring_schedule.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using namespace distlab_cuda;

namespace {

constexpr unsigned long long kGranule = 512;  // sizes round up to this, so blocks are reusable

double mebibytes(unsigned long long bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void dropCache(DistlabCudaDevice* device) {
    if (device->cache.empty()) return;
    cudaStreamSynchronize(device->stream);
    for (const auto& entry : device->cache) {
        cudaFree(entry.second);
        device->blockSizes.erase(entry.second);
    }
    device->cache.clear();
    device->cached = 0;
}

__device__ float activate(int activation, float z) {
    switch (activation) {
        case 1:
            return z > 0.0f ? z : 0.0f;
        case 2:
            return tanhf(z);
        case 3:
            return 1.0f / (1.0f + expf(-z));
        case 4:
            return 0.5f * z * (1.0f + erff(z * 0.70710678118654752f));
        default:
            return z;
    }
}

__device__ float activationGradient(int activation, float z, float y, float dy) {
    switch (activation) {
        case 1:
            return z > 0.0f ? dy : 0.0f;
        case 2:
            return dy * (1.0f - y * y);
        case 3:
            return dy * y * (1.0f - y);
        case 4: {
            const float cdf = 0.5f * (1.0f + erff(z * 0.70710678118654752f));
            const float pdf = 0.39894228040143268f * expf(-0.5f * z * z);
            return dy * (cdf + z * pdf);
        }
        default:
            return dy;
    }
}

__global__ void biasActivate(float* z, float* y, const float* b, long long rows, long long units, int activation) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= rows * units) return;
    const float value = z[i] + b[i % units];
    z[i] = value;
    y[i] = activate(activation, value);
}

__global__ void activationBackward(const float* z, const float* y, const float* dy, float* dz, long long count, int activation) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) dz[i] = activationGradient(activation, z[i], y[i], dy[i]);
}

// db[j] += sum over rows of dz[r, j], rows in order (deterministic, as the CPU's column sums).
__global__ void addColumnSums(const float* dz, float* db, long long rows, long long units) {
    const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= units) return;
    float sum = 0.0f;
    for (long long r = 0; r < rows; ++r) sum += dz[r * units + j];
    db[j] += sum;
}

__global__ void toHalf(int half, const float* source, unsigned short* destination, long long count) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    destination[i] = half == 1 ? __half_as_ushort(__float2half_rn(source[i])) : __bfloat16_as_ushort(__float2bfloat16_rn(source[i]));
}

__global__ void fromHalf(int half, const unsigned short* source, float* destination, long long count) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    destination[i] = half == 1 ? __half2float(__ushort_as_half(source[i])) : __bfloat162float(__ushort_as_bfloat16(source[i]));
}

__global__ void addInto(float* destination, const float* source, long long count) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) destination[i] += source[i];
}

__global__ void divideBy(float* values, float divisor, long long count) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) values[i] /= divisor;
}

using distlab::comm_detail::kRingSegmentElements;  // the CPU ring's schedule (comm/ring_schedule.hpp)
using distlab::comm_detail::ringChunkBegin;

// One thread per example (rows are short: the classes of a classifier).
__global__ void softmaxCrossEntropy(const float* logits, const int* labels, float* dlogits, float* rowLoss, int* rowCorrect, long long rows,
                                    long long classes, float scale) {
    const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = logits + r * classes;
    float* grad = dlogits + r * classes;
    long long best = 0;
    float maxValue = row[0];
    for (long long c = 1; c < classes; ++c)
        if (row[c] > maxValue) maxValue = row[c], best = c;
    float sum = 0.0f;
    for (long long c = 0; c < classes; ++c) sum += (grad[c] = expf(row[c] - maxValue));
    const int label = labels[r];
    rowLoss[r] = logf(sum) - (row[label] - maxValue);
    const float inverse = scale / sum;
    for (long long c = 0; c < classes; ++c) grad[c] *= inverse;
    grad[label] -= scale;
    rowCorrect[r] = best == label ? 1 : 0;
}

__global__ void meanSquaredError(const float* predictions, const float* targets, float* dpredictions, float* rowLoss, long long rows,
                                 long long outputs, float scale) {
    const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float inverseOutputs = 1.0f / static_cast<float>(outputs);
    float total = 0.0f;
    for (long long o = r * outputs; o < (r + 1) * outputs; ++o) {
        const float difference = predictions[o] - targets[o];
        total += difference * difference * inverseOutputs;
        dpredictions[o] = 2.0f * difference * inverseOutputs * scale;
    }
    rowLoss[r] = total;
}

}  // namespace

extern "C" {

int distlabCudaOpen(int logicalIndex, int physicalIndex, unsigned long long limitBytes, DistlabCudaDevice** device, char* message) {
    *device = nullptr;
    auto* opened = new DistlabCudaDevice;
    opened->logical = logicalIndex;
    opened->physical = physicalIndex;
    opened->limit = limitBytes;
    int code = check(cudaSetDevice(physicalIndex), message, opened, "cannot use the GPU");
    if (code == 0)
        code = check(cudaStreamCreateWithFlags(&opened->stream, cudaStreamNonBlocking), message, opened, "cannot create a stream");
    if (code == 0) code = checkBlas(cublasCreate(&opened->blas), message, opened, "cannot start cuBLAS");
    if (code == 0) code = checkBlas(cublasSetStream(opened->blas, opened->stream), message, opened, "cuBLAS stream");
    // float32 products stay float32: no TF32 unless a later option asks for it.
    if (code == 0) code = checkBlas(cublasSetMathMode(opened->blas, CUBLAS_PEDANTIC_MATH), message, opened, "cuBLAS math mode");
    constexpr size_t kBlasWorkspace = 32u << 20;
    if (code == 0) code = check(cudaMalloc(&opened->blasWorkspace, kBlasWorkspace), message, opened, "cuBLAS workspace");
    if (code == 0)
        code = checkBlas(cublasSetWorkspace(opened->blas, opened->blasWorkspace, kBlasWorkspace), message, opened, "cuBLAS workspace");
    if (code == 0)
        code = check(cudaMalloc(reinterpret_cast<void**>(&opened->sumScratch), kSumBlocks * sizeof(double)), message, opened,
                     "sum-of-squares scratch");
    for (cudaEvent_t& event : opened->ringEvents)
        if (code == 0) code = check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), message, opened, "cannot create an event");
    if (code != 0) {
        distlabCudaClose(opened);
        return code;
    }
    *device = opened;
    return 0;
}

int distlabCudaMakeCurrent(DistlabCudaDevice* device, char* message) {
    return check(cudaSetDevice(device->physical), message, device, "cannot use the GPU");
}

void distlabCudaClose(DistlabCudaDevice* device) {
    if (device == nullptr) return;
    cudaSetDevice(device->physical);
    if (device->stream != nullptr) cudaStreamSynchronize(device->stream);
    for (const auto& block : device->blockSizes) cudaFree(block.first);
    if (device->blas != nullptr) cublasDestroy(device->blas);
    if (device->blasWorkspace != nullptr) cudaFree(device->blasWorkspace);
    if (device->sumScratch != nullptr) cudaFree(device->sumScratch);
    for (cudaEvent_t event : device->ringEvents)
        if (event != nullptr) cudaEventDestroy(event);
    if (device->stream != nullptr) cudaStreamDestroy(device->stream);
    delete device;
}

int distlabCudaAllocate(DistlabCudaDevice* device, unsigned long long bytes, void** pointer, char* message) {
    *pointer = nullptr;
    const unsigned long long size = (bytes + kGranule - 1) / kGranule * kGranule;
    if (size == 0) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "allocate", "zero bytes asked for");
    // A cached block of the same size first: no cudaMalloc, no synchronisation.
    if (const auto found = device->cache.find(size); found != device->cache.end()) {
        *pointer = found->second;
        device->cache.erase(found);
        device->cached -= size;
    } else {
        if (device->limit != 0 && device->live + device->cached + size > device->limit) dropCache(device);
        if (device->limit != 0 && device->live + size > device->limit) {
            char cause[DISTLAB_CUDA_MESSAGE_SIZE];
            std::snprintf(cause, sizeof cause, "asked for %.2f MiB with %.2f MiB in use of the logical device's %.2f MiB limit",
                          mebibytes(size), mebibytes(device->live), mebibytes(device->limit));
            return fail(message, device, DISTLAB_CUDA_OUT_OF_MEMORY, "out of memory", cause);
        }
        cudaSetDevice(device->physical);
        cudaError_t error = cudaMalloc(pointer, size);
        if (error == cudaErrorMemoryAllocation) {
            cudaGetLastError();  // clear it, give the cache back and try once more
            dropCache(device);
            error = cudaMalloc(pointer, size);
        }
        if (error != cudaSuccess) {
            cudaGetLastError();
            size_t freeBytes = 0, totalBytes = 0;
            cudaMemGetInfo(&freeBytes, &totalBytes);
            char cause[DISTLAB_CUDA_MESSAGE_SIZE];
            std::snprintf(cause, sizeof cause, "asked for %.2f MiB, %.2f MiB free of %.2f MiB (%s)", mebibytes(size), mebibytes(freeBytes),
                          mebibytes(totalBytes), cudaGetErrorString(error));
            *pointer = nullptr;
            return fail(message, device, DISTLAB_CUDA_OUT_OF_MEMORY, "out of memory", cause);
        }
        device->blockSizes[*pointer] = size;
    }
    device->live += size;
    if (device->live > device->peak) device->peak = device->live;
    return 0;
}

void distlabCudaRelease(DistlabCudaDevice* device, void* pointer) {
    if (pointer == nullptr) return;
    const auto found = device->blockSizes.find(pointer);
    if (found == device->blockSizes.end()) return;
    device->live -= found->second;
    device->cached += found->second;
    device->cache.emplace(found->second, pointer);
}

void distlabCudaMemory(const DistlabCudaDevice* device, DistlabCudaMemoryStats* stats) {
    stats->liveBytes = device->live;
    stats->peakBytes = device->peak;
    stats->cachedBytes = device->cached;
    stats->limitBytes = device->limit;
}

int distlabCudaUpload(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message) {
    return check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyHostToDevice, device->stream), message, device, "upload");
}

int distlabCudaDownload(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message) {
    return check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToHost, device->stream), message, device, "download");
}

int distlabCudaSynchronize(DistlabCudaDevice* device, char* message) {
    return check(cudaStreamSynchronize(device->stream), message, device, "synchronize");
}

int distlabCudaZero(DistlabCudaDevice* device, void* destination, unsigned long long bytes, char* message) {
    return check(cudaMemsetAsync(destination, 0, bytes, device->stream), message, device, "zero");
}

int distlabCudaRingAllReduce(DistlabCudaDevice* const* devices, float* const* buffers, int ranks, long long count, int mean,
                             char* message) {
    if (ranks <= 1 || count <= 0) return 0;
    for (int r = 1; r < ranks; ++r)
        if (devices[r]->physical != devices[0]->physical)
            return fail(message, devices[r], DISTLAB_CUDA_BAD_ARGUMENT, "ring all-reduce",
                        "the ranks are on different physical GPUs (that is NCCL's case)");
    const int n = ranks, steps = 2 * (n - 1);
    auto wrap = [n](int chunk) { return ((chunk % n) + n) % n; };
    // Step "-1" (parity 1): every rank's buffer is ready when the work queued before is done.
    for (int r = 0; r < n; ++r) {
        const int code = check(cudaEventRecord(devices[r]->ringEvents[1], devices[r]->stream), message, devices[r], "ring start");
        if (code != 0) return code;
    }
    for (long long first = 0; first < count; first += kRingSegmentElements) {
        const long long length = count - first < kRingSegmentElements ? count - first : kRingSegmentElements;
        auto from = [&](int chunk) { return first + ringChunkBegin(length, n, wrap(chunk)); };
        auto to = [&](int chunk) { return first + ringChunkBegin(length, n, wrap(chunk) + 1); };
        for (int s = 0; s < steps; ++s) {
            // Every rank waits for its predecessor's previous step (recorded with the other
            // parity, which no rank re-records before the next step), then does its own.
            for (int r = 0; r < n; ++r) {
                DistlabCudaDevice* device = devices[r];
                const int predecessor = wrap(r - 1);
                int code = check(cudaStreamWaitEvent(device->stream, devices[predecessor]->ringEvents[(s + 1) % 2], 0), message, device,
                                 "ring step");
                if (code != 0) return code;
                if (s < n - 1) {
                    const int chunk = r - s - 1;  // reduce-scatter: add the predecessor's partial sum of this chunk
                    const long long begin = from(chunk), size = to(chunk) - begin;
                    if (size > 0) {
                        addInto<<<blocksFor(size), kThreads, 0, device->stream>>>(buffers[r] + begin, buffers[predecessor] + begin, size);
                        if (mean && s == n - 2)
                            divideBy<<<blocksFor(size), kThreads, 0, device->stream>>>(buffers[r] + begin, float(n), size);
                    }
                } else {
                    const int chunk = r - (s - (n - 1));  // all-gather: copy the predecessor's finished chunk
                    const long long begin = from(chunk), size = to(chunk) - begin;
                    if (size > 0)
                        code = check(cudaMemcpyAsync(buffers[r] + begin, buffers[predecessor] + begin, size * sizeof(float),
                                                     cudaMemcpyDeviceToDevice, device->stream),
                                     message, device, "ring copy");
                }
                if (code == 0) code = check(cudaGetLastError(), message, device, "ring step");
                if (code == 0) code = check(cudaEventRecord(device->ringEvents[s % 2], device->stream), message, device, "ring step");
                if (code != 0) return code;
            }
        }
        // The next segment's first step waits for the last one's events (parity (steps - 1) % 2 = 1).
    }
    // A rank's buffer is read by its successor until the successor's last step.
    for (int r = 0; r < n; ++r) {
        const int code = check(cudaStreamWaitEvent(devices[r]->stream, devices[wrap(r + 1)]->ringEvents[(steps - 1) % 2], 0), message,
                               devices[r], "ring end");
        if (code != 0) return code;
    }
    return 0;
}

struct DistlabCudaEvent {
    const DistlabCudaDevice* device = nullptr;
    cudaEvent_t event = nullptr;
};

int distlabCudaRecord(DistlabCudaDevice* device, DistlabCudaEvent** event, char* message) {
    *event = nullptr;
    auto* recorded = new DistlabCudaEvent{device, nullptr};
    int code = check(cudaEventCreateWithFlags(&recorded->event, cudaEventDisableTiming), message, device, "cannot create an event");
    if (code == 0) code = check(cudaEventRecord(recorded->event, device->stream), message, device, "cannot record an event");
    if (code != 0) {
        distlabCudaEventDestroy(recorded);
        return code;
    }
    *event = recorded;
    return 0;
}

int distlabCudaEventDone(DistlabCudaEvent* event, char* message) {
    const cudaError_t state = cudaEventQuery(event->event);
    if (state == cudaSuccess) return 1;
    if (state == cudaErrorNotReady) return 0;
    return -check(state, message, event->device, "event");
}

int distlabCudaEventWait(DistlabCudaEvent* event, char* message) {
    return check(cudaEventSynchronize(event->event), message, event->device, "waiting for the GPU");
}

void distlabCudaEventDestroy(DistlabCudaEvent* event) {
    if (event == nullptr) return;
    if (event->event != nullptr) cudaEventDestroy(event->event);
    delete event;
}

int distlabCudaStreamWait(DistlabCudaDevice* device, DistlabCudaEvent* event, char* message) {
    return check(cudaStreamWaitEvent(device->stream, event->event, 0), message, device, "stream wait");
}

int distlabCudaCopy(DistlabCudaDevice* device, void* destination, const void* source, unsigned long long bytes, char* message) {
    return check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, device->stream), message, device, "copy");
}

// Row-major [r, c] is column-major [c, r]: every product below is the row-major formula
// transposed, so cuBLAS (column-major) computes it without copies.
int distlabCudaDenseForward(DistlabCudaDevice* device, const float* x, const float* w, const float* b, float* z, float* y, long long rows,
                            long long inputs, long long units, int activation, char* message) {
    if (rows <= 0 || units <= 0) return 0;
    const float one = 1.0f, zero = 0.0f;
    // z^T [units, rows] = w^T [units, inputs] x^T [inputs, rows]
    int code = checkBlas(
        cublasSgemm(device->blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(units), static_cast<int>(rows), static_cast<int>(inputs), &one,
                    w, static_cast<int>(units), x, static_cast<int>(inputs), &zero, z, static_cast<int>(units)),
        message, device, "dense forward product");
    if (code != 0) return code;
    biasActivate<<<blocksFor(rows * units), kThreads, 0, device->stream>>>(z, y, b, rows, units, activation);
    return check(cudaGetLastError(), message, device, "dense forward bias and activation");
}

int distlabCudaToHalf(DistlabCudaDevice* device, int half, const float* source, void* destination, long long count, char* message) {
    if (half != 1 && half != 2)
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "to 16 bits", "half is 1 (float16) or 2 (bfloat16)");
    if (count <= 0) return 0;
    toHalf<<<blocksFor(count), kThreads, 0, device->stream>>>(half, source, static_cast<unsigned short*>(destination), count);
    return check(cudaGetLastError(), message, device, "to 16 bits");
}

int distlabCudaFromHalf(DistlabCudaDevice* device, int half, const void* source, float* destination, long long count, char* message) {
    if (half != 1 && half != 2)
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "from 16 bits", "half is 1 (float16) or 2 (bfloat16)");
    if (count <= 0) return 0;
    fromHalf<<<blocksFor(count), kThreads, 0, device->stream>>>(half, static_cast<const unsigned short*>(source), destination, count);
    return check(cudaGetLastError(), message, device, "from 16 bits");
}

int distlabCudaDenseForwardHalf(DistlabCudaDevice* device, int half, const void* x, const void* w, const float* b, float* z, float* y,
                                long long rows, long long inputs, long long units, int activation, char* message) {
    if (half != 1 && half != 2)
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "dense forward", "half is 1 (float16) or 2 (bfloat16)");
    if (rows <= 0 || units <= 0) return 0;
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType type = half == 1 ? CUDA_R_16F : CUDA_R_16BF;
    // As the float32 forward, the product transposed for column-major cuBLAS; tensor cores with
    // float32 accumulation and a float32 result.
    const int code =
        checkBlas(cublasGemmEx(device->blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(units), static_cast<int>(rows),
                               static_cast<int>(inputs), &one, w, type, static_cast<int>(units), x, type, static_cast<int>(inputs), &zero,
                               z, CUDA_R_32F, static_cast<int>(units), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                  message, device, "dense forward product (16 bits)");
    if (code != 0) return code;
    biasActivate<<<blocksFor(rows * units), kThreads, 0, device->stream>>>(z, y, b, rows, units, activation);
    return check(cudaGetLastError(), message, device, "dense forward bias and activation");
}

int distlabCudaDenseBackwardHalf(DistlabCudaDevice* device, int half, const void* x, const void* w, const float* z, const float* y,
                                 const float* dy, float* dz, void* dz16, float* dw, float* db, float* dx, long long rows, long long inputs,
                                 long long units, int activation, char* message) {
    if (half != 1 && half != 2)
        return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "dense backward", "half is 1 (float16) or 2 (bfloat16)");
    if (rows <= 0 || units <= 0) return 0;
    activationBackward<<<blocksFor(rows * units), kThreads, 0, device->stream>>>(z, y, dy, dz, rows * units, activation);
    int code = check(cudaGetLastError(), message, device, "activation backward");
    if (code == 0) code = distlabCudaToHalf(device, half, dz, dz16, rows * units, message);
    if (code != 0) return code;
    const float one = 1.0f, zero = 0.0f;
    const cudaDataType type = half == 1 ? CUDA_R_16F : CUDA_R_16BF;
    // The float32 backward's products with 16-bit operands (see distlabCudaDenseBackward).
    code = checkBlas(cublasGemmEx(device->blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(units), static_cast<int>(inputs),
                                  static_cast<int>(rows), &one, dz16, type, static_cast<int>(units), x, type, static_cast<int>(inputs),
                                  &one, dw, CUDA_R_32F, static_cast<int>(units), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     message, device, "kernel gradient product (16 bits)");
    if (code != 0) return code;
    addColumnSums<<<blocksFor(units), kThreads, 0, device->stream>>>(dz, db, rows, units);
    code = check(cudaGetLastError(), message, device, "bias gradient");
    if (code != 0 || dx == nullptr) return code;
    return checkBlas(cublasGemmEx(device->blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(inputs), static_cast<int>(rows),
                                  static_cast<int>(units), &one, w, type, static_cast<int>(units), dz16, type, static_cast<int>(units),
                                  &zero, dx, CUDA_R_32F, static_cast<int>(inputs), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     message, device, "input gradient product (16 bits)");
}

int distlabCudaDenseBackward(DistlabCudaDevice* device, const float* x, const float* w, const float* z, const float* y, const float* dy,
                             float* dz, float* dw, float* db, float* dx, long long rows, long long inputs, long long units, int activation,
                             char* message) {
    if (rows <= 0 || units <= 0) return 0;
    activationBackward<<<blocksFor(rows * units), kThreads, 0, device->stream>>>(z, y, dy, dz, rows * units, activation);
    int code = check(cudaGetLastError(), message, device, "activation backward");
    if (code != 0) return code;
    const float one = 1.0f, zero = 0.0f;
    // dw^T [units, inputs] += dz^T [units, rows] x [rows, inputs]
    code = checkBlas(
        cublasSgemm(device->blas, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(units), static_cast<int>(inputs), static_cast<int>(rows), &one,
                    dz, static_cast<int>(units), x, static_cast<int>(inputs), &one, dw, static_cast<int>(units)),
        message, device, "kernel gradient product");
    if (code != 0) return code;
    addColumnSums<<<blocksFor(units), kThreads, 0, device->stream>>>(dz, db, rows, units);
    code = check(cudaGetLastError(), message, device, "bias gradient");
    if (code != 0 || dx == nullptr) return code;
    // dx^T [inputs, rows] = w [inputs, units] dz^T [units, rows]; w as stored is w^T column-major
    return checkBlas(
        cublasSgemm(device->blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(inputs), static_cast<int>(rows), static_cast<int>(units), &one,
                    w, static_cast<int>(units), dz, static_cast<int>(units), &zero, dx, static_cast<int>(inputs)),
        message, device, "input gradient product");
}

int distlabCudaSoftmaxCrossEntropy(DistlabCudaDevice* device, const float* logits, const int* labels, float* dlogits, float* rowLoss,
                                   int* rowCorrect, long long rows, long long classes, float scale, char* message) {
    if (rows <= 0) return 0;
    if (classes <= 0) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "softmax cross-entropy", "no classes");
    softmaxCrossEntropy<<<blocksFor(rows), kThreads, 0, device->stream>>>(logits, labels, dlogits, rowLoss, rowCorrect, rows, classes,
                                                                          scale);
    return check(cudaGetLastError(), message, device, "softmax cross-entropy");
}

int distlabCudaMeanSquaredError(DistlabCudaDevice* device, const float* predictions, const float* targets, float* dpredictions,
                                float* rowLoss, long long rows, long long outputs, float scale, char* message) {
    if (rows <= 0) return 0;
    if (outputs <= 0) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "mean squared error", "no outputs");
    meanSquaredError<<<blocksFor(rows), kThreads, 0, device->stream>>>(predictions, targets, dpredictions, rowLoss, rows, outputs, scale);
    return check(cudaGetLastError(), message, device, "mean squared error");
}

}  // extern "C"
