// Device discovery: the /proc parsers on fixed text, the CUDA error wording, and the live report
// and its JSON on whatever machine runs the test (with or without CUDA and a GPU).
#include "distlab/device/device_info.hpp"
#include "distlab/device/fma_probe.hpp"

#include <QtTest>

#include <algorithm>

#include <nlohmann/json.hpp>

#include <regex>

using namespace distlab;

namespace {

// Two packages; package 1 has two hyper-threads on one core. Trimmed from a real /proc/cpuinfo.
constexpr const char* kTwoSocketCpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n"
    "physical id\t: 0\n"
    "core id\t\t: 0\n"
    "flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512bw avx512vl\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n"
    "physical id\t: 0\n"
    "core id\t\t: 1\n"
    "flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx f16c avx2 avx512f avx512bw avx512vl\n"
    "\n"
    "processor\t: 2\n"
    "model name\t: Other Model\n"
    "physical id\t: 1\n"
    "core id\t\t: 4\n"
    "flags\t\t: fpu sse2 avx\n"
    "\n"
    "processor\t: 3\n"
    "model name\t: Other Model\n"
    "physical id\t: 1\n"
    "core id\t\t: 4\n"
    "flags\t\t: fpu sse2 avx\n"
    "\n";

bool isDottedVersion(const std::string& text, int parts) {
    const std::string pattern = parts == 3 ? R"(\d+\.\d+\.\d+)" : R"(\d+\.\d+)";
    return std::regex_match(text, std::regex(pattern));
}

}  // namespace

class TestDevices : public QObject {
    Q_OBJECT

private slots:
    void parsesPackagesCoresAndSimd() {
        const std::vector<CpuInfo> cpus = parseCpuInfo(kTwoSocketCpuinfo);
        QCOMPARE(cpus.size(), std::size_t{2});
        QCOMPARE(cpus[0].modelName, std::string("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"));
        QCOMPARE(cpus[0].logicalCores, 2);
        QCOMPARE(cpus[0].physicalCores, 2);
        const std::vector<std::string> expected{"sse2", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl"};
        QCOMPARE(cpus[0].simdFeatures, expected);
        QCOMPARE(cpus[1].modelName, std::string("Other Model"));
        QCOMPARE(cpus[1].logicalCores, 2);
        QCOMPARE(cpus[1].physicalCores, 1);
        QCOMPARE(cpus[1].simdFeatures, (std::vector<std::string>{"sse2", "avx"}));
    }

    void parsesArmCpuinfoWithoutCoreIds() {
        // ARM: no model name, no physical/core id, "Features" instead of "flags".
        const std::vector<CpuInfo> cpus = parseCpuInfo(
            "processor\t: 0\nFeatures\t: fp asimd evtstrm sve\n\nprocessor\t: 1\n"
            "Features\t: fp asimd evtstrm sve\n\nHardware\t: something\n");
        QCOMPARE(cpus.size(), std::size_t{1});
        QCOMPARE(cpus[0].modelName, std::string("unknown"));
        QCOMPARE(cpus[0].logicalCores, 2);
        QCOMPARE(cpus[0].physicalCores, 0);
        QCOMPARE(cpus[0].simdFeatures, (std::vector<std::string>{"asimd", "sve"}));
    }

    void emptyOrGarbageCpuinfoGivesNoPackage() { QVERIFY(parseCpuInfo("").empty()); }

    void nvidiaDriverVersions() {
        // The proprietary module, and the open one as an H100 machine printed it.
        QCOMPARE(parseNvidiaDriverVersion("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 8 2025\n"
                                          "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"),
                 std::string("570.86.15"));
        QCOMPARE(parseNvidiaDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                                          "(nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n"),
                 std::string("580.159.04"));
        QCOMPARE(parseNvidiaDriverVersion(""), std::string("none"));
        QCOMPARE(parseNvidiaDriverVersion("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64\nGCC version:  gcc version 15.3.0\n"),
                 std::string("none"));
        QVERIFY(parseCpuInfo("no colon here\n\n:::\n").empty());
    }

    void parsesMemTotal() {
        QCOMPARE(parseMemTotalBytes("MemTotal:       24684084 kB\nMemFree: 1 kB\n"), std::uint64_t{24684084} * 1024);
        QCOMPARE(parseMemTotalBytes("MemFree: 1 kB\n"), std::uint64_t{0});
        QCOMPARE(parseMemTotalBytes("MemTotal: lots kB\n"), std::uint64_t{0});
        QCOMPARE(parseMemTotalBytes("MemTotal: 12 MB\n"), std::uint64_t{0});
        QCOMPARE(parseMemTotalBytes("MemTotal: 99999999999999999999999 kB\n"), std::uint64_t{0});
    }

    void describesCudaErrors() {
        QCOMPARE(describeCudaError(35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient", 0),
                 std::string("no NVIDIA driver is loaded (cudaErrorInsufficientDriver)"));
        QCOMPARE(describeCudaError(35, "cudaErrorInsufficientDriver", "", 12040),
                 std::string("the NVIDIA driver supports CUDA 12.4, older than this build's CUDA runtime "
                             "(cudaErrorInsufficientDriver)"));
        QCOMPARE(describeCudaError(100, "cudaErrorNoDevice", "no CUDA-capable device is detected", 13000),
                 std::string("no CUDA device (cudaErrorNoDevice)"));
        QCOMPARE(describeCudaError(3, "cudaErrorInitializationError", "initialization error", 13000),
                 std::string("initialization error (cudaErrorInitializationError)"));
        QCOMPARE(describeCudaError(999, "", "", 0), std::string("unknown CUDA error (cudaError 999)"));
    }

    void formatsVersions() {
        QCOMPARE(formatCudaVersion(13000), std::string("13.0"));
        QCOMPARE(formatCudaVersion(12040), std::string("12.4"));
        QCOMPARE(formatNcclVersion(22809), std::string("2.28.9"));
        QCOMPARE(formatNcclVersion(2708), std::string("2.7.8"));
    }

    void reportHasCpusAndMemory() {
        const DeviceReport report = queryDevices();
        QVERIFY(!report.cpus.empty());
        QVERIFY(report.cpus[0].logicalCores >= 1);
        QVERIFY(report.usableCpuThreads >= 1);
        QVERIFY(!report.cpus[0].modelName.empty());
#if defined(__linux__)
        QVERIFY(report.memoryBytes > 0);
#endif
        QVERIFY(isDottedVersion(report.eigenVersion, 3));
        // The product path follows the CPU: the best packed kernel it has, else OpenBLAS.
        const auto& flags = report.cpus[0].simdFeatures;
        const auto has = [&](const char* flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
        const bool avx512 = has("avx512f"), avx2 = has("avx2") && has("fma");
        if (qEnvironmentVariable("DISTLAB_MATRIX_PRODUCT") == "openblas")
            QCOMPARE(report.cpuMatrixProduct, std::string("openblas"));
        else if (avx512 && qEnvironmentVariable("DISTLAB_MATRIX_PRODUCT") != "avx2")
            QCOMPARE(report.cpuMatrixProduct, std::string("packed-avx512"));
        else if (avx2)
            QCOMPARE(report.cpuMatrixProduct, std::string("packed-avx2"));
        else
            QCOMPARE(report.cpuMatrixProduct, std::string("openblas"));
    }

    // OpenBLAS's kernels follow the CPU's instruction sets, not OpenBLAS's table of models: 0.3.21
    // ran Emerald Rapids on its SSE3 (Prescott) kernels.
    void openBlasKernelsFollowTheCpu() {
        if (qEnvironmentVariableIsSet("OPENBLAS_CORETYPE")) QSKIP("OPENBLAS_CORETYPE is set: OpenBLAS runs the user's choice");
        const DeviceReport report = queryDevices();
        const auto& flags = report.cpus[0].simdFeatures;
        const auto has = [&](const char* flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
        const bool avx512 = has("avx512f") && has("avx512dq") && has("avx512bw") && has("avx512vl");
        const std::string avx512Kernels = has("avx512_bf16") ? "Cooperlake" : "SkylakeX";
        const std::string& kernels = report.cpuOpenBlasKernels;
        if (avx512 && report.cpus[0].modelName.find("AMD") != std::string::npos)  // Zen 4: Haswell's measured faster
            QVERIFY2(kernels == "Haswell" || kernels == avx512Kernels, kernels.c_str());
        else if (avx512)
            QCOMPARE(kernels, avx512Kernels);
        else if (has("avx2") && has("fma"))
            QCOMPARE(kernels, std::string("Haswell"));
        else
            QVERIFY(!kernels.empty());
    }

    // The FMA burst beside a benchmark's steps: as many FLOPs as its threads ran (2^15 iterations of
    // 16 AVX-512 or 12 AVX2 chains each), at a rate no core exceeds (2 FMA pipes, 16 lanes, 2 FLOPs,
    // below 6 GHz), on as many threads as the team gave.
    void fmaBurstCountsItsFlops() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fmaBurst(0));
        if (!fmaBurstAvailable()) QSKIP("no AVX-512 or AVX2 with FMA on this CPU");
        const DeviceReport report = queryDevices();
        const auto& flags = report.cpus[0].simdFeatures;
        const bool avx512 = std::find(flags.begin(), flags.end(), "avx512f") != flags.end();
        const double perThread = 32768.0 * (avx512 ? 16 * 16 * 2 : 12 * 8 * 2);
        for (const int threads : {1, 2}) {
            const FmaBurst burst = fmaBurst(threads);
            QCOMPARE(burst.flops, perThread * threads);
            QVERIFY(burst.seconds > 0);
            QVERIFY2(burst.flops / burst.seconds < threads * 2 * 16 * 2 * 6e9, qPrintable(QString::number(burst.flops / burst.seconds)));
        }
    }

    void reportExplainsMissingGpu() {
        const DeviceReport report = queryDevices();
        if (report.gpus.empty()) {
            QVERIFY2(!report.gpuUnavailableReason.empty(), "no GPU and no reason");
        } else {
            QVERIFY(report.gpuUnavailableReason.empty());
        }
        if (report.cudaBuiltIn) {
            QVERIFY2(isDottedVersion(report.cudaRuntimeVersion, 2), report.cudaRuntimeVersion.c_str());
            QVERIFY(report.cudaDriverVersion == "none" || isDottedVersion(report.cudaDriverVersion, 2));
            if (report.ncclBuiltIn) QVERIFY2(isDottedVersion(report.ncclVersion, 3), report.ncclVersion.c_str());
        } else {  // the CUDA backend module did not load: no CUDA versions, and the loader's reason
            QCOMPARE(report.cudaRuntimeVersion, std::string("not loaded"));
            QCOMPARE(report.ncclVersion, std::string("not loaded"));
            QVERIFY(report.gpus.empty());
            QVERIFY(!report.gpuBackendError.empty());
            QCOMPARE(report.gpuUnavailableReason, report.gpuBackendError);
        }
    }

    void jsonHasDocumentedKeys() {
        const DeviceReport report = queryDevices();
        const nlohmann::json json = nlohmann::json::parse(deviceReportToJson(report));
        for (const char* key : {"cpus", "usable_cpu_threads", "memory_bytes", "compiled_simd", "cpu_matrix_product", "cpu_openblas_kernels",
                                "cpu_openblas_kernels_chosen_by", "cpu_openblas_library", "gpus", "gpu_backend", "gpu_usable",
                                "gpu_unavailable_reason", "gpu_training", "built_in", "versions", "logical_devices"}) {
            QVERIFY2(json.contains(key), key);
        }
        QCOMPARE(json["cpus"].size(), report.cpus.size());
        QCOMPARE(json["cpus"][0]["logical_cores"].get<int>(), report.cpus[0].logicalCores);
        QCOMPARE(json["cpus"][0]["model_name"].get<std::string>(), report.cpus[0].modelName);
        QCOMPARE(json["memory_bytes"].get<std::uint64_t>(), report.memoryBytes);
        QCOMPARE(json["cpu_matrix_product"].get<std::string>(), report.cpuMatrixProduct);
        QCOMPARE(json["cpu_openblas_kernels"].get<std::string>(), report.cpuOpenBlasKernels);
        QCOMPARE(json["cpu_openblas_kernels_chosen_by"].get<std::string>(), report.cpuOpenBlasKernelsChosenBy);
        QVERIFY(!report.cpuOpenBlasKernelsChosenBy.empty());
        QCOMPARE(json["cpu_openblas_library"].get<std::string>(), report.cpuOpenBlasLibrary);
        QVERIFY2(QFile::exists(QString::fromStdString(report.cpuOpenBlasLibrary)), report.cpuOpenBlasLibrary.c_str());
        QCOMPARE(json["gpu_backend"]["loaded"].get<bool>(), report.gpuBackendLoaded);
        QCOMPARE(json["gpu_backend"]["error"].is_null(), report.gpuBackendLoaded);
        if (!report.gpuBackendLoaded) QCOMPARE(json["gpu_backend"]["error"].get<std::string>(), report.gpuBackendError);
        for (const char* key : {"distlab", "cuda_runtime", "cuda_driver", "nvidia_driver", "nccl", "eigen", "gloo"}) {
            QVERIFY2(json["versions"].contains(key), key);
        }
        QCOMPARE(json["versions"]["eigen"].get<std::string>(), report.eigenVersion);
        // Gloo carries multi-worker runs; Debian 12's libgloo-dev is Gloo 0.5.0.
        QCOMPARE(json["versions"]["gloo"].get<std::string>(), std::string("0.5.0"));
        QCOMPARE(json["built_in"]["gloo"].get<bool>(), true);
        QCOMPARE(json["built_in"]["cuda"].get<bool>(), report.cudaBuiltIn);
        QCOMPARE(json["logical_devices"]["cpu"]["logical_devices"].get<std::string>(),
                 "cpu:0 .. cpu:N (threads sharing " + std::to_string(report.usableCpuThreads) + " cores)");
        QCOMPARE(json["gpus"].size(), report.gpus.size());
        QCOMPARE(json["gpu_usable"].get<bool>(), !report.gpus.empty());
        if (report.gpus.empty()) {
            QCOMPARE(json["gpu_unavailable_reason"].get<std::string>(), report.gpuUnavailableReason);
            QCOMPARE(json["logical_devices"]["gpu"]["logical_devices"].get<std::string>(), std::string("none"));
            QCOMPARE(json["logical_devices"]["gpu"]["reason"].get<std::string>(), report.gpuUnavailableReason);
        } else {
            QVERIFY(json["gpu_unavailable_reason"].is_null());
        }
    }

    void jsonOfAFixedReport() {
        DeviceReport report;
        report.cpus = parseCpuInfo(kTwoSocketCpuinfo);
        report.usableCpuThreads = 4;
        report.memoryBytes = 1024;
        report.gpus.push_back({0, "NVIDIA H200", 150'000'000'000ull, 9, 0, 132});
        report.cudaBuiltIn = true;
        const nlohmann::json json = nlohmann::json::parse(deviceReportToJson(report));
        QCOMPARE(json["cpus"][1]["physical_cores"].get<int>(), 1);
        QVERIFY(json["cpus"][1]["simd"] == nlohmann::json({"sse2", "avx"}));
        QCOMPARE(json["gpus"][0]["name"].get<std::string>(), std::string("NVIDIA H200"));
        QCOMPARE(json["gpus"][0]["memory_bytes"].get<std::uint64_t>(), 150'000'000'000ull);
        QCOMPARE(json["gpus"][0]["compute_capability"].get<std::string>(), std::string("9.0"));
        QCOMPARE(json["gpus"][0]["multiprocessors"].get<int>(), 132);
        QCOMPARE(json["logical_devices"]["gpu"]["logical_devices"].get<std::string>(),
                 std::string("gpu:0 .. gpu:0 (one per physical GPU)"));
        // Until the GPU path has run on a GPU, the report never calls it working.
        QCOMPARE(json["gpu_training"].get<std::string>(), std::string("built, not yet verified on a GPU"));
        QCOMPARE(json["logical_devices"]["gpu"]["training"].get<std::string>(), std::string("built, not yet verified on a GPU"));
        report.cudaBuiltIn = false;
        QVERIFY(nlohmann::json::parse(deviceReportToJson(report))["gpu_training"].get<std::string>().starts_with("not available"));
        report.cudaBuiltIn = true;
        QCOMPARE(json["logical_devices"]["cpu"]["logical_devices"].get<std::string>(),
                 std::string("cpu:0 .. cpu:N (threads sharing 4 cores)"));
        report.cpus[0].physicalCores = 0;  // unknown -> null
        QVERIFY(nlohmann::json::parse(deviceReportToJson(report))["cpus"][0]["physical_cores"].is_null());
    }
};

QTEST_APPLESS_MAIN(TestDevices)
#include "test_devices.moc"
