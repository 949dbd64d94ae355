#pragma once
// The engine's own single-precision matrix product (BLIS-style: op(A) and op(B) copied into packed
// panels, a register-blocked micro-kernel, the output split across the OpenMP team), with a kernel
// per instruction set: AVX-512 (8 x 32 micro-tiles) and AVX2 with FMA (6 x 16). matrix_product.cpp
// sends a product here where it measured faster than OpenBLAS (tests/bench/gemm_products.sh;
// figures in tests/bench/RESULTS.md): the weight gradients, which it writes directly instead of
// clearing first, the layers' narrow (10-wide) products on a team, where OpenBLAS's threading
// costs more than the arithmetic, and the products a team splits, where OpenBLAS's own threading
// waited. On CPUs with neither instruction set packedKernels() is empty and OpenBLAS runs.
#include <cstdint>
#include <span>

#include "model/matrix_product.hpp"

namespace distlab::kernels {

enum class PackedKernel { Avx512, Avx2 };

/// The kernels this CPU can run, the faster first (AVX-512F, then AVX2 with FMA); checked once.
std::span<const PackedKernel> packedKernels();
bool packedKernelAvailable(PackedKernel kernel);

/// C[m, n] = beta C + op(A) op(B), row-major, like matrixProduct, on `kernel` (one of
/// packedKernels()). The output is split across the calling thread's OpenMP team in slices of
/// whole micro-tiles; every element is one FMA chain over k in a fixed order, then beta C added by
/// one FMA, whatever the split and the kernel, so the bits depend neither on the thread count nor
/// on the instruction set. Allocates only the first time a thread runs it (its packing buffers, of
/// fixed size, kept for the thread's life).
void packedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                   const float* b, float beta, float* c);

}  // namespace distlab::kernels
