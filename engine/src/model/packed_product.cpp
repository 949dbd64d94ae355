#include "model/packed_product.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <memory>

#include "tensor/parallel_ranges.hpp"

namespace distlab::kernels {
namespace {

// The register blocks. Wide: 8 rows of C by 32 columns (two 16-float vectors), 16 accumulators of
// AVX-512's 32 registers; each step of k loads 2 vectors of B and broadcasts 8 values of A for 16
// FMAs. 8 rows divide the reference workloads' batch sizes (128, 256), so no padding rows are
// computed. Narrow, for outputs at most 16 wide (the 10 classes of the last layer, where 32
// columns would compute two thirds padding): 16 rows by one vector.
struct Block {
    std::int64_t rows, vectors;
};
constexpr Block kWide{8, 2};
constexpr Block kNarrow{16, 1};
constexpr std::int64_t kVector = 16;
// The cache blocks: one packed B micro-panel (kKc x 32 floats, 32 KiB) is reused by every row
// strip of the packed A block (kMc x kKc, 128 KiB, held in L2) before the next one is read. kMc
// and kNc are multiples of every block's rows and columns.
constexpr std::int64_t kKc = 256;
constexpr std::int64_t kMc = 128;
constexpr std::int64_t kNc = 1024;
// Below this many flops (about 10 microseconds on one core) the team is not woken.
constexpr double kParallelMinimumFlops = 1e6;

/// One thread's packing buffers, allocated the first time the thread multiplies and kept for its
/// life: a step allocates nothing once every thread of the team has run one product.
struct alignas(64) PackBuffers {
    float a[kMc * kKc];
    float b[kKc * kNc];
};

PackBuffers& threadBuffers() {
    thread_local const std::unique_ptr<PackBuffers> buffers = std::make_unique<PackBuffers>();
    return *buffers;
}

/// op(A)[0, rows) x [0, depth) into strips of kMr rows, each laid out k-major (the kMr values of one
/// k together, as the micro-kernel broadcasts them); the last strip padded with zeros.
template <std::int64_t kMr>
void packA(Op opA, const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
    for (std::int64_t i = 0; i < rows; i += kMr, out += depth * kMr) {
        const std::int64_t valid = std::min(kMr, rows - i);
        if (opA == Op::Transpose) {  // op(A)[i + r][p] = a[p lda + i + r]: contiguous along r
            for (std::int64_t p = 0; p < depth; ++p) {
                const float* source = a + p * lda + i;
                for (std::int64_t r = 0; r < kMr; ++r) out[p * kMr + r] = r < valid ? source[r] : 0.0f;
            }
        } else {  // op(A)[i + r][p] = a[(i + r) lda + p]: read along rows, written across strips
            for (std::int64_t r = 0; r < kMr; ++r) {
                const float* source = a + (i + r) * lda;
                if (r < valid)
                    for (std::int64_t p = 0; p < depth; ++p) out[p * kMr + r] = source[p];
                else
                    for (std::int64_t p = 0; p < depth; ++p) out[p * kMr + r] = 0.0f;
            }
        }
    }
}

/// op(B)[0, depth) x [0, cols) into strips of kNr columns, each laid out k-major (kNr values of one
/// k together, the micro-kernel's vector loads); the last strip padded with zeros.
template <std::int64_t kNr>
void packB(Op opB, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* out) {
    for (std::int64_t j = 0; j < cols; j += kNr, out += depth * kNr) {
        const std::int64_t valid = std::min(kNr, cols - j);
        if (opB == Op::None) {  // op(B)[p][j + c] = b[p ldb + j + c]: contiguous along c
            for (std::int64_t p = 0; p < depth; ++p) {
                const float* source = b + p * ldb + j;
                for (std::int64_t c = 0; c < kNr; ++c) out[p * kNr + c] = c < valid ? source[c] : 0.0f;
            }
        } else {  // op(B)[p][j + c] = b[(j + c) ldb + p]: read along rows of b, written across
            for (std::int64_t c = 0; c < kNr; ++c) {
                const float* source = b + (j + c) * ldb;
                if (c < valid)
                    for (std::int64_t p = 0; p < depth; ++p) out[p * kNr + c] = source[p];
                else
                    for (std::int64_t p = 0; p < depth; ++p) out[p * kNr + c] = 0.0f;
            }
        }
    }
}

/// C[rows, cols] (at most block.rows x 16 block.vectors) = scale C + the product of one packed A
/// strip and one packed B strip over depth values of k. scale 0 writes C without reading it (as
/// BLAS's beta 0 does). Every element is one FMA chain over k in order: the result does not depend
/// on where the tile lies, so neither on how the output was split across threads.
template <Block block>
__attribute__((target("avx512f"))) void microKernel(std::int64_t depth, const float* a, const float* b, float* c,
                                                    std::int64_t ldc, std::int64_t rows, std::int64_t cols, float scale) {
    constexpr int kRows = static_cast<int>(block.rows), kVectors = static_cast<int>(block.vectors);
    __m512 sum[kRows][kVectors];
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm512_setzero_ps();
    for (std::int64_t p = 0; p < depth; ++p, a += kRows, b += kVectors * kVector) {
        __m512 bv[kVectors];
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) bv[v] = _mm512_load_ps(b + v * kVector);
#pragma GCC unroll 16
        for (int r = 0; r < kRows; ++r) {
            const __m512 ar = _mm512_set1_ps(a[r]);
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm512_fmadd_ps(ar, bv[v], sum[r][v]);
        }
    }
    __mmask16 mask[kVectors];
#pragma GCC unroll 2
    for (int v = 0; v < kVectors; ++v) {
        const std::int64_t n = cols - v * kVector;
        mask[v] = static_cast<__mmask16>(n >= kVector ? 0xFFFFu : n <= 0 ? 0u : (1u << n) - 1u);
    }
    const __m512 factor = _mm512_set1_ps(scale);
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
        if (r >= rows) break;
        float* row = c + r * ldc;
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) {
            __m512 value = sum[r][v];
            if (scale != 0.0f) value = _mm512_fmadd_ps(factor, _mm512_maskz_loadu_ps(mask[v], row + v * kVector), value);
            _mm512_mask_storeu_ps(row + v * kVector, mask[v], value);
        }
    }
}

/// C[m, n] = beta C + op(A) op(B) on the calling thread alone, blocked for the caches.
template <Block block>
void productBlock(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                  const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
    constexpr std::int64_t kMr = block.rows, kNr = block.vectors * kVector;
    static_assert(kMc % kMr == 0 && kNc % kNr == 0);
    PackBuffers& buffers = threadBuffers();
    for (std::int64_t jc = 0; jc < n; jc += kNc) {
        const std::int64_t nc = std::min(kNc, n - jc);
        for (std::int64_t pc = 0; pc < k; pc += kKc) {
            const std::int64_t kc = std::min(kKc, k - pc);
            packB<kNr>(opB, opB == Op::None ? b + pc * ldb + jc : b + jc * ldb + pc, ldb, kc, nc, buffers.b);
            const float scale = pc == 0 ? beta : 1.0f;  // beta once, then each block adds on
            for (std::int64_t ic = 0; ic < m; ic += kMc) {
                const std::int64_t mc = std::min(kMc, m - ic);
                packA<kMr>(opA, opA == Op::None ? a + ic * lda + pc : a + pc * lda + ic, lda, mc, kc, buffers.a);
                for (std::int64_t jr = 0; jr < nc; jr += kNr)
                    for (std::int64_t ir = 0; ir < mc; ir += kMr)
                        microKernel<block>(kc, buffers.a + ir * kc, buffers.b + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc,
                                           std::min(kMr, mc - ir), std::min(kNr, nc - jr), scale);
            }
        }
    }
}

}  // namespace

bool packedProductAvailable() {
    static const bool available = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") != 0;
    }();
    return available;
}

void packedProduct(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {  // no products to add: C = beta C
        for (std::int64_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
        return;
    }
    const std::int64_t lda = opA == Op::Transpose ? m : k;
    const std::int64_t ldb = opB == Op::Transpose ? k : n;
    // Split the output along its longer side: each thread packs the whole of the other operand, so
    // the copy made twice is the smaller one (x for the forward products, dz for the weight
    // gradients).
    const bool alongRows = n < m;
    const Block block = n <= kVector ? kNarrow : kWide;
    const std::int64_t tile = alongRows ? block.rows : block.vectors * kVector;
    const std::int64_t extent = alongRows ? m : n;
    const std::int64_t units = (extent + tile - 1) / tile;
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const int parts =
        flops < kParallelMinimumFlops ? 1 : static_cast<int>(std::min<std::int64_t>(parallelTeamSize(), units));
    const auto slice = [&](std::int64_t part, std::int64_t parts) {
        const std::int64_t begin = units * part / parts * tile;
        const std::int64_t end = std::min(extent, units * (part + 1) / parts * tile);
        if (begin >= end) return;
        const auto run = n <= kVector ? productBlock<kNarrow> : productBlock<kWide>;
        if (alongRows)
            run(opA, opB, end - begin, n, k, opA == Op::None ? a + begin * lda : a + begin, lda, b, ldb, beta,
                         c + begin * n, n);
        else
            run(opA, opB, m, end - begin, k, a, lda, opB == Op::None ? b + begin : b + begin * ldb, ldb, beta,
                         c + begin, n);
    };
    if (parts <= 1) {
        slice(0, 1);
        return;
    }
#pragma omp parallel num_threads(parts)
    slice(omp_get_thread_num(), omp_get_num_threads());  // the team OpenMP gave, which may be smaller
}

}  // namespace distlab::kernels
