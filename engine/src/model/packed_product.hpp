#pragma once
// The engine's own single-precision matrix product (BLIS-style: op(A) and op(B) copied into packed
// panels, a register-blocked micro-kernel, the output cut into units of work that the OpenMP team's
// threads claim as they go), with a kernel per instruction set: AVX-512 (6 x 64 micro-tiles; 8 x 32
// and 16 x 16 for narrower outputs) and AVX2 with FMA (6 x 16). matrix_product.cpp sends a product here where it measured faster than
// OpenBLAS (tests/bench/gemm_products.sh; figures in tests/bench/RESULTS.md): the weight
// gradients, which it writes directly instead of clearing first, the layers' narrow (10-wide)
// products on a team, where OpenBLAS's threading costs more than the arithmetic, and the products a
// team splits, where OpenBLAS's own threading waited. On CPUs with neither instruction set
// packedKernels() is empty and OpenBLAS runs.
#include <cstdint>
#include <span>

#include "model/matrix_product.hpp"

namespace distlab::kernels {

enum class PackedKernel { Avx512, Avx2 };

/// The kernels this CPU can run, the faster first (AVX-512F, then AVX2 with FMA); checked once.
std::span<const PackedKernel> packedKernels();
bool packedKernelAvailable(PackedKernel kernel);

/// C[m, n] = beta C + op(A) op(B), row-major, like matrixProduct, on `kernel` (one of
/// packedKernels()). The output is cut into units of whole micro-tiles over one block of k each,
/// which the calling thread's OpenMP team claims as it goes; every element is one FMA chain over k
/// in a fixed order, then beta C added by one FMA, whichever thread took which unit and whatever
/// the kernel, so the bits depend neither on the thread count nor
/// on the instruction set. Allocates only the first time a thread runs it (its packing buffers, of
/// fixed size, kept for the thread's life).
void packedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c);

/// C[m, n] = op(A) op(B) + bias (one value per column), then max(C, 0) where relu: a dense layer's
/// forward pass, with the bias laid under the first block of k and ReLU applied as each tile is
/// finished, in the product's write-back, so C is written once. The bits of packedProduct over C
/// holding the bias with beta 1 (bias + T is T + bias), then z > 0 ? z : 0. k >= 1.
void packedAffineProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* bias, bool relu, float* c);

/// C[m, n] = op(A) op(B) where mask > 0 and 0 elsewhere (mask [m, n], laid out as C): the input
/// gradient of a dense layer whose input came out of a ReLU (mask), that ReLU's derivative applied
/// as each tile is finished. The bits of packedProduct with beta 0 followed by
/// z > 0 ? dy : 0. k >= 1.
void packedMaskedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* mask, float* c);

/// The most rows of k packedSgdStep sums over: each output tile must be finished in one block of
/// k before the step is applied to it.
inline constexpr std::int64_t kPackedSgdDepthMost = 256;

/// The tile sums packedSgdStep needs for an m x n output, on any kernel.
std::int64_t packedSgdTileCount(std::int64_t m, std::int64_t n);

/// SGD's step fused into the product of the weight gradient: W[m, n] = W - rate T with
/// T = op(A) op(B), each element of T finished (the product's bits: one FMA chain over k in order)
/// before sgdStep applies it, so W ends as the product into a gradient buffer followed by Sgd's
/// pass would leave it, while W is read and written once and T never stored. Returns Σ T², summed
/// per output tile (in registers) and then over the tiles in tile order (in tileSums, at least
/// packedSgdTileCount(m, n) values): the same bits for any thread count and split, the last bits
/// not those of sumOfSquares. 1 <= k <= kPackedSgdDepthMost.
double packedSgdStep(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                     float rate, float* w, std::span<double> tileSums);

}  // namespace distlab::kernels
