// GFLOP/s of each matrix product of one training step of W1 and W3, one product at a time, in each
// way the engine could run it: OpenBLAS threading the product itself ("blas"), the same product in
// the transposed storage PyTorch uses for its weights ([out, in]: forward x W^T, weight gradient
// dz^T x, input gradient dz W; "blas-wT"), the OpenMP team splitting the output in one slice per
// thread, each slice a single-threaded OpenBLAS product ("split"), and the engine's own packed
// product (engine/src/model/packed_product.cpp, "packed"). Build and run with
// tests/bench/gemm_products.sh; prints one JSON line per product, its GFLOP/s in each way.
#include <cblas.h>
#include <omp.h>

#include "model/packed_product.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

struct Product {
    std::string name;
    bool transA, transB;
    int m, n, k;
    float beta;
};

/// C[m,n] = beta C + op(A) op(B), row-major.
void blas(const Product& p, const float* a, const float* b, float* c) {
    const int lda = p.transA ? p.m : p.k, ldb = p.transB ? p.k : p.n;
    cblas_sgemm(CblasRowMajor, p.transA ? CblasTrans : CblasNoTrans, p.transB ? CblasTrans : CblasNoTrans, p.m, p.n, p.k, 1.0f, a, lda, b,
                ldb, p.beta, c, p.n);
}

/// The same product with the output split into one slice per thread of the team along its longer
/// side (multiples of 16), each slice one single-threaded OpenBLAS call inside the parallel region.
void split(const Product& p, const float* a, const float* b, float* c) {
    const int lda = p.transA ? p.m : p.k, ldb = p.transB ? p.k : p.n;
    const bool alongN = p.n >= p.m;
#pragma omp parallel
    {
        const int parts = omp_get_num_threads(), part = omp_get_thread_num();
        const int extent = alongN ? p.n : p.m;
        const int units = (extent + 15) / 16;
        const int begin = std::min(extent, units * part / parts * 16), end = std::min(extent, units * (part + 1) / parts * 16);
        if (end > begin) {
            if (alongN) {
                const float* bSlice = p.transB ? b + static_cast<long>(begin) * ldb : b + begin;
                cblas_sgemm(CblasRowMajor, p.transA ? CblasTrans : CblasNoTrans, p.transB ? CblasTrans : CblasNoTrans, p.m, end - begin,
                            p.k, 1.0f, a, lda, bSlice, ldb, p.beta, c + begin, p.n);
            } else {
                const float* aSlice = p.transA ? a + begin : a + static_cast<long>(begin) * lda;
                cblas_sgemm(CblasRowMajor, p.transA ? CblasTrans : CblasNoTrans, p.transB ? CblasTrans : CblasNoTrans, end - begin, p.n,
                            p.k, 1.0f, aSlice, lda, b, ldb, p.beta, c + static_cast<long>(begin) * p.n, p.n);
            }
        }
    }
}

/// The engine's own packed product (engine/src/model/packed_product.cpp).
void packed(const Product& p, const float* a, const float* b, float* c) {
    using distlab::kernels::Op;
    distlab::kernels::packedProduct(distlab::kernels::packedKernels().front(), p.transA ? Op::Transpose : Op::None,
                                    p.transB ? Op::Transpose : Op::None, p.m, p.n, p.k, a, b, p.beta, c);
}

using Way = std::function<void(const Product&, const float*, const float*, float*)>;

/// GFLOP/s of each way of running its product (ways[i] runs products[i]), the best of five rounds
/// of seconds / 5 each. The ways take turns within each round, in an order that turns each round,
/// so the minute-to-minute swings of a shared VM fall on every way alike: measured one way after
/// another, W3's first forward once read 76 GFLOP/s packed against OpenBLAS's 108, and 102 against
/// 85 alternated in one process.
std::vector<double> gflops(const std::vector<Product>& products, const std::vector<Way>& ways, double seconds) {
    struct Operands {
        std::vector<float> a, b, c;
    };
    std::vector<Operands> operands;
    for (std::size_t w = 0; w < ways.size(); ++w) {
        const Product& p = products[w];
        operands.push_back({std::vector<float>(static_cast<size_t>(p.m) * p.k, 0.5f),
                            std::vector<float>(static_cast<size_t>(p.k) * p.n, 0.01f),
                            std::vector<float>(static_cast<size_t>(p.m) * p.n, 0.0f)});
        for (int i = 0; i < 3; ++i) ways[w](p, operands[w].a.data(), operands[w].b.data(), operands[w].c.data());
    }
    std::vector<double> best(ways.size(), 0.0);
    for (std::size_t round = 0; round < 5; ++round)
        for (std::size_t turn = 0; turn < ways.size(); ++turn) {
            const std::size_t w = (turn + round) % ways.size();
            const Product& p = products[w];
            Operands& o = operands[w];
            int calls = 0;
            const auto start = std::chrono::steady_clock::now();
            double elapsed = 0;
            while (elapsed < seconds / 5) {
                ways[w](p, o.a.data(), o.b.data(), o.c.data());
                ++calls;
                elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            }
            best[w] = std::max(best[w], 2.0 * p.m * p.n * p.k * calls / elapsed / 1e9);
        }
    return best;
}

/// A step's products for batch rows through dense layers sizes[0] → sizes[1] → …, in the
/// engine's layout (W [in, out]) and in the transposed one (W^T [out, in]).
std::vector<std::pair<Product, Product>> stepProducts(int batch, const std::vector<int>& sizes) {
    std::vector<std::pair<Product, Product>> products;
    for (size_t l = 0; l + 1 < sizes.size(); ++l) {
        const int in = sizes[l], out = sizes[l + 1];
        const std::string layer = "L" + std::to_string(l + 1);
        products.push_back(
            {{layer + " forward", false, false, batch, out, in, 1.0f}, {layer + " forward", false, true, batch, out, in, 1.0f}});
        products.push_back(
            {{layer + " weight grad", true, false, in, out, batch, 0.0f}, {layer + " weight grad", true, false, out, in, batch, 0.0f}});
        if (l > 0)
            products.push_back(
                {{layer + " input grad", false, true, batch, in, out, 0.0f}, {layer + " input grad", false, false, batch, in, out, 0.0f}});
    }
    return products;
}

}  // namespace

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 1.0;
    const struct {
        const char* name;
        int batch;
        std::vector<int> sizes;
    } workloads[] = {{"W1", 256, {784, 256, 128, 10}}, {"W3", 128, {3072, 1024, 1024, 10}}};
    for (const auto& w : workloads)
        for (const auto& [engine, transposed] : stepProducts(w.batch, w.sizes)) {
            // One line per product: GFLOP/s of each way (blas-wT with the transposed weights' ops).
            const std::vector<double> g = gflops({engine, transposed, engine, engine}, {blas, blas, split, packed}, seconds);
            std::printf(
                "{\"workload\": \"%s\", \"threads\": %d, \"product\": \"%s\", \"m\": %d, \"n\": %d, \"k\": %d, "
                "\"ops\": \"%c%c\", \"blas\": %.1f, \"blas-wT\": %.1f, \"split\": %.1f, \"packed\": %.1f}\n",
                w.name, omp_get_max_threads(), engine.name.c_str(), engine.m, engine.n, engine.k, engine.transA ? 'T' : 'N',
                engine.transB ? 'T' : 'N', g[0], g[1], g[2], g[3]);
            std::fflush(stdout);
        }
}
