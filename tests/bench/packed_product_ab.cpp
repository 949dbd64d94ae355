// The engine's packed product as it stands against the same file at another revision, each W1 and
// W3 product alternated with itself in one process (a round runs both, in alternating order), so
// the minute-to-minute swings of a shared machine fall on both alike: per product the median
// GFLOP/s of each, their ratio and in how many rounds the working tree's was the faster. Then the
// same for each workload's step (its products one after the other, as the engine runs them): a
// change that speeds a product alone can slow the next one, through what it leaves in the caches.
// The other revision's file is compiled with its namespace renamed (distlab -> distlab_base) and
// linked beside the working tree's. Build and run with tests/bench/packed_product_ab.sh.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "model/packed_product.hpp"

// The base revision's entry point: the same signature in the renamed namespace.
namespace distlab_base::kernels {
enum class Op : bool { None, Transpose };
enum class PackedKernel { Avx512, Avx2 };
void packedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c);
double packedSgdStep(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                     float rate, float* w, std::span<double> tileSums);
void packedAffineProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* bias, bool relu, float* c);
void packedMaskedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* mask, float* c);
}  // namespace distlab_base::kernels

namespace {

namespace now = distlab::kernels;
namespace base = distlab_base::kernels;

struct Product {
    const char* workload;
    int threads;
    const char* name;
    bool transA, transB;
    std::int64_t m, n, k;
};

/// Seconds per call of run, over enough calls for about 20 ms.
template <typename Run>
double secondsPerCall(Run&& run) {
    int calls = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
        run();
        ++calls;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < 0.02);
    return elapsed / calls;
}

/// Runs `runNow` and `runBase` alternately for `rounds` rounds (each first in every other round) and
/// prints one JSON line: the median GFLOP/s of each, their ratio, and in how many rounds the
/// working tree's was the faster. `fields` opens the line (the case's own fields).
template <typename RunNow, typename RunBase>
void alternate(const std::string& fields, int rounds, double flops, RunNow&& runNow, RunBase&& runBase) {
    runNow();
    runBase();
    std::vector<double> gflopsNow, gflopsBase;
    int faster = 0;
    for (int round = 0; round < rounds; ++round) {
        double tNow, tBase;
        if (round % 2 == 0)
            tNow = secondsPerCall(runNow), tBase = secondsPerCall(runBase);
        else
            tBase = secondsPerCall(runBase), tNow = secondsPerCall(runNow);
        gflopsNow.push_back(flops / tNow / 1e9);
        gflopsBase.push_back(flops / tBase / 1e9);
        faster += tNow < tBase;
    }
    std::sort(gflopsNow.begin(), gflopsNow.end());
    std::sort(gflopsBase.begin(), gflopsBase.end());
    const double medianNow = gflopsNow[gflopsNow.size() / 2], medianBase = gflopsBase[gflopsBase.size() / 2];
    std::printf("{%s, \"gflops\": %.1f, \"gflops_base\": %.1f, \"ratio\": %.3f, \"faster_rounds\": %d, \"rounds\": %d}\n", fields.c_str(),
                medianNow, medianBase, medianNow / medianBase, faster, rounds);
    std::fflush(stdout);
}

/// The products of one training step of a workload of two ReLU layers and a 10-wide one, each as the
/// engine runs it on the packed kernel (the 10-wide layer's products, OpenBLAS's on one thread, left
/// out): the forward's affine products with bias and ReLU, the second layer's input gradient with
/// ReLU's derivative, both weight gradients with the SGD step fused. Run one after the other, so
/// each product finds the caches as the ones before it left them, which alone it does not.
struct StepCase {
    const char* workload;
    int threads;
    std::int64_t batch, inputs, hidden1, hidden2;
};

template <typename Api>
struct Step {
    const StepCase& shape;
    std::vector<float> data, w1, w2, b1, b2, y1, y2, dz2, dz1;
    std::vector<double> tileSums;
    std::int64_t call = 0;
    explicit Step(const StepCase& s)
        : shape(s),
          data(static_cast<std::size_t>(16 * s.batch * s.inputs)),
          w1(static_cast<std::size_t>(s.inputs * s.hidden1)),
          w2(static_cast<std::size_t>(s.hidden1 * s.hidden2)),
          b1(static_cast<std::size_t>(s.hidden1), 0.01f),
          b2(static_cast<std::size_t>(s.hidden2), 0.01f),
          y1(static_cast<std::size_t>(s.batch * s.hidden1)),
          y2(static_cast<std::size_t>(s.batch * s.hidden2)),
          dz2(static_cast<std::size_t>(s.batch * s.hidden2)),
          dz1(static_cast<std::size_t>(s.batch * s.hidden1)),
          tileSums(static_cast<std::size_t>(std::max(s.inputs * s.hidden1, s.hidden1 * s.hidden2))) {  // >= either layer's tile count
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i * 7919 % 1000) / 1000.0f - 0.5f;
        for (std::size_t i = 0; i < w1.size(); ++i) w1[i] = static_cast<float>(i * 104729 % 1000) / 50000.0f - 0.01f;
        for (std::size_t i = 0; i < w2.size(); ++i) w2[i] = static_cast<float>(i * 7907 % 1000) / 50000.0f - 0.01f;
        for (std::size_t i = 0; i < dz2.size(); ++i) dz2[i] = static_cast<float>(i * 13 % 1000) / 1e6f - 5e-4f;
    }
    static double flops(const StepCase& s) {
        return 2.0 * static_cast<double>(s.batch) * static_cast<double>(2 * s.inputs * s.hidden1 + 3 * s.hidden1 * s.hidden2);
    }
    void operator()() {
        const StepCase& s = shape;
        const float* x = data.data() + (call++ % 16) * s.batch * s.inputs;  // the next of 16 batches, as an unshuffled data set gives
        using Op = typename Api::Op;
        Api::affine(Op::None, Op::None, s.batch, s.hidden1, s.inputs, x, w1.data(), b1.data(), true, y1.data());
        Api::affine(Op::None, Op::None, s.batch, s.hidden2, s.hidden1, y1.data(), w2.data(), b2.data(), true, y2.data());
        Api::masked(Op::None, Op::Transpose, s.batch, s.hidden1, s.hidden2, dz2.data(), w2.data(), y1.data(), dz1.data());
        Api::sgd(Op::Transpose, Op::None, s.hidden1, s.hidden2, s.batch, y1.data(), dz2.data(), 1e-9f, w2.data(),
                 std::span<double>(tileSums));
        Api::sgd(Op::Transpose, Op::None, s.inputs, s.hidden1, s.batch, x, dz1.data(), 1e-9f, w1.data(), std::span<double>(tileSums));
    }
};

/// The step's products through one version's entry points. The arguments are passed on by value:
/// a std::vector given for the tile sums would be copied each call (25 MB for W3, which once halved
/// the step's rate here), so Step passes a span.
template <typename Kernel, typename OpType, auto kAffine, auto kMasked, auto kSgd>
struct Api {
    using Op = OpType;
    static inline Kernel kernel{};
    template <typename... Args>
    static void affine(Args... args) {
        kAffine(kernel, args...);
    }
    template <typename... Args>
    static void masked(Args... args) {
        kMasked(kernel, args...);
    }
    template <typename... Args>
    static void sgd(Args... args) {
        kSgd(kernel, args...);
    }
};
using NowApi = Api<now::PackedKernel, now::Op, now::packedAffineProduct, now::packedMaskedProduct, now::packedSgdStep>;
using BaseApi = Api<base::PackedKernel, base::Op, base::packedAffineProduct, base::packedMaskedProduct, base::packedSgdStep>;

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 41;
    const std::string only = argc > 2 ? argv[2] : "all";  // "products", "steps" or "all"
    // The products of one step of each workload (W [in, out]): forward x W and input gradient
    // dz W^T with beta 0 (the engine's bias, ReLU and mask write-backs left out), weight gradient
    // x^T dz with the SGD step fused, as the engine runs it.
    const Product products[] = {
        {"W1", 1, "L1 forward", false, false, 256, 256, 784},      {"W1", 1, "L1 weight grad", true, false, 784, 256, 256},
        {"W1", 1, "L2 forward", false, false, 256, 128, 256},      {"W1", 1, "L2 weight grad", true, false, 256, 128, 256},
        {"W1", 1, "L2 input grad", false, true, 256, 256, 128},    {"W3", 2, "L1 forward", false, false, 128, 1024, 3072},
        {"W3", 2, "L1 weight grad", true, false, 3072, 1024, 128}, {"W3", 2, "L2 forward", false, false, 128, 1024, 1024},
        {"W3", 2, "L2 weight grad", true, false, 1024, 1024, 128}, {"W3", 2, "L2 input grad", false, true, 128, 1024, 1024},
    };
    const auto kernel = now::packedKernels().front();
    const auto baseKernel = kernel == now::PackedKernel::Avx512 ? base::PackedKernel::Avx512 : base::PackedKernel::Avx2;
    for (const Product& p : products) {
        if (only == "steps") break;
        omp_set_num_threads(p.threads);
        // A first layer reads its batch where it lies in the data set (gatherBatch, for an unshuffled
        // one): each call takes the next of 16 batches, so A comes from memory as in a step, not
        // from the caches the previous call left it in.
        const bool readsData = std::string(p.name).starts_with("L1");
        const std::int64_t batches = readsData ? 16 : 1, batchSize = p.m * p.k;
        std::vector<float> a(static_cast<std::size_t>(batchSize * batches)), b(static_cast<std::size_t>(p.k * p.n));
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i * 7919 % 1000) / 1000.0f - 0.5f;
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i * 104729 % 1000) / 50000.0f - 0.01f;
        // C 64-byte aligned, as the engine's tensors are.
        auto* c = static_cast<float*>(std::aligned_alloc(64, static_cast<std::size_t>((p.m * p.n * 4 + 63) / 64 * 64)));
        const auto opOf = [](bool t) { return t ? now::Op::Transpose : now::Op::None; };
        const auto baseOpOf = [](bool t) { return t ? base::Op::Transpose : base::Op::None; };
        // A weight gradient runs as the engine runs it for a lone replica's plain SGD: the step
        // fused into the product's write-back (C = C - rate op(A) op(B), read and written), at a
        // rate small enough that the weights stay finite over every call.
        const bool sgd = std::string(p.name).ends_with("weight grad");
        std::vector<double> tileSums(static_cast<std::size_t>(now::packedSgdTileCount(p.m, p.n)));
        std::fill(c, c + p.m * p.n, 0.0f);
        std::int64_t call = 0;
        const auto nextA = [&] { return a.data() + (call++ % batches) * batchSize; };
        const auto runNow = [&] {
            const float* batch = nextA();
            if (sgd)
                now::packedSgdStep(kernel, opOf(p.transA), opOf(p.transB), p.m, p.n, p.k, batch, b.data(), 1e-9f, c, tileSums);
            else
                now::packedProduct(kernel, opOf(p.transA), opOf(p.transB), p.m, p.n, p.k, batch, b.data(), 0.0f, c);
        };
        const auto runBase = [&] {
            const float* batch = nextA();
            if (sgd)
                base::packedSgdStep(baseKernel, baseOpOf(p.transA), baseOpOf(p.transB), p.m, p.n, p.k, batch, b.data(), 1e-9f, c, tileSums);
            else
                base::packedProduct(baseKernel, baseOpOf(p.transA), baseOpOf(p.transB), p.m, p.n, p.k, batch, b.data(), 0.0f, c);
        };
        char fields[256];
        std::snprintf(fields, sizeof fields,
                      "\"workload\": \"%s\", \"threads\": %d, \"product\": \"%s\", \"m\": %ld, \"n\": %ld, \"k\": %ld, \"ops\": \"%c%c\"",
                      p.workload, p.threads, p.name, static_cast<long>(p.m), static_cast<long>(p.n), static_cast<long>(p.k),
                      p.transA ? 'T' : 'N', p.transB ? 'T' : 'N');
        alternate(fields, rounds, 2.0 * static_cast<double>(p.m * p.n * p.k), runNow, runBase);
        std::free(c);
    }
    const StepCase steps[] = {{"W1", 1, 256, 784, 256, 128}, {"W3", 2, 128, 3072, 1024, 1024}};
    NowApi::kernel = kernel;
    BaseApi::kernel = baseKernel;
    for (const StepCase& s : steps) {
        if (only == "products") break;
        omp_set_num_threads(s.threads);
        Step<NowApi> stepNow(s);
        Step<BaseApi> stepBase(s);
        alternate(
            std::string("\"workload\": \"") + s.workload + "\", \"threads\": " + std::to_string(s.threads) + ", \"product\": \"step\"",
            rounds, Step<NowApi>::flops(s), stepNow, stepBase);
    }
}
