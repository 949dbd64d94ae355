#pragma once
// The packed product's register blocks and micro-kernels (packed_product.cpp): per instruction set,
// the shape of a tile of C held in registers, the kernel that sums one tile over a block of k
// from packed panels, and the write-backs that finish a tile (beta C, the SGD step, a dense
// layer's bias, ReLU and ReLU's derivative). Header-only templates for that one translation unit,
// which instantiates them per register block; the blocking loops that call them stay there.
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "model/packed_product.hpp"
#include "optim/sgd_step.hpp"

namespace distlab::kernels::micro {

// The register blocks, one set per instruction set (PackedKernel). AVX-512, wide: 6 rows of C by 64
// columns (four 16-float vectors), 24 accumulators of its 32 registers; each step of k loads 4
// vectors of B and broadcasts 6 values of A for 24 FMAs, 10 loads where 8 x 32 (the block before
// it) needed 15 for as many FMAs. On the shared Xeon VM the host's other work takes the core's issue
// bandwidth, and its caches' with it, for stretches of seconds (a tenth to a third of the rounds;
// tests/bench/host_contention.cpp): then a loop nest of these tiles (A from L2) ran at 0.764 of the
// FMA chains beside it and 8 x 32's at 0.731, against 0.933 and 0.930 when the host left the core
// alone (tests/bench/register_blocks.cpp, each block in every place of the order in turn;
// RESULTS.md, session 27; session 26's three runs, of GCC's constant-propagated copies of the
// kernels, put them in the same order). B's micro-panel (64 columns by 256 of k, 64 KiB) is larger
// than L1 and streams from L2: the quiet figures include that. The last rows of a block go in strips
// of 4 (quadStripsFrom), as AVX2's do. AVX-512, half wide, for outputs 17 to 32 wide (where 64
// columns would compute as much padding again): 8 rows by 32. AVX-512, narrow, for outputs at most
// 16 wide (the 10 classes of the last layer): 16 rows by one vector. AVX2 (Zen 3, Haswell and
// later): 6 rows by 16 columns (two 8-float vectors), 12 accumulators of its 16 registers, the other
// 3 for B's two vectors and A's broadcast (8 rows would need all 16 for the accumulators alone).
struct Block {
    PackedKernel kernel;
    std::int64_t rows, columns;
    std::int64_t mc;  // the cache block of A's rows: a multiple of rows
    // The most lines of the next block of B (Prefetcher) asked for before one micro-kernel call. On
    // Emerald Rapids (with 8 x 32 tiles) a burst of W3's 32 filled the core's line-fill buffers and
    // stalled on the prefetches themselves (two thirds of the blocking loop's samples on the instruction
    // after one): capped at 8, W3's first forward ran 4-11 % faster and its second input gradient
    // 3-9 % (three runs alternated in one process with packed_product_ab.sh; 29 and 31 of 41 rounds
    // in the longest), W1's products (16 lines a call) within +-2 %; the rest of the next block is
    // left to the hardware prefetchers, which follow the copy's runs along B's rows. Zen 3's AVX2
    // path (measured there with whole bursts) is not capped.
    std::int64_t prefetchBurstMost;
    constexpr bool operator==(const Block&) const = default;
};
constexpr std::int64_t kUncapped = std::numeric_limits<std::int64_t>::max();
constexpr Block kWide{PackedKernel::Avx512, 6, 64, 144, 8};
constexpr Block kHalfWide{PackedKernel::Avx512, 8, 32, 128, 8};
constexpr Block kNarrow{PackedKernel::Avx512, 16, 16, 128, 8};
constexpr Block kAvx2{PackedKernel::Avx2, 6, 16, 144, kUncapped};
/// The block a strip of 4 rows (a 6-row block's last rows, quadStripsFrom) runs in.
constexpr Block lastRowsOf(Block block) { return {block.kernel, 4, block.columns, block.mc, block.prefetchBurstMost}; }
constexpr std::int64_t kVector512 = 16, kVector256 = 8;

/// What a micro-kernel does with its finished tile T besides C = scale C + T: with squares set,
/// the SGD step C = C - rate T instead (T being the gradient of the parameters C, whole: depth is
/// all of k), and Σ T² of the tile written to *squares; with bias set (and scale 0), C = T +
/// bias[column], the bias laid under the first block of k; with relu, C = max(C, 0) once the tile
/// is whole (the last block of k): a dense layer's forward pass written in the product's own
/// write-back instead of one pass laying the bias down before it and one applying ReLU after it;
/// with mask set, C = mask > 0 ? C : 0 once the tile is whole (mask laid out as C, ldc apart): the
/// derivative of the ReLU whose output was mask, applied to an input gradient as it is written.
struct TileEpilogue {
    float rate = 0.0f;
    double* squares = nullptr;
    const float* bias = nullptr;
    bool relu = false;
    const float* mask = nullptr;
};

/// Calls write.template operator()<kSgd, kAccumulate, kBias, kRelu, kMask>() with the flags a
/// whole tile's write-back takes from its epilogue and scale: the one place both kernels choose
/// theirs (writeWholeTile512, writeWholeTile256), each through a lambda that names its own.
template <typename Write>
__attribute__((always_inline)) inline void withWholeTileFlags(const TileEpilogue& step, float scale, const Write& write) {
    const auto withMask = [&]<bool kAccumulate, bool kBias, bool kRelu>() __attribute__((always_inline)) {
        step.mask != nullptr ? write.template operator()<false, kAccumulate, kBias, kRelu, true>()
                             : write.template operator()<false, kAccumulate, kBias, kRelu, false>();
    };
    const auto withRelu = [&]<bool kAccumulate, bool kBias>() __attribute__((always_inline)) {
        step.relu ? withMask.template operator()<kAccumulate, kBias, true>() : withMask.template operator()<kAccumulate, kBias, false>();
    };
    const auto withBias = [&]<bool kAccumulate>() __attribute__((always_inline)) {
        step.bias != nullptr ? withRelu.template operator()<kAccumulate, true>() : withRelu.template operator()<kAccumulate, false>();
    };
    if (step.squares != nullptr)
        write.template operator()<true, false, false, false, false>();  // the SGD step
    else if (scale != 0.0f)
        withBias.template operator()<true>();
    else
        withBias.template operator()<false>();
}

/// The write-back of a whole AVX-512 tile (kRows x kVectors vectors) with what its epilogue does
/// fixed at compile time: each vector a load, an FMA or two and a store, with no branch between
/// them (the same operations as the general write-back in microKernel512, so the same bits).
/// Decided per vector, the 32 vectors' branches were most of the kernel's instructions outside
/// its k loop. The same shape as writeWholeTile256, written out per instruction set for the reason
/// microKernel256 gives.
/// Not always_inline, and no vector taken by value: the flag dispatch between the kernel and here
/// (withWholeTileFlags, built for the default target) would otherwise have to inline an AVX-512
/// function (GCC refuses) or pass a 512-bit vector without AVX-512 (clang refuses: an ABI change)
/// where -march=native has no AVX-512 (Zen 3). microKernel512's `flatten` inlines the whole chain
/// into the kernel instead: the same instructions as with always_inline (objdump, -march=sapphirerapids).
template <int kRows, int kVectors, bool kSgd, bool kAccumulate, bool kBias, bool kRelu, bool kMask>
__attribute__((target("avx512f"))) inline void writeWholeTile512(const __m512 (&sum)[kRows][kVectors], float* c, std::int64_t ldc,
                                                                 const __m512& factor, const float* bias, const float* mask) {
    __m512 biasVector[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) biasVector[v] = kBias ? _mm512_loadu_ps(bias + v * kVector512) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) {
            float* out = c + r * ldc + v * kVector512;
            __m512 value = sum[r][v];
            if constexpr (kSgd)
                value = _mm512_fnmadd_ps(factor, value, _mm512_loadu_ps(out));
            else if constexpr (kAccumulate)
                value = _mm512_fmadd_ps(factor, _mm512_loadu_ps(out), value);
            if constexpr (kBias) value = _mm512_add_ps(value, biasVector[v]);
            if constexpr (kRelu) value = _mm512_max_ps(value, _mm512_setzero_ps());  // 0 for NaN, as z > 0 ? z : 0 gives
            if constexpr (kMask)  // the compare is false for NaN: 0 there, as z > 0 ? dy : 0 gives
                value = _mm512_maskz_mov_ps(
                    _mm512_cmp_ps_mask(_mm512_loadu_ps(mask + r * ldc + v * kVector512), _mm512_setzero_ps(), _CMP_GT_OQ), value);
            _mm512_storeu_ps(out, value);
        }
}

/// C[rows, cols] (at most block.rows x block.columns) = scale C + the product of one packed A strip
/// and one packed B strip over depth values of k. scale 0 writes C without reading it (as BLAS's
/// beta 0 does). Every element is one FMA chain over k in order: the result does not depend on
/// where the tile lies, so neither on how the output was split across threads. Never inlined:
/// inlined into the blocking loops, its accumulators (16 of 8 x 32's) spilled and every product ran
/// a third slower.
template <Block block>
__attribute__((target("avx512f"), noinline, flatten)) void microKernel512(std::int64_t depth, const float* a, const float* b, float* c,
                                                                          std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                                                                          float scale, const TileEpilogue& step) {
    constexpr int kRows = static_cast<int>(block.rows), kVectors = static_cast<int>(block.columns / kVector512);
    constexpr std::int64_t kVector = kVector512;
    // Where C is only written (beta 0: the weight gradients, megabytes written once a step) or is
    // the weights an SGD step updates (read and written once a step), ask for its lines now, so
    // they have arrived by the loads and stores after the k loop instead of each waiting on memory.
    // Where C is read (an earlier block of k wrote it) it was near on the AVX-512 machines this was
    // measured on (their L2 holds C beside the packed blocks), and prefetching it measured slower;
    // on Zen 3's 512 KiB it is not (microKernel256).
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
        if ((scale == 0.0f || step.squares != nullptr) && r < rows) {  // each line of the row's run
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + v * kVector), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc + kVectors * kVector - 1), _MM_HINT_T0);
        }
    __m512 sum[kRows][kVectors];
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm512_setzero_ps();
#pragma GCC unroll 4
    for (std::int64_t p = 0; p < depth; ++p, a += kRows, b += kVectors * kVector) {
        __m512 bv[kVectors];
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) bv[v] = _mm512_load_ps(b + v * kVector);
#pragma GCC unroll 16
        for (int r = 0; r < kRows; ++r) {
            const __m512 ar = _mm512_set1_ps(a[r]);
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm512_fmadd_ps(ar, bv[v], sum[r][v]);
        }
    }
    // The SGD step: C = C - rate T, and Σ T² of the tile (padding rows and columns of T hold 0).
    const bool sgd = step.squares != nullptr;
    if (sgd) {
        __m512 squares = _mm512_setzero_ps();
#pragma GCC unroll 16
        for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) squares = _mm512_fmadd_ps(sum[r][v], sum[r][v], squares);
        *step.squares =
            _mm512_reduce_add_pd(_mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(squares)),
                                               _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(squares), 1)))));
    }
    const __m512 factor = _mm512_set1_ps(sgd ? step.rate : scale);
    if (rows == kRows && cols == block.columns) {
        withWholeTileFlags(
            step, scale, [&]<bool kSgd, bool kAccumulate, bool kBias, bool kRelu, bool kMask>() __attribute__((always_inline)) {
                writeWholeTile512<kRows, kVectors, kSgd, kAccumulate, kBias, kRelu, kMask>(sum, c, ldc, factor, step.bias, step.mask);
            });
        return;
    }
    // An edge tile: its columns that lie in C written through masks.
    __mmask16 valid[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
        const std::int64_t n = cols - v * kVector;
        valid[v] = static_cast<__mmask16>(n >= kVector ? 0xFFFFu : n <= 0 ? 0u : (1u << n) - 1u);
    }
    __m512 bias[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v)
        bias[v] = step.bias != nullptr ? _mm512_maskz_loadu_ps(valid[v], step.bias + v * kVector) : _mm512_setzero_ps();
#pragma GCC unroll 16
    for (int r = 0; r < kRows; ++r) {
        if (r >= rows) break;
        float* row = c + r * ldc;
#pragma GCC unroll 4
        for (int v = 0; v < kVectors; ++v) {
            __m512 value = sum[r][v];
            if (sgd)
                value = _mm512_fnmadd_ps(factor, value, _mm512_maskz_loadu_ps(valid[v], row + v * kVector));
            else if (scale != 0.0f)
                value = _mm512_fmadd_ps(factor, _mm512_maskz_loadu_ps(valid[v], row + v * kVector), value);
            if (step.bias != nullptr) value = _mm512_add_ps(value, bias[v]);
            if (step.relu) value = _mm512_max_ps(value, _mm512_setzero_ps());  // max_ps gives 0 for NaN, as z > 0 ? z : 0 does
            if (step.mask != nullptr)  // the compare is false for NaN: 0 there, as z > 0 ? dy : 0 gives
                value = _mm512_maskz_mov_ps(
                    _mm512_cmp_ps_mask(_mm512_maskz_loadu_ps(valid[v], step.mask + r * ldc + v * kVector), _mm512_setzero_ps(), _CMP_GT_OQ),
                    value);
            _mm512_mask_storeu_ps(row + v * kVector, valid[v], value);
        }
    }
}

/// The write-back of an edge tile (fewer rows or columns than the register block): element by
/// element (AVX2's masked stores are slow), the same operations as the vectors of a whole tile, so
/// the same bits; out of line, so the kernels' code stays small (unrolled in place, the AVX2
/// kernel's edge cases made it 70 KiB).
__attribute__((noinline)) inline void writeEdgeTile(const float* tile, std::int64_t tileColumns, float* c, std::int64_t ldc,
                                                    std::int64_t rows, std::int64_t cols, float scale, const TileEpilogue& step) {
    const bool sgd = step.squares != nullptr;
    for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < cols; ++j) {
            float& out = c[r * ldc + j];
            const float t = tile[r * tileColumns + j];
            float value = sgd ? sgdStep(out, t, step.rate) : scale != 0.0f ? std::fma(scale, out, t) : t;
            if (step.bias != nullptr) value += step.bias[j];
            if (step.relu) value = value > 0.0f ? value : 0.0f;
            if (step.mask != nullptr) value = step.mask[r * ldc + j] > 0.0f ? value : 0.0f;
            out = value;
        }
}

/// The write-back of a whole AVX2 tile (kRows x 16) with what its epilogue does fixed at compile time:
/// each of its 12 vectors a load, an FMA or two and a store, with no branch between them (decided
/// per vector, the write-back was a tenth of the kernel's time in W1's first product).
template <int kRows, bool kSgd, bool kAccumulate, bool kBias, bool kRelu, bool kMask>
__attribute__((target("avx2,fma"), always_inline)) inline void writeWholeTile256(const __m256 (&sum)[kRows][2], float* c, std::int64_t ldc,
                                                                                 __m256 factor, const float* bias, const float* mask) {
    __m256 biasVector[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    if constexpr (kBias) biasVector[0] = _mm256_loadu_ps(bias), biasVector[1] = _mm256_loadu_ps(bias + kVector256);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < 2; ++v) {
            float* out = c + r * ldc + v * kVector256;
            __m256 value = sum[r][v];
            if constexpr (kSgd)
                value = _mm256_fnmadd_ps(factor, value, _mm256_loadu_ps(out));
            else if constexpr (kAccumulate)
                value = _mm256_fmadd_ps(factor, _mm256_loadu_ps(out), value);
            if constexpr (kBias) value = _mm256_add_ps(value, biasVector[v]);
            if constexpr (kRelu) value = _mm256_max_ps(value, _mm256_setzero_ps());  // 0 for NaN, as z > 0 ? z : 0 gives
            if constexpr (kMask)  // the compare is false for NaN: 0 there, as z > 0 ? dy : 0 gives
                value =
                    _mm256_and_ps(value, _mm256_cmp_ps(_mm256_loadu_ps(mask + r * ldc + v * kVector256), _mm256_setzero_ps(), _CMP_GT_OQ));
            _mm256_storeu_ps(out, value);
        }
}

/// The AVX2 micro-kernel, kRows (6, or 4 for a block's last rows: quadStripsFrom) by 16 columns:
/// the same contract and the same arithmetic as microKernel512 (each element one FMA chain over k
/// in order, then scale C added by one FMA), so a product has the same bits on either kernel.
/// Written out again rather than shared with it through a vector-type template: a function's
/// target instruction set cannot follow a template argument, and each kernel must be compiled for
/// its own.
template <int kRows>
__attribute__((target("avx2,fma"), noinline)) void microKernel256(std::int64_t depth, const float* a, const float* b, float* c,
                                                                  std::int64_t ldc, std::int64_t rows, std::int64_t cols, float scale,
                                                                  const TileEpilogue& step) {
    constexpr int kVectors = static_cast<int>(kAvx2.columns / kVector256);
    // Ask for C's lines now, so they have arrived by the loads and stores after the k loop (see
    // microKernel512), also where an earlier block of k wrote C: with the packed A and B blocks
    // beside it, W1's first layer's output (256 KiB) no longer fits Zen 3's L2 by the next block
    // (that product 0.84 -> 0.91 of OpenBLAS's speed, W3's first 0.99 -> 1.06, each alternated with
    // OpenBLAS in one process, 41 rounds).
    for (int r = 0; r < kRows && r < rows; ++r) _mm_prefetch(reinterpret_cast<const char*>(c + r * ldc), _MM_HINT_T0);
    __m256 sum[kRows][kVectors];
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm256_setzero_ps();
            // Unrolled: the loop's pointer and count updates, compare and branch were a fifth of its
            // instructions (beside 12 FMAs, 2 loads and 6 broadcasts). W1's and W3's products 0.4-9 %
            // faster unrolled by 8 (by 4: 3-9 %; by 16 no faster than by 8), alternated in one process.
#pragma GCC unroll 8
    for (std::int64_t p = 0; p < depth; ++p, a += kRows, b += kVectors * kVector256) {
        __m256 bv[kVectors];
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) bv[v] = _mm256_load_ps(b + v * kVector256);
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r) {
            const __m256 ar = _mm256_broadcast_ss(a + r);
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v) sum[r][v] = _mm256_fmadd_ps(ar, bv[v], sum[r][v]);
        }
    }
    const bool sgd = step.squares != nullptr;
    if (sgd) {  // Σ T² of the tile (see microKernel512)
        __m256 squares = _mm256_setzero_ps();
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
            for (int v = 0; v < kVectors; ++v) squares = _mm256_fmadd_ps(sum[r][v], sum[r][v], squares);
        const __m256d wide =
            _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(squares)), _mm256_cvtps_pd(_mm256_extractf128_ps(squares, 1)));
        const __m128d half = _mm_add_pd(_mm256_castpd256_pd128(wide), _mm256_extractf128_pd(wide, 1));
        *step.squares = _mm_cvtsd_f64(_mm_add_sd(half, _mm_unpackhi_pd(half, half)));
    }
    const __m256 factor = _mm256_set1_ps(sgd ? step.rate : scale);
    if (rows == kRows && cols == kAvx2.columns) {
        withWholeTileFlags(
            step, scale, [&]<bool kSgd, bool kAccumulate, bool kBias, bool kRelu, bool kMask>() __attribute__((always_inline)) {
                writeWholeTile256<kRows, kSgd, kAccumulate, kBias, kRelu, kMask>(sum, c, ldc, factor, step.bias, step.mask);
            });
        return;
    }
    // An edge tile: out of line, from the tile stored.
    alignas(32) float tile[kRows][kAvx2.columns];
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r)
#pragma GCC unroll 2
        for (int v = 0; v < kVectors; ++v) _mm256_store_ps(&tile[r][v * kVector256], sum[r][v]);
    writeEdgeTile(&tile[0][0], kAvx2.columns, c, ldc, rows, cols, scale, step);
}

}  // namespace distlab::kernels::micro
