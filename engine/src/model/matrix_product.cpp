#include "model/matrix_product.hpp"

#include <cblas.h>
#include <cpuid.h>
#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "model/packed_product.hpp"
#include "optim/sgd_step.hpp"
#include "tensor/parallel_ranges.hpp"

namespace distlab::kernels {
namespace {

using SgemmFunction = decltype(&cblas_sgemm);

/// AMD family 19h with AVX-512 (Zen 4): its AVX-512 units are 256 bits wide, and OpenBLAS's AVX2
/// (Haswell) kernels ran the engine's products faster there than the AVX-512 (Cooper Lake) ones it
/// picks itself (tests/bench/gemm_paths.sh; figures in tests/bench/RESULTS.md). After
/// __builtin_cpu_init().
bool isZen4() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const unsigned family = ((eax >> 8) & 0xF) + ((eax >> 20) & 0xFF);
    return __builtin_cpu_is("amd") && family == 0x19 && __builtin_cpu_supports("avx512f");
}

/// The OpenBLAS kernel type (OPENBLAS_CORETYPE) for this CPU, read from its instruction sets rather
/// than left to OpenBLAS's table of CPU models: OpenBLAS 0.3.21 (Debian 12's) does not know Intel's
/// Emerald Rapids (family 6, model 0xCF) and falls back to its SSE3 (Prescott) kernels there, which
/// ran the engine's 10-wide products at 17-20 GFLOP/s against 34-82 with the AVX-512 (SkylakeX,
/// Cooper Lake) ones (tests/bench/gemm_products.sh with each kernel type; RESULTS.md, session 22).
/// Null where the CPU has no AVX2: OpenBLAS's own choice then.
const char* openBlasCoreType() {
    __builtin_cpu_init();
    if (isZen4()) return "Haswell";
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return __builtin_cpu_supports("avx512bf16") ? "Cooperlake" : "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
    return nullptr;
}

struct OpenBlas {
    SgemmFunction sgemm = nullptr;
    const char* (*coreName)() = nullptr;
    const char* chosenBy = "";
    std::string error;

    // OpenBLAS picks its kernels once, when it is loaded, reading OPENBLAS_CORETYPE: so it is loaded
    // here rather than linked, with that variable set from the CPU's instruction sets for the load
    // only (programs this process starts, PyTorch among them, make their own choice). A value the
    // user set wins. Not at static initialisation: a program that never multiplies (--version,
    // --help) loads nothing, and the programs load it in main, before their threads start, since
    // setenv races with any other thread's getenv.
    OpenBlas() {
        const bool userChose = std::getenv("OPENBLAS_CORETYPE") != nullptr;
        const char* core = userChose ? nullptr : openBlasCoreType();
        chosenBy = userChose         ? "OPENBLAS_CORETYPE (set by the user)"
                   : core != nullptr ? "DistLab (from the CPU's instruction sets)"
                                     : "OpenBLAS (its table of CPU models: no AVX2 here)";
        if (core != nullptr) ::setenv("OPENBLAS_CORETYPE", core, /*overwrite=*/1);
        void* library = ::dlopen(DISTLAB_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        if (core != nullptr) ::unsetenv("OPENBLAS_CORETYPE");
        if (library != nullptr) {
            sgemm = reinterpret_cast<SgemmFunction>(::dlsym(library, "cblas_sgemm"));
            coreName = reinterpret_cast<const char* (*)()>(::dlsym(library, "openblas_get_corename"));
        }
        if (sgemm == nullptr) {
            const char* reason = ::dlerror();
            error = std::string("cannot load OpenBLAS (" DISTLAB_OPENBLAS_LIBRARY "): ") + (reason ? reason : "no cblas_sgemm") +
                    "; install libopenblas0-openmp";
        }
    }
};

/// Loaded at the first call (thread-safe, once per process).
const OpenBlas& openBlas() {
    static const OpenBlas library;
    return library;
}

/// Below this many multiply-adds a product is a few microseconds, and the packed product's fixed
/// costs (packing into padded strips, masked stores) made W2's tiny layers slower than OpenBLAS's.
constexpr std::int64_t kPackedMinimumMultiplyAdds = std::int64_t{1} << 15;
/// Outputs at most this wide (a classifier's last layer): on one thread OpenBLAS ran them faster
/// (W1's 10-wide products 64 against 45 GFLOP/s with the AVX-512 kernel, 33-44 against 23-29 with
/// the AVX2 one), since the packed product copies all of A for them; on two, OpenBLAS's own
/// threading is the slower one (W3's: 38 against 57 on AVX-512, 13-16 against 35-40 on AVX2).
constexpr std::int64_t kNarrowColumns = 16;

/// The packed kernel this process runs products on, if any: the fastest the CPU has, unless
/// DISTLAB_MATRIX_PRODUCT says otherwise (`openblas`: none; `avx2`: the AVX2 kernel on an AVX-512
/// CPU), so the paths can be measured against each other in the same build.
std::optional<PackedKernel> chosenPackedKernel() {
    static const std::optional<PackedKernel> chosen = []() -> std::optional<PackedKernel> {
        const char* forced = std::getenv("DISTLAB_MATRIX_PRODUCT");
        const std::string_view path = forced != nullptr ? forced : "";
        if (path == "openblas" || packedKernels().empty()) return std::nullopt;
        if (path == "avx2" && packedKernelAvailable(PackedKernel::Avx2)) return PackedKernel::Avx2;
        return packedKernels().front();
    }();
    return chosen;
}

/// The engine's own packed product where the CPU has a kernel for it and it measured faster than
/// OpenBLAS (tests/bench/gemm_products.sh, figures in tests/bench/RESULTS.md): every product of the
/// reference workloads but the tiny and, on one thread, the narrow.
std::optional<PackedKernel> packedKernelFor(std::int64_t m, std::int64_t n, std::int64_t k) {
    const std::optional<PackedKernel> kernel = chosenPackedKernel();
    if (!kernel || m * n * k < kPackedMinimumMultiplyAdds) return std::nullopt;
    if (n <= kNarrowColumns && parallelTeamSize() <= 1) return std::nullopt;
    return kernel;
}

}  // namespace

void loadOpenBlas() { (void)openBlas(); }

const char* openBlasLibrary() { return DISTLAB_OPENBLAS_LIBRARY; }

const char* openBlasKernels() {
    const OpenBlas& library = openBlas();
    if (library.sgemm == nullptr || library.coreName == nullptr) return "none";
    return library.coreName();
}

const char* openBlasKernelsChosenBy() { return openBlas().chosenBy; }

const char* floatProductPath() {
    const std::optional<PackedKernel> kernel = chosenPackedKernel();
    if (!kernel) return "openblas";
    return *kernel == PackedKernel::Avx512 ? "packed-avx512" : "packed-avx2";
}

bool fusedWriteBackAvailable(std::int64_t m, std::int64_t n, std::int64_t k) { return k >= 1 && packedKernelFor(m, n, k).has_value(); }

void affineProduct(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, const float* bias, bool relu, float* c) {
    if (!fusedWriteBackAvailable(m, n, k)) throw std::logic_error("affineProduct: no packed kernel for this product here");
    packedAffineProduct(*chosenPackedKernel(), Op::None, Op::None, m, n, k, a, b, bias, relu, c);
}

void maskedProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, const float* mask,
                   float* c) {
    if (!fusedWriteBackAvailable(m, n, k)) throw std::logic_error("maskedProduct: no packed kernel for this product here");
    packedMaskedProduct(*chosenPackedKernel(), opA, opB, m, n, k, a, b, mask, c);
}

bool fusedSgdStepAvailable(std::int64_t m, std::int64_t n, std::int64_t k) {
    return kSgdStepRoundsOnce && packedKernelFor(m, n, k).has_value() && k >= 1 && k <= kPackedSgdDepthMost;
}

std::int64_t sgdWeightStepScratch(std::int64_t m, std::int64_t n) { return packedSgdTileCount(m, n); }

double sgdWeightStep(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float rate, float* w,
                     std::span<double> scratch) {
    if (!fusedSgdStepAvailable(m, n, k)) throw std::logic_error("sgdWeightStep: no fused SGD step for this product here");
    return packedSgdStep(*chosenPackedKernel(), opA, opB, m, n, k, a, b, rate, w, scratch);
}

void matrixProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float beta, float* c) {
    if (const auto kernel = packedKernelFor(m, n, k)) {
        packedProduct(*kernel, opA, opB, m, n, k, a, b, beta, c);
        return;
    }
    const OpenBlas& library = openBlas();
    if (library.sgemm == nullptr) throw std::runtime_error(library.error);
    const auto transpose = [](Op op) { return op == Op::Transpose ? CblasTrans : CblasNoTrans; };
    const auto lda = static_cast<blasint>(opA == Op::Transpose ? m : k);
    const auto ldb = static_cast<blasint>(opB == Op::Transpose ? k : n);
    library.sgemm(CblasRowMajor, transpose(opA), transpose(opB), static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k),
                  1.0f, a, lda, b, ldb, beta, c, static_cast<blasint>(n));
}

}  // namespace distlab::kernels
