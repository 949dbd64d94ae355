// Nothing runs before main: a program that links the engine maps neither OpenBLAS nor any CUDA
// library until it first multiplies or asks about GPUs (the OpenBLAS loader was a static
// initializer of the engine's library, calling setenv and dlopen before main). And the CUDA
// backend module loads, or says why not, as gpu_backend.hpp promises.
#include <QtTest>

#include <dlfcn.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "device/gpu_backend.hpp"
#include "distribute/gpu_trainer_api.hpp"
#include "distlab/device/device_info.hpp"
#include "model/matrix_product.hpp"

using namespace distlab;

namespace {

/// Whether a file whose name contains `name` is mapped into this process.
bool mapped(const char* name) {
    std::ifstream maps("/proc/self/maps");
    std::stringstream text;
    text << maps.rdbuf();
    return text.str().find(name) != std::string::npos;
}

constexpr const char* kCudaLibraries[] = {"libcudart.so", "libcublas.so", "libcublasLt.so", "libnccl.so", "libdistlab-cuda.so"};

}  // namespace

class TestEngineStartup : public QObject {
    Q_OBJECT

private slots:
    // Runs first (Qt Test keeps the declared order), before anything here touched the engine.
    void nothingIsLoadedBeforeItIsNeeded() {
        QVERIFY2(QFile::exists("/proc/self/maps"), "no /proc/self/maps");
        QVERIFY2(!mapped("libopenblas"), "OpenBLAS was loaded before the first product");
        for (const char* library : kCudaLibraries) QVERIFY2(!mapped(library), library);
    }

    void theFirstProductLoadsOpenBlasAndNoCuda() {
        // 2x2x2: below the packed product's size, so OpenBLAS runs it.
        const float a[] = {1, 2, 3, 4};
        const float b[] = {5, 6, 7, 8};
        float c[4] = {};
        kernels::matrixProduct(kernels::Op::None, kernels::Op::None, 2, 2, 2, a, b, 0.0f, c);
        QCOMPARE(c[0], 19.0f);
        QCOMPARE(c[3], 50.0f);
        QVERIFY(mapped("libopenblas"));
        QVERIFY(std::string(kernels::openBlasKernels()) != "none");
        for (const char* library : kCudaLibraries) QVERIFY2(!mapped(library), library);
    }

    void aDeviceReportLoadsTheGpuBackendOrSaysWhy() {
        const DeviceReport report = queryDevices();
        QCOMPARE(report.gpuBackendLoaded, gpuBackend().api != nullptr);
        if (report.gpuBackendLoaded) {
            QVERIFY(mapped("libdistlab-cuda.so") && mapped("libcudart.so"));
            QVERIFY(report.gpuBackendError.empty());
            QVERIFY(report.cudaBuiltIn);
            // The module's second table, which Trainer::create reaches for gpu:K (no GPU needed to find it).
            using Entry = const GpuTrainerApi* (*)();
            const auto entry = reinterpret_cast<Entry>(::dlsym(gpuBackend().library, kGpuTrainerEntry));
            QVERIFY2(entry != nullptr && entry() != nullptr && entry()->makeTrainer != nullptr, kGpuTrainerEntry);
        } else {
            QVERIFY(!mapped("libdistlab-cuda.so"));
            QVERIFY(!report.gpuBackendError.empty());
            QCOMPARE(report.gpuUnavailableReason, report.gpuBackendError);
            QCOMPARE(report.cudaRuntimeVersion, std::string("not loaded"));
        }
    }

    void candidatesFollowTheExecutable() {
        ::unsetenv("DISTLAB_GPU_BACKEND");
        const std::vector<std::string> places = gpuBackendCandidates();
        QVERIFY(!places.empty());
        const std::string beside = QCoreApplication::applicationDirPath().toStdString() + "/" + kGpuBackendFile;
        QCOMPARE(places.front(), beside);
        ::setenv("DISTLAB_GPU_BACKEND", "/elsewhere/libdistlab-cuda.so", 1);
        QCOMPARE(gpuBackendCandidates(), std::vector<std::string>{"/elsewhere/libdistlab-cuda.so"});
        ::unsetenv("DISTLAB_GPU_BACKEND");
    }

    void aFileThatIsNoModuleIsRefusedWithTheReason() {
        GpuBackend missing = loadGpuBackend("/nonexistent/libdistlab-cuda.so");
        QVERIFY(missing.api == nullptr);
        QVERIFY2(missing.whyNot.find("/nonexistent/libdistlab-cuda.so: cannot open shared object file") != std::string::npos,
                 missing.whyNot.c_str());
        // A real shared library without the module's table: zlib's, which this test links.
        Dl_info info{};
        QVERIFY(::dladdr(reinterpret_cast<void*>(&zlibVersion), &info) != 0 && info.dli_fname != nullptr);
        GpuBackend other = loadGpuBackend(info.dli_fname);
        QVERIFY(other.api == nullptr);
        QVERIFY2(other.whyNot.find(std::string("has no ") + kGpuBackendEntry + " table") != std::string::npos, other.whyNot.c_str());
    }
};

QTEST_GUILESS_MAIN(TestEngineStartup)
#include "test_engine_startup.moc"
