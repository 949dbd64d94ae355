#pragma once
// The engine's one matrix product, C = beta C + op(A) op(B) over row-major matrices. Float goes
// through the engine's own packed product where the CPU has AVX-512 or AVX2 with FMA
// (packed_product.hpp) and through OpenBLAS's sgemm elsewhere (matrix_product.cpp says which products go where; the paths
// were chosen by tests/bench/gemm_paths.sh and gemm_products.sh, figures in tests/bench/RESULTS.md:
// both allocate nothing per call, unlike oneDNN's sgemm); double, which only the gradient checks
// use, through Eigen.
#include <Eigen/Core>
#include <cstdint>
#include <span>

namespace distlab::kernels {

enum class Op : bool { None, Transpose };

/// C[m, n] = beta C + op(A) op(B); op(A) is [m, k], op(B) is [k, n]. Runs on the calling thread's
/// OpenMP team (omp_get_max_threads()); bit-identical for a fixed thread count; allocates nothing.
void matrixProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float beta, float* c);

/// Whether affineProduct and maskedProduct run for an [m, n] output summed over k: matrixProduct
/// would run that product on a packed kernel here, whose write-back can apply them.
bool fusedWriteBackAvailable(std::int64_t m, std::int64_t n, std::int64_t k);
/// C[m, n] = A B + bias (a value per column), then max(C, 0) where relu, A [m, k] and B [k, n]: a
/// dense layer's forward pass with the bias and ReLU applied in the product's write-back
/// (packedAffineProduct, packed_product.hpp), C written once. The bits of matrixProduct over C
/// holding the bias with beta 1, then ReLU. Only where fusedWriteBackAvailable(m, n, k).
void affineProduct(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, const float* bias, bool relu, float* c);

/// C[m, n] = op(A) op(B) where mask > 0 and 0 elsewhere (mask [m, n], laid out as C): a dense
/// layer's input gradient with the derivative of the ReLU that produced its input (mask) applied
/// in the product's write-back (packedMaskedProduct). The bits of matrixProduct with beta 0, then
/// ReLU's derivative. Only where fusedWriteBackAvailable(m, n, k).
void maskedProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, const float* mask,
                   float* c);

/// Whether sgdWeightStep runs for the product matrixProduct(Transpose-or-not, ..., m, n, k): that
/// product runs on a packed kernel here (so the step's gradient has the bits matrixProduct's
/// would), k <= kPackedSgdDepthMost (256), and the build rounds SGD's step once
/// (kSgdStepRoundsOnce, optim/sgd_step.hpp) as the kernels' epilogues do.
bool fusedSgdStepAvailable(std::int64_t m, std::int64_t n, std::int64_t k);
/// The scratch sgdWeightStep needs for an m x n weight matrix (its tiles' sums).
std::int64_t sgdWeightStepScratch(std::int64_t m, std::int64_t n);
/// W[m, n] -= rate op(A) op(B), the product finished before the step is applied, and returns
/// Σ (op(A) op(B))²: packedSgdStep (packed_product.hpp) on this process's kernel. Only where
/// fusedSgdStepAvailable(m, n, k).
double sgdWeightStep(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b, float rate, float* w,
                     std::span<double> scratch);

/// Where this process's float products run, for reports: "packed-avx512" or "packed-avx2" (the
/// engine's own kernel; tiny products and 10-wide ones on one thread still go to OpenBLAS) or
/// "openblas" (a CPU with neither instruction set, or DISTLAB_MATRIX_PRODUCT=openblas).
const char* floatProductPath();

/// Loads OpenBLAS and lets it pick its kernels, unless done already (the first product, report or
/// call does it, once). Sets OPENBLAS_CORETYPE for the load unless the user set it: call it before
/// starting threads, or let the first product do it. Never throws; a failed load is reported by
/// openBlasKernels ("none") and refused at the first product that needs OpenBLAS.
void loadOpenBlas();

/// The OpenBLAS library the engine loads (its OpenMP build, by full path), for reports.
const char* openBlasLibrary();

/// The kernel type OpenBLAS runs the products it is given on (its openblas_get_corename(): e.g.
/// "SkylakeX", "Haswell"), for reports; "none" where it could not be loaded. Loads it.
const char* openBlasKernels();

/// Who chose that kernel type: the user's OPENBLAS_CORETYPE, the engine (from the CPU's instruction
/// sets) or OpenBLAS itself (a CPU without AVX2). Loads it.
const char* openBlasKernelsChosenBy();

/// The same in double, through Eigen.
inline void matrixProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const double* a, const double* b, double beta,
                          double* c) {
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using ConstMap = Eigen::Map<const RowMajor>;
    Eigen::Map<RowMajor> cm(c, m, n);
    if (beta == 0.0)
        cm.setZero();
    else if (beta != 1.0)
        cm *= beta;
    const ConstMap am(a, opA == Op::Transpose ? k : m, opA == Op::Transpose ? m : k);
    const ConstMap bm(b, opB == Op::Transpose ? n : k, opB == Op::Transpose ? k : n);
    if (opA == Op::Transpose && opB == Op::Transpose)
        cm.noalias() += am.transpose() * bm.transpose();
    else if (opA == Op::Transpose)
        cm.noalias() += am.transpose() * bm;
    else if (opB == Op::Transpose)
        cm.noalias() += am * bm.transpose();
    else
        cm.noalias() += am * bm;
}

}  // namespace distlab::kernels
