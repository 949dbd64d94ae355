// The JSON form of a DeviceReport, as `distlab-cli devices` prints it.
#include "distlab/device/device_info.hpp"
#include "distlab/device/gpu_plan.hpp"

#include <nlohmann/json.hpp>

namespace distlab {
namespace {

using nlohmann::ordered_json;

ordered_json cpusJson(const DeviceReport& report) {
    ordered_json cpus = ordered_json::array();
    for (std::size_t package = 0; package < report.cpus.size(); ++package) {
        const CpuInfo& cpu = report.cpus[package];
        ordered_json entry;
        entry["package"] = package;
        entry["model_name"] = cpu.modelName;
        entry["logical_cores"] = cpu.logicalCores;
        // null when /proc/cpuinfo gives no core ids
        entry["physical_cores"] = cpu.physicalCores > 0 ? ordered_json(cpu.physicalCores) : ordered_json();
        entry["simd"] = cpu.simdFeatures;
        cpus.push_back(std::move(entry));
    }
    return cpus;
}

ordered_json gpusJson(const DeviceReport& report) {
    ordered_json gpus = ordered_json::array();
    for (const GpuInfo& gpu : report.gpus) {
        ordered_json entry;
        entry["index"] = gpu.index;
        entry["name"] = gpu.name;
        entry["memory_bytes"] = gpu.memoryBytes;
        entry["compute_capability"] = std::to_string(gpu.computeMajor) + "." + std::to_string(gpu.computeMinor);
        entry["multiprocessors"] = gpu.multiprocessors;
        gpus.push_back(std::move(entry));
    }
    return gpus;
}

ordered_json logicalDevicesJson(const DeviceReport& report) {
    ordered_json logical;
    const std::string cores = std::to_string(report.usableCpuThreads);
    logical["cpu"]["logical_devices"] = "cpu:0 .. cpu:N (threads sharing " + cores + " cores)";
    logical["cpu"]["rule"] = "each logical device cpu:K is one thread; any number may be created; they share the cores";
    logical["cpu"]["usable_cores"] = report.usableCpuThreads;
    if (report.gpus.empty()) {
        logical["gpu"]["logical_devices"] = "none";
        logical["gpu"]["reason"] = report.gpuUnavailableReason;
    } else {
        const std::string last = std::to_string(report.gpus.size() - 1);
        logical["gpu"]["logical_devices"] = "gpu:0 .. gpu:" + last + " (one per physical GPU)";
        logical["gpu"]["rule"] =
            "strategy.gpu.logical_per_physical = L carves each physical GPU into L logical GPUs (gpu:K is logical "
            "K mod L of physical K / L), each with strategy.gpu.memory_limit_mb; replicas that share a GPU reduce "
            "with the in-process ring over device memory because NCCL refuses two ranks on one GPU";
    }
    logical["gpu"]["training"] = gpuTrainingStatus(report);
    return logical;
}

ordered_json versionsJson(const DeviceReport& report) {
    ordered_json versions;
    versions["distlab"] = report.distlabVersion;
    versions["cuda_runtime"] = report.cudaRuntimeVersion;
    versions["cuda_driver"] = report.cudaDriverVersion;
    versions["nvidia_driver"] = report.nvidiaDriverVersion;
    versions["nccl"] = report.ncclVersion;
    versions["eigen"] = report.eigenVersion;
    versions["gloo"] = report.glooVersion;
    return versions;
}

}  // namespace

std::string deviceReportToJson(const DeviceReport& report) {
    ordered_json root;
    root["cpus"] = cpusJson(report);
    root["usable_cpu_threads"] = report.usableCpuThreads;
    root["memory_bytes"] = report.memoryBytes;
    root["compiled_simd"] = report.compiledSimd;
    root["cpu_matrix_product"] = report.cpuMatrixProduct;
    root["cpu_openblas_kernels"] = report.cpuOpenBlasKernels;
    root["cpu_openblas_kernels_chosen_by"] = report.cpuOpenBlasKernelsChosenBy;
    root["cpu_openblas_library"] = report.cpuOpenBlasLibrary;
    root["gpus"] = gpusJson(report);
    root["gpu_backend"] = {{"loaded", report.gpuBackendLoaded},
                           {"module", report.gpuBackendModule.empty() ? ordered_json() : ordered_json(report.gpuBackendModule)},
                           {"error", report.gpuBackendLoaded ? ordered_json() : ordered_json(report.gpuBackendError)}};
    root["gpu_usable"] = !report.gpus.empty();
    root["gpu_unavailable_reason"] = report.gpus.empty() ? ordered_json(report.gpuUnavailableReason) : ordered_json();
    root["gpu_training"] = gpuTrainingStatus(report);
    root["built_in"] = {{"cuda", report.cudaBuiltIn}, {"nccl", report.ncclBuiltIn}, {"gloo", report.glooBuiltIn}};
    root["versions"] = versionsJson(report);
    root["logical_devices"] = logicalDevicesJson(report);
    // Replace invalid UTF-8 (a driver could report odd bytes) instead of throwing.
    return root.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace distlab
