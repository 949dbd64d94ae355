// The optimizer updates, each one kernel over every parameter, and what a step reads back from the
// device instead of the whole model: the gradient's sum of squares (for its norm) and a few
// watched values. The updates write each product and sum as engine/src/optim's loops do;
// __fmul_rn / __fadd_rn keep the compiler from fusing them into FMAs, which would round differently.
#include "cuda_device.cuh"

using namespace distlab_cuda;

namespace {

// `scalars`, when not null, holds the per-step scalars in device memory (read when the kernel
// runs, so a graph captured once applies each step's values); otherwise the arguments are used.
__global__ void sgd(float* values, const float* grads, float* velocity, long long count, float rate, const float* scalars, float momentum,
                    int nesterov) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    if (scalars != nullptr) rate = scalars[0];
    const float g = grads[i];
    if (velocity == nullptr) {
        values[i] = __fsub_rn(values[i], __fmul_rn(rate, g));
        return;
    }
    const float b = __fadd_rn(__fmul_rn(momentum, velocity[i]), g);
    velocity[i] = b;
    const float step = nesterov ? __fadd_rn(g, __fmul_rn(momentum, b)) : b;
    values[i] = __fsub_rn(values[i], __fmul_rn(rate, step));
}

__global__ void adam(float* values, const float* grads, float* m, float* v, long long count, float stepSize, float invSecondCorrection,
                     const float* scalars, float beta1, float beta2, float epsilon) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) return;
    if (scalars != nullptr) stepSize = scalars[0], invSecondCorrection = scalars[1];
    const float g = grads[i];
    const float first = __fadd_rn(__fmul_rn(beta1, m[i]), __fmul_rn(1.0f - beta1, g));
    const float second = __fadd_rn(__fmul_rn(beta2, v[i]), __fmul_rn(__fmul_rn(1.0f - beta2, g), g));
    m[i] = first;
    v[i] = second;
    const float denominator = __fadd_rn(__fmul_rn(__fsqrt_rn(second), invSecondCorrection), epsilon);
    values[i] = __fsub_rn(values[i], __fdiv_rn(__fmul_rn(stepSize, first), denominator));
}

__global__ void gather(const float* source, const long long* indices, float* destination, long long count) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) destination[i] = indices[i] >= 0 ? source[indices[i]] : 0.0f;
}

// First pass: kSumBlocks blocks of kThreads threads, each thread a strided partial sum in double,
// each block a tree in shared memory: a fixed shape, so a fixed order of additions.
__global__ void partialSumSquares(const float* values, long long count, double* partials) {
    __shared__ double tree[kThreads];
    double sum = 0.0;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
        const double value = values[i];
        sum += value * value;
    }
    tree[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) tree[threadIdx.x] += tree[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = tree[0];
}

__global__ void sumPartials(const double* partials, int count, double* result) {
    double sum = 0.0;
    for (int i = 0; i < count; ++i) sum += partials[i];
    *result = sum;
}

}  // namespace

extern "C" {

int distlabCudaSgd(DistlabCudaDevice* device, float* values, const float* grads, float* velocity, long long count, float rate,
                   float momentum, int nesterov, char* message) {
    if (count <= 0) return 0;
    sgd<<<blocksFor(count), kThreads, 0, device->stream>>>(values, grads, velocity, count, rate, nullptr, momentum, nesterov);
    return check(cudaGetLastError(), message, device, "sgd");
}

int distlabCudaSgdFrom(DistlabCudaDevice* device, float* values, const float* grads, float* velocity, long long count, const float* scalars,
                       float momentum, int nesterov, char* message) {
    if (count <= 0) return 0;
    if (scalars == nullptr) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "sgd", "no scalars");
    sgd<<<blocksFor(count), kThreads, 0, device->stream>>>(values, grads, velocity, count, 0.0f, scalars, momentum, nesterov);
    return check(cudaGetLastError(), message, device, "sgd");
}

int distlabCudaAdam(DistlabCudaDevice* device, float* values, const float* grads, float* m, float* v, long long count, float stepSize,
                    float invSecondCorrection, float beta1, float beta2, float epsilon, char* message) {
    if (count <= 0) return 0;
    adam<<<blocksFor(count), kThreads, 0, device->stream>>>(values, grads, m, v, count, stepSize, invSecondCorrection, nullptr, beta1,
                                                            beta2, epsilon);
    return check(cudaGetLastError(), message, device, "adam");
}

int distlabCudaAdamFrom(DistlabCudaDevice* device, float* values, const float* grads, float* m, float* v, long long count,
                        const float* scalars, float beta1, float beta2, float epsilon, char* message) {
    if (count <= 0) return 0;
    if (scalars == nullptr) return fail(message, device, DISTLAB_CUDA_BAD_ARGUMENT, "adam", "no scalars");
    adam<<<blocksFor(count), kThreads, 0, device->stream>>>(values, grads, m, v, count, 0.0f, 0.0f, scalars, beta1, beta2, epsilon);
    return check(cudaGetLastError(), message, device, "adam");
}

int distlabCudaGather(DistlabCudaDevice* device, const float* source, const long long* indices, float* destination, long long count,
                      char* message) {
    if (count <= 0) return 0;
    gather<<<blocksFor(count), kThreads, 0, device->stream>>>(source, indices, destination, count);
    return check(cudaGetLastError(), message, device, "gather");
}

int distlabCudaSumSquares(DistlabCudaDevice* device, const float* values, long long count, double* result, char* message) {
    partialSumSquares<<<kSumBlocks, kThreads, 0, device->stream>>>(values, count, device->sumScratch);
    int code = check(cudaGetLastError(), message, device, "sum of squares");
    if (code != 0) return code;
    sumPartials<<<1, 1, 0, device->stream>>>(device->sumScratch, kSumBlocks, result);
    return check(cudaGetLastError(), message, device, "sum of squares");
}

}  // extern "C"
