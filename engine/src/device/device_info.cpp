// queryDevices: reads /proc for the CPUs and memory, asks the CUDA backend module (gpu_backend.hpp;
// it loads at this first GPU question) for GPUs, and records the library versions in use.
#include "distlab/device/device_info.hpp"

#include <Eigen/Core>
#include <gloo/config.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include <sched.h>

#include "model/matrix_product.hpp"

#include "device/gpu_backend.hpp"

#ifndef DISTLAB_VERSION
#define DISTLAB_VERSION "unknown"
#endif

namespace distlab {
namespace {

constexpr const char* kNotBuiltIn = "not built in";
constexpr const char* kNotLoaded = "not loaded";
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

/// The GPUs as the CUDA backend module sees them; where it did not load, why (and no CUDA versions).
void probeGpus(DeviceReport& report) {
    const GpuBackend& backend = gpuBackend();
    report.gpuBackendModule = backend.module;
    if (backend.api == nullptr) {
        report.cudaRuntimeVersion = kNotLoaded;
        report.cudaDriverVersion = kNotLoaded;
        report.ncclVersion = kNotLoaded;
        report.gpuBackendError = backend.whyNot;
        report.gpuUnavailableReason = backend.whyNot;
        return;
    }
    report.gpuBackendLoaded = true;
    backend.api->probeGpus(report);
}

}  // namespace

std::string formatCudaVersion(int version) { return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10); }

std::string formatNcclVersion(int code) {
    // NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z from 2.9 on.
    const int major = code >= 10000 ? code / 10000 : code / 1000;
    const int minor = code >= 10000 ? (code % 10000) / 100 : (code % 1000) / 100;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string describeCudaError(int cudaError, std::string_view errorName, std::string_view errorString, int driverVersion) {
    const std::string name = errorName.empty() ? "cudaError " + std::to_string(cudaError) : std::string(errorName);
    if (cudaError == kCudaErrorInsufficientDriver) {
        if (driverVersion <= 0) return "no NVIDIA driver is loaded (" + name + ")";
        return "the NVIDIA driver supports CUDA " + formatCudaVersion(driverVersion) + ", older than this build's CUDA runtime (" + name +
               ")";
    }
    if (cudaError == kCudaErrorNoDevice) return "no CUDA device (" + name + ")";
    if (cudaError == kCudaErrorSystemDriverMismatch) return "the NVIDIA kernel module and user-space driver versions differ (" + name + ")";
    const std::string message = errorString.empty() ? "unknown CUDA error" : std::string(errorString);
    return message + " (" + name + ")";
}

std::string cpuMatrixProduct() { return kernels::floatProductPath(); }

std::string cpuOpenBlasKernels() { return kernels::openBlasKernels(); }

void loadOpenBlas() { kernels::loadOpenBlas(); }

DeviceReport queryDevices() {
    DeviceReport report;
    probeCpus(report);
    probeGpus(report);
    report.nvidiaDriverVersion = nvidiaKernelModuleVersion();
    report.cpuMatrixProduct = cpuMatrixProduct();
    report.cpuOpenBlasKernels = cpuOpenBlasKernels();
    report.cpuOpenBlasKernelsChosenBy = kernels::openBlasKernelsChosenBy();
    report.cpuOpenBlasLibrary = kernels::openBlasLibrary();
    report.eigenVersion =
        std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
    report.glooVersion =
        std::to_string(GLOO_VERSION_MAJOR) + "." + std::to_string(GLOO_VERSION_MINOR) + "." + std::to_string(GLOO_VERSION_PATCH);
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
