#pragma once
// The engine's own single-precision matrix product for CPUs with AVX-512 (BLIS-style: op(A) and
// op(B) copied into packed panels, an 8 x 32 register-blocked micro-kernel, the output split
// across the OpenMP team). matrix_product.cpp sends a product here where it measured faster than
// OpenBLAS (tests/bench/gemm_products.sh; figures in tests/bench/RESULTS.md): every product of the
// reference workloads, the layers' narrow (10-wide) products most of all, where OpenBLAS's
// threading costs more than the arithmetic, and the weight gradients, which it writes directly
// instead of clearing first. On other CPUs packedProductAvailable() is false and OpenBLAS runs.
#include <cstdint>

#include "model/matrix_product.hpp"

namespace distlab::kernels {

/// Whether this CPU has the instructions the packed kernel uses (AVX-512F); checked once.
bool packedProductAvailable();

/// C[m, n] = beta C + op(A) op(B), row-major, like matrixProduct; only where
/// packedProductAvailable(). The output is split across the calling thread's OpenMP team in
/// slices of whole micro-tiles; every element is summed in the same order whatever the split,
/// so the bits do not depend on the thread count. Allocates only the first time a thread runs it
/// (its packing buffers, of fixed size, kept for the thread's life).
void packedProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c);

}  // namespace distlab::kernels
