// The matrix products of one training step of W1 and W3 (forward x W, weight gradient x^T dz,
// input gradient dz W^T, row-major as the engine stores them) through one product path, to choose
// the engine's path by measurement (the engine's own packed product among them). One path per build (the BLAS libraries export the same
// symbols); tests/bench/gemm_paths.sh builds and runs each and prints one JSON line per path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#if defined(PATH_EIGEN)
#include <Eigen/Core>
#elif defined(PATH_PACKED)
#include "model/packed_product.hpp"
#elif defined(PATH_DNNL)
#include <oneapi/dnnl/dnnl.h>
#else
#include <cblas.h>
#endif

namespace {

/// C[m,n] = beta C + op(A) op(B), row-major; transA/transB as in BLAS.
void gemm(bool transA, bool transB, int m, int n, int k, const float* a, const float* b, float beta, float* c) {
    const int lda = transA ? m : k, ldb = transB ? k : n;
#if defined(PATH_EIGEN)
    using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using Map = Eigen::Map<const RowMajor>;
    Eigen::Map<RowMajor> cm(c, m, n);
    if (beta == 0.0f) cm.setZero();
    const Map am(a, transA ? k : m, lda), bm(b, transB ? n : k, ldb);
    if (transA)
        cm.noalias() += am.transpose() * bm;
    else if (transB)
        cm.noalias() += am * bm.transpose();
    else
        cm.noalias() += am * bm;
#elif defined(PATH_PACKED)
    using distlab::kernels::Op;
    distlab::kernels::packedProduct(distlab::kernels::packedKernels().front(), transA ? Op::Transpose : Op::None,
                                    transB ? Op::Transpose : Op::None, m, n, k, a, b, beta, c);
#elif defined(PATH_DNNL)
    dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb, beta, c, n);
#else
    cblas_sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans, transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, beta,
                c, n);
#endif
}

struct Layer {
    int in, out;
};

double stepGflops(int batch, const std::vector<Layer>& layers, double seconds) {
    std::vector<std::vector<float>> x, w, z, dw, dx;
    for (const Layer& l : layers) {
        x.emplace_back(static_cast<size_t>(batch) * l.in, 0.5f);
        w.emplace_back(static_cast<size_t>(l.in) * l.out, 0.01f);
        z.emplace_back(static_cast<size_t>(batch) * l.out, 0.0f);
        dw.emplace_back(static_cast<size_t>(l.in) * l.out, 0.0f);
        dx.emplace_back(static_cast<size_t>(batch) * l.in, 0.0f);
    }
    double flops = 0;
    for (size_t i = 0; i < layers.size(); ++i)
        flops += 2.0 * batch * layers[i].in * layers[i].out * (i == 0 ? 2 : 3);  // no input gradient for the data
    auto step = [&] {
        for (size_t i = 0; i < layers.size(); ++i)
            gemm(false, false, batch, layers[i].out, layers[i].in, x[i].data(), w[i].data(), 0.0f, z[i].data());
        for (size_t i = layers.size(); i-- > 0;) {
            gemm(true, false, layers[i].in, layers[i].out, batch, x[i].data(), z[i].data(), 1.0f, dw[i].data());
            if (i > 0) gemm(false, true, batch, layers[i].in, layers[i].out, z[i].data(), w[i].data(), 0.0f, dx[i].data());
        }
    };
    for (int i = 0; i < 5; ++i) step();
    double best = 0;
    for (int round = 0; round < 5; ++round) {
        int steps = 0;
        const auto start = std::chrono::steady_clock::now();
        double elapsed = 0;
        while (elapsed < seconds / 5) {
            step();
            ++steps;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        best = std::max(best, flops * steps / elapsed / 1e9);
    }
    return best;
}

}  // namespace

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "?";
    const double seconds = argc > 2 ? std::atof(argv[2]) : 2.0;
    std::printf("{\"path\": \"%s\", \"threads\": \"%s\", \"w1_gflops\": %.1f, \"w3_gflops\": %.1f}\n", path,
                std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "default",
                stepGflops(256, {{784, 256}, {256, 128}, {128, 10}}, seconds),
                stepGflops(128, {{3072, 1024}, {1024, 1024}, {1024, 10}}, seconds));
}
