#pragma once
// What this process can train on: the CPUs (from /proc), the CUDA GPUs (through the CUDA runtime,
// in the CUDA backend module that loads when GPUs are first asked about), how logical devices are
// carved from them, and the library versions in use. Where no GPU can be used, the report says why:
// the module not found, not loadable (the CUDA libraries or driver missing), or no device.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distlab {

/// One CPU package (socket) as /proc/cpuinfo describes it.
struct CpuInfo {
    std::string modelName = "unknown";      ///< "model name" from /proc/cpuinfo
    int logicalCores = 0;                   ///< hardware threads of this package
    int physicalCores = 0;                  ///< distinct core ids; 0 when /proc/cpuinfo does not say
    std::vector<std::string> simdFeatures;  ///< the kSimdFeatures this CPU reports, in that order
};

/// One CUDA GPU as the CUDA runtime describes it.
struct GpuInfo {
    int index = 0;  ///< CUDA device ordinal
    std::string name;
    std::uint64_t memoryBytes = 0;  ///< total global memory
    int computeMajor = 0;           ///< compute capability, e.g. 9.0 for an H100/H200
    int computeMinor = 0;
    int multiprocessors = 0;
};

/// Everything `distlab-cli devices` prints.
struct DeviceReport {
    std::vector<CpuInfo> cpus;               ///< one entry per CPU package; never empty
    int usableCpuThreads = 1;                ///< CPUs this process may run on (affinity mask), >= 1
    std::uint64_t memoryBytes = 0;           ///< MemTotal from /proc/meminfo; 0 when unknown
    std::vector<std::string> compiledSimd;   ///< SIMD extensions this build was compiled for
    std::vector<GpuInfo> gpus;               ///< usable CUDA GPUs
    std::string gpuUnavailableReason;        ///< why no GPU can be used; empty when gpus is not empty
    bool gpuBackendLoaded = false;           ///< the CUDA backend module loaded (gpu_backend_api.hpp)
    std::string gpuBackendModule;            ///< its path: loaded, or the one that failed; empty when none was found
    std::string gpuBackendError;             ///< why it did not load (names the file, dlerror's text); empty once loaded
    bool cudaBuiltIn = false;                ///< CUDA is in this process: the backend module loaded
    bool ncclBuiltIn = false;                ///< the loaded module was built with NCCL
    std::string cudaRuntimeVersion;          ///< "13.0", or "not loaded" (no backend module)
    std::string cudaDriverVersion;           ///< newest CUDA the driver supports, "none", or "not loaded"
    std::string nvidiaDriverVersion;         ///< kernel module version from /proc/driver/nvidia/version, or "none"
    std::string ncclVersion;                 ///< "2.28.9", "not built in" (a module without NCCL), or "not loaded"
    std::string eigenVersion;                ///< "3.4.0"
    bool glooBuiltIn = true;                 ///< Gloo carries multi-worker runs between processes (always linked)
    std::string glooVersion;                 ///< "0.5.0"
    std::string cpuMatrixProduct;            ///< cpuMatrixProduct(): where float products run
    std::string cpuOpenBlasKernels;          ///< cpuOpenBlasKernels(): OpenBLAS's kernel type, "SkylakeX"
    std::string cpuOpenBlasKernelsChosenBy;  ///< who chose it: the user's OPENBLAS_CORETYPE, DistLab or OpenBLAS
    std::string cpuOpenBlasLibrary;          ///< the OpenBLAS library loaded (full path)
    std::string distlabVersion;              ///< the project version
};

/// The SIMD flags that parseCpuInfo looks for (x86 names as /proc/cpuinfo spells them, then ARM).
inline constexpr std::string_view kSimdFeatures[] = {
    "sse2",        "sse4_2",      "avx",         "avx2",     "fma",      "f16c",     "avx512f",  "avx512dq", "avx512bw", "avx512vl",
    "avx512_vnni", "avx512_bf16", "avx512_fp16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8", "asimd",    "sve",      "sve2"};

/// Where this process's float matrix products run on CPUs: "packed-avx512" or "packed-avx2" (the
/// engine's own packed product on that kernel; tiny products and 10-wide ones on one thread still
/// go to OpenBLAS) or "openblas" (a CPU with neither, or DISTLAB_MATRIX_PRODUCT=openblas). Cheap;
/// any thread.
std::string cpuMatrixProduct();

/// The kernel type OpenBLAS runs the products the engine gives it on ("SkylakeX", "Haswell", …: the
/// engine sets it from the CPU's instruction sets, OPENBLAS_CORETYPE overriding), or "none" where
/// OpenBLAS could not be loaded. Cheap; any thread.
std::string cpuOpenBlasKernels();

/// Loads OpenBLAS, the CPU products' library, and lets it pick its kernels (from the CPU's
/// instruction sets unless OPENBLAS_CORETYPE is set), unless done already. Nothing is loaded before
/// main: the programs call this in main, before starting threads (the load sets OPENBLAS_CORETYPE
/// for its duration, and setenv races with other threads' getenv); elsewhere the first product or
/// device report does it. Never throws: a failed load is reported (cpuOpenBlasKernels "none").
void loadOpenBlas();

/// Probes CPUs, memory and GPUs. Blocks: reads /proc, loads the CUDA backend module (once per
/// process) and initialises the CUDA runtime (up to about a second on a GPU machine). Never throws on a missing file or driver. Any thread
/// may call it.
DeviceReport queryDevices();

/// The report as pretty-printed JSON with the keys cpus, usable_cpu_threads, memory_bytes, compiled_simd,
/// cpu_matrix_product, cpu_openblas_kernels, cpu_openblas_kernels_chosen_by, cpu_openblas_library, gpus,
/// gpu_backend, gpu_usable, gpu_unavailable_reason, built_in, versions, logical_devices. Pure; any thread.
std::string deviceReportToJson(const DeviceReport& report);

/// Parses the text of /proc/cpuinfo into one CpuInfo per package ("physical id"); empty when the
/// text lists no processor. Pure; any thread.
std::vector<CpuInfo> parseCpuInfo(std::string_view procCpuinfo);
/// The driver version in the text of /proc/driver/nvidia/version: the first word after "Kernel
/// Module" that starts with a digit ("... Kernel Module  570.86.15 ..." and the open module's
/// "... Open Kernel Module for x86_64  580.159.04 ..." both give the number), or "none".
std::string parseNvidiaDriverVersion(std::string_view procDriverVersion);

/// MemTotal in bytes from the text of /proc/meminfo; 0 when absent or malformed. Pure; any thread.
std::uint64_t parseMemTotalBytes(std::string_view procMeminfo);

/// This machine's memory (MemTotal of /proc/meminfo) in bytes; 0 when unknown. Reads a file; any thread.
std::uint64_t physicalMemoryBytes();

/// Why no GPU is usable, from the cudaError_t code of cudaGetDeviceCount, its name and message
/// (cudaGetErrorName/String) and cudaDriverGetVersion's value (0: no driver). Pure; any thread.
std::string describeCudaError(int cudaError, std::string_view errorName, std::string_view errorString, int driverVersion);

/// "13.0" from a CUDA version number such as 13000 (1000 * major + 10 * minor). Pure; any thread.
std::string formatCudaVersion(int version);

/// "2.28.9" from an NCCL version code (22809, or 2708 before NCCL 2.9). Pure; any thread.
std::string formatNcclVersion(int code);

}  // namespace distlab
