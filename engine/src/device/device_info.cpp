// queryDevices: reads /proc for the CPUs and memory, asks the CUDA runtime (through the C bridge in
// engine/cuda/device_query.h) for GPUs, and records the library versions built in.
#include "distlab/device/device_info.hpp"

#include <Eigen/Core>

#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include <sched.h>

#include "model/matrix_product.hpp"

#if defined(DISTLAB_HAVE_CUDA)
#include "device_query.h"
#endif

#ifndef DISTLAB_VERSION
#define DISTLAB_VERSION "unknown"
#endif

namespace distlab {
namespace {

constexpr const char* kNotBuiltIn = "not built in";
// cudaError_t values are part of the CUDA ABI; named here so this file needs no CUDA header.
constexpr int kCudaErrorInsufficientDriver = 35;
constexpr int kCudaErrorNoDevice = 100;
constexpr int kCudaErrorSystemDriverMismatch = 803;

std::string readTextFile(const char* path) {
    std::ifstream file(path);
    if (!file) return {};
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

}  // namespace

std::uint64_t physicalMemoryBytes() { return parseMemTotalBytes(readTextFile("/proc/meminfo")); }

namespace {

int usableCpuThreads() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 0) return CPU_COUNT(&mask);
    const unsigned hardware = std::thread::hardware_concurrency();
    return hardware > 0 ? static_cast<int>(hardware) : 1;
}

/// The SIMD extensions the compiler targeted for this build (-march=native or the default).
std::vector<std::string> compiledSimd() {
    std::vector<std::string> features;
#if defined(__SSE2__)
    features.emplace_back("sse2");
#endif
#if defined(__SSE4_2__)
    features.emplace_back("sse4_2");
#endif
#if defined(__AVX__)
    features.emplace_back("avx");
#endif
#if defined(__AVX2__)
    features.emplace_back("avx2");
#endif
#if defined(__FMA__)
    features.emplace_back("fma");
#endif
#if defined(__AVX512F__)
    features.emplace_back("avx512f");
#endif
#if defined(__ARM_NEON)
    features.emplace_back("asimd");
#endif
    return features;
}

std::string nvidiaKernelModuleVersion() { return parseNvidiaDriverVersion(readTextFile("/proc/driver/nvidia/version")); }

void probeCpus(DeviceReport& report) {
    report.cpus = parseCpuInfo(readTextFile("/proc/cpuinfo"));
    report.usableCpuThreads = usableCpuThreads();
    if (report.cpus.empty()) {  // no /proc (or an unknown format): one package with the threads we may use
        CpuInfo cpu;
        cpu.logicalCores = report.usableCpuThreads;
        report.cpus.push_back(cpu);
    }
    report.memoryBytes = physicalMemoryBytes();
    report.compiledSimd = compiledSimd();
}

#if defined(DISTLAB_HAVE_CUDA)
void probeGpus(DeviceReport& report) {
    DistlabCudaStatus status;
    distlabCudaQueryStatus(&status);
    report.cudaBuiltIn = true;
    report.cudaRuntimeVersion = formatCudaVersion(status.runtimeVersion);
    report.cudaDriverVersion = status.driverVersion > 0 ? formatCudaVersion(status.driverVersion) : "none";
    report.ncclBuiltIn = status.ncclBuiltIn != 0;
    report.ncclVersion = !report.ncclBuiltIn ? kNotBuiltIn
                         : status.ncclVersion > 0 ? formatNcclVersion(status.ncclVersion)
                                                  : "unknown";
    if (status.errorCode != 0) {
        report.gpuUnavailableReason =
            describeCudaError(status.errorCode, status.errorName, status.errorString, status.driverVersion);
        return;
    }
    std::string lastError;
    for (int index = 0; index < status.deviceCount; ++index) {
        DistlabGpuProperties properties;
        if (distlabCudaQueryGpu(index, &properties) != 0) {
            lastError = "GPU " + std::to_string(index) + ": " + properties.errorString;
            continue;
        }
        GpuInfo gpu;
        gpu.index = index;
        gpu.name = properties.name;
        gpu.memoryBytes = properties.totalMemoryBytes;
        gpu.computeMajor = properties.computeMajor;
        gpu.computeMinor = properties.computeMinor;
        gpu.multiprocessors = properties.multiprocessors;
        report.gpus.push_back(std::move(gpu));
    }
    if (report.gpus.empty()) report.gpuUnavailableReason = lastError.empty() ? "no CUDA device" : lastError;
}
#else
void probeGpus(DeviceReport& report) {
    report.cudaRuntimeVersion = kNotBuiltIn;
    report.cudaDriverVersion = kNotBuiltIn;
    report.ncclVersion = kNotBuiltIn;
    report.gpuUnavailableReason =
        "built without CUDA (configure with -DDISTLAB_CUDA=ON where the CUDA toolkit is installed)";
}
#endif

}  // namespace

std::string formatCudaVersion(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string formatNcclVersion(int code) {
    // NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z from 2.9 on.
    const int major = code >= 10000 ? code / 10000 : code / 1000;
    const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string describeCudaError(int cudaError, std::string_view errorName, std::string_view errorString,
                              int driverVersion) {
    const std::string name = errorName.empty() ? "cudaError " + std::to_string(cudaError) : std::string(errorName);
    if (cudaError == kCudaErrorInsufficientDriver) {
        if (driverVersion <= 0) return "no NVIDIA driver is loaded (" + name + ")";
        return "the NVIDIA driver supports CUDA " + formatCudaVersion(driverVersion) +
               ", older than this build's CUDA runtime (" + name + ")";
    }
    if (cudaError == kCudaErrorNoDevice) return "no CUDA device (" + name + ")";
    if (cudaError == kCudaErrorSystemDriverMismatch)
        return "the NVIDIA kernel module and user-space driver versions differ (" + name + ")";
    const std::string message = errorString.empty() ? "unknown CUDA error" : std::string(errorString);
    return message + " (" + name + ")";
}

std::string cpuMatrixProduct() { return kernels::floatProductPath(); }

std::string cpuOpenBlasKernels() { return kernels::openBlasKernels(); }

DeviceReport queryDevices() {
    DeviceReport report;
    probeCpus(report);
    probeGpus(report);
    report.nvidiaDriverVersion = nvidiaKernelModuleVersion();
    report.cpuMatrixProduct = cpuMatrixProduct();
    report.cpuOpenBlasKernels = cpuOpenBlasKernels();
    report.eigenVersion = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                          std::to_string(EIGEN_MINOR_VERSION);
    report.distlabVersion = DISTLAB_VERSION;
    return report;
}

std::string parseNvidiaDriverVersion(std::string_view text) {
    const auto marker = text.find("Kernel Module");
    if (marker == std::string_view::npos) return "none";
    // The first line only: the second names the compiler and its version.
    std::string rest(text.substr(marker + std::string_view("Kernel Module").size()));
    rest = rest.substr(0, rest.find('\n'));
    std::istringstream words(rest);
    for (std::string word; words >> word;)
        if (std::isdigit(static_cast<unsigned char>(word.front()))) return word;
    return "none";
}

}  // namespace distlab
