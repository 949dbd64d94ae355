#pragma once
// What the GPU tests share: failures counted instead of thrown (the tests are plain programs: GPU
// machines may have only the CUDA toolkit, no Qt), random inputs, the error measure, device
// buffers that give themselves back, and the program's frame (exit 77, CTest's "skipped", where
// no GPU is usable).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cuda_math.h"
#include "device_query.h"

namespace distlab::gpu_testing {

inline int failures = 0;

inline void expect(bool condition, const std::string& what) {
    if (!condition) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

inline std::vector<float> randomValues(std::size_t count, std::mt19937& random, float scale = 1.0f) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(count);
    for (float& value : values) value = normal(random);
    return values;
}

/// max |a - b| / max |b|
inline double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
    double difference = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        difference = std::max(difference, std::abs(double(a[i]) - double(b[i])));
        largest = std::max(largest, std::abs(double(b[i])));
    }
    return largest > 0.0 ? difference / largest : difference;
}

/// Device buffers that give themselves back.
class Buffers {
public:
    explicit Buffers(DistlabCudaDevice* device) : m_device(device) {}
    ~Buffers() {
        for (void* pointer : m_pointers) distlabCudaRelease(m_device, pointer);
    }
    float* upload(const std::vector<float>& values) {
        float* pointer = allocate(values.size());
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaUpload(m_device, pointer, values.data(), values.size() * sizeof(float), message) != 0) expect(false, message);
        return pointer;
    }
    float* allocate(std::size_t count) {
        void* pointer = nullptr;
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaAllocate(m_device, std::max<std::size_t>(count, 1) * sizeof(float), &pointer, message) != 0) expect(false, message);
        m_pointers.push_back(pointer);
        return static_cast<float*>(pointer);
    }
    std::vector<float> download(const float* pointer, std::size_t count) {
        std::vector<float> values(count);
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaDownload(m_device, values.data(), pointer, count * sizeof(float), message) != 0 ||
            distlabCudaSynchronize(m_device, message) != 0)
            expect(false, message);
        return values;
    }

private:
    DistlabCudaDevice* m_device;
    std::vector<void*> m_pointers;
};

/// Opens gpu:0, runs `body` on it, closes it, prints PASS or FAIL; the program's exit code.
template <typename Body>
int runOnFirstGpu(Body body) {
    DistlabCudaStatus status{};
    distlabCudaQueryStatus(&status);
    if (status.deviceCount <= 0) {
        std::printf("SKIP: no usable GPU (%s)\n", status.errorCode != 0 ? status.errorString : "no device");
        return 77;
    }
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaDevice* device = nullptr;
    if (distlabCudaOpen(0, 0, 0, &device, message) != 0) {
        std::printf("FAIL: %s\n", message);
        return 1;
    }
    body(device);
    distlabCudaClose(device);
    std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}

}  // namespace distlab::gpu_testing
