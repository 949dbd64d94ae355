#pragma once
// Copying the operands of the packed product (packed_product.cpp) into the layout its
// micro-kernels read: op(A) in strips of a kernel's rows, op(B) in strips of its columns, each
// strip laid out k-major. Header-only templates for that one translation unit, which instantiates
// them per register block.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "model/matrix_product.hpp"

namespace distlab::kernels::packing {

// The AVX2 packing of A stores 8 floats per k where 6 are meant (the next store overwrites the
// rest): the last one runs up to this far past the strip.
inline constexpr std::int64_t kPackSlack = 8;

/// out[p width + r] = source[r ld + p] for r < valid, 0 for valid <= r < width, p < depth: one
/// strip of rows laid out k-major (a packed strip of op(A) = A, or of op(B) = B^T). Rows read
/// along their length and transposed eight by eight in registers: element by element, these
/// copies took a seventh of W3's step. With `next` (the first row of the next strip, ld apart,
/// all of its width rows whole), the next strip's rows are asked for in L1 a line at a time as
/// this one is copied: a first layer reads its batch where it lies in the data set (gatherBatch),
/// in runs of a kilobyte per row that the hardware prefetchers barely learn before they end (W1's
/// first forward 1 %, W3's 3 % faster, with the batch from memory; 19 and 21 of 31 rounds of
/// packed_product_ab.sh). AVX only, so both kernels' CPUs run it. A strip of 6 or 4
/// rows (the AVX2 kernel's) is transposed as 8 with zero rows, and each k's 8 values are stored
/// where its 6 or 4 belong, in k order, so each store's last ones are overwritten by the next k's
/// (the strip's last store runs up to kPackSlack floats past it).
template <std::int64_t width>
__attribute__((target("avx2"), always_inline)) inline __m256 stripRow(const float* source, std::int64_t ld, std::int64_t r,
                                                                      std::int64_t p) {
    return r < width ? _mm256_loadu_ps(source + r * ld + p) : _mm256_setzero_ps();  // rows past a 6- or 4-row strip: zeros
}

template <std::int64_t width>
__attribute__((target("avx2"))) void transposeStrip(const float* source, std::int64_t ld, std::int64_t valid, std::int64_t depth,
                                                    float* out, const float* next = nullptr) {
    static_assert(width % 8 == 0 || width == 6 || width == 4);
    constexpr std::int64_t kLoaded = width < 8 ? 8 : width;
    std::int64_t p = 0;
    if (valid == width)
        for (; p + 8 <= depth; p += 8) {
            if (next != nullptr && p % 16 == 0)  // a line of each of the next strip's rows
#pragma GCC unroll 16
                for (std::int64_t q = 0; q < width; ++q) _mm_prefetch(reinterpret_cast<const char*>(next + q * ld + p), _MM_HINT_T0);
            for (std::int64_t r = 0; r < kLoaded; r += 8) {
                __m256 row[8];
#pragma GCC unroll 8
                for (int q = 0; q < 8; ++q) row[q] = stripRow<width>(source, ld, r + q, p);
                const __m256 t0 = _mm256_unpacklo_ps(row[0], row[1]);
                const __m256 t1 = _mm256_unpackhi_ps(row[0], row[1]);
                const __m256 t2 = _mm256_unpacklo_ps(row[2], row[3]);
                const __m256 t3 = _mm256_unpackhi_ps(row[2], row[3]);
                const __m256 t4 = _mm256_unpacklo_ps(row[4], row[5]);
                const __m256 t5 = _mm256_unpackhi_ps(row[4], row[5]);
                const __m256 t6 = _mm256_unpacklo_ps(row[6], row[7]);
                const __m256 t7 = _mm256_unpackhi_ps(row[6], row[7]);
                const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
                const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
                const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
                const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
                float* column = out + p * width + r;  // column q of the 8 x 8 block goes to k = p + q
                _mm256_storeu_ps(column, _mm256_permute2f128_ps(s0, s4, 0x20));
                _mm256_storeu_ps(column + width, _mm256_permute2f128_ps(s1, s5, 0x20));
                _mm256_storeu_ps(column + 2 * width, _mm256_permute2f128_ps(s2, s6, 0x20));
                _mm256_storeu_ps(column + 3 * width, _mm256_permute2f128_ps(s3, s7, 0x20));
                _mm256_storeu_ps(column + 4 * width, _mm256_permute2f128_ps(s0, s4, 0x31));
                _mm256_storeu_ps(column + 5 * width, _mm256_permute2f128_ps(s1, s5, 0x31));
                _mm256_storeu_ps(column + 6 * width, _mm256_permute2f128_ps(s2, s6, 0x31));
                _mm256_storeu_ps(column + 7 * width, _mm256_permute2f128_ps(s3, s7, 0x31));
            }
        }
    // The rest: the last columns of k, or a strip with padding rows.
    for (std::int64_t r = 0; r < width; ++r) {
        const float* sourceRow = source + r * ld;
        for (std::int64_t q = p; q < depth; ++q) out[q * width + r] = r < valid ? sourceRow[q] : 0.0f;
    }
}

/// transposeStrip's layout for a strip of B^T on AVX-512 (width a multiple of 16): sixteen rows
/// at a time, transposed sixteen by sixteen in registers, three shuffle stages over whole
/// 512-bit vectors instead of four over halves of eight; the rest of k, and strips with padding
/// rows, as transposeStrip copies them. The same values in the same places, so the same bits.
template <std::int64_t width>
__attribute__((target("avx512f"))) void transposeStrip512(const float* source, std::int64_t ld, std::int64_t valid, std::int64_t depth,
                                                          float* out) {
    static_assert(width % 16 == 0);
    std::int64_t p = 0;
    if (valid == width)
        for (; p + 16 <= depth; p += 16)
            for (std::int64_t r = 0; r < width; r += 16) {
                __m512 row[16], t[16], u[16], v[16];
#pragma GCC unroll 16
                for (int q = 0; q < 16; ++q) row[q] = _mm512_loadu_ps(source + (r + q) * ld + p);
                    // Pairs of rows interleaved, then pairs of those: in each 128-bit lane L of u[4g + c]
                    // lie rows 4g..4g+3 of column 4L + c.
#pragma GCC unroll 8
                for (int q = 0; q < 16; q += 2) {
                    t[q] = _mm512_unpacklo_ps(row[q], row[q + 1]);
                    t[q + 1] = _mm512_unpackhi_ps(row[q], row[q + 1]);
                }
#pragma GCC unroll 4
                for (int g = 0; g < 16; g += 4) {
                    u[g] = _mm512_shuffle_ps(t[g], t[g + 2], 0x44);
                    u[g + 1] = _mm512_shuffle_ps(t[g], t[g + 2], 0xEE);
                    u[g + 2] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0x44);
                    u[g + 3] = _mm512_shuffle_ps(t[g + 1], t[g + 3], 0xEE);
                }
                // Lanes gathered: v[c] (c < 4) holds columns c (lanes 0, 2) and 8 + c (lanes 1, 3)
                // of rows 0-7, v[4 + c] columns 4 + c and 12 + c; v[8 + ...] the same of rows 8-15.
#pragma GCC unroll 4
                for (int c = 0; c < 4; ++c) {
                    v[c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0x88);
                    v[4 + c] = _mm512_shuffle_f32x4(u[c], u[4 + c], 0xDD);
                    v[8 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0x88);
                    v[12 + c] = _mm512_shuffle_f32x4(u[8 + c], u[12 + c], 0xDD);
                }
                float* column = out + p * width + r;  // column q of the 16 x 16 block goes to k = p + q
#pragma GCC unroll 4
                for (int c = 0; c < 4; ++c) {
                    _mm512_storeu_ps(column + c * width, _mm512_shuffle_f32x4(v[c], v[8 + c], 0x88));
                    _mm512_storeu_ps(column + (4 + c) * width, _mm512_shuffle_f32x4(v[4 + c], v[12 + c], 0x88));
                    _mm512_storeu_ps(column + (8 + c) * width, _mm512_shuffle_f32x4(v[c], v[8 + c], 0xDD));
                    _mm512_storeu_ps(column + (12 + c) * width, _mm512_shuffle_f32x4(v[4 + c], v[12 + c], 0xDD));
                }
            }
    if (p < depth) transposeStrip<width>(source + p, ld, valid, depth - p, out + p * width);
}

/// What transposeStripNarrow512 permutes with, for a strip `width` (4 or 6) rows wide: 16 values of
/// k of every row make `width` output vectors; lane i of output j is element e = 16 j + i of the
/// strip's k-major run, row e % width's value of k = e / width. Rows are taken in pairs (2g, 2g + 1)
/// by one two-source permute each, whose index is the same for every pair (k, and which row of
/// the pair); the pairs' results are then blended by the lanes each pair fills.
template <std::int64_t width>
struct NarrowTransposePlan {
    std::array<std::array<std::int32_t, 16>, width> index{};
    std::array<std::array<std::uint16_t, width / 2>, width> pairLanes{};  // [output][pair]
    constexpr NarrowTransposePlan() {
        for (std::int64_t j = 0; j < width; ++j)
            for (int i = 0; i < 16; ++i) {
                const std::int64_t e = 16 * j + i, row = e % width;
                index[j][i] = static_cast<std::int32_t>(e / width + (row % 2) * 16);
                pairLanes[j][row / 2] = static_cast<std::uint16_t>(pairLanes[j][row / 2] | (1u << i));
            }
    }
};

/// transposeStrip for an A strip of 4 or 6 rows on AVX-512: 16 values of k at a time, each row one
/// load, the strip's run written as `width` whole vectors (no 8-wide stores overlapping as
/// transposeStrip's do): width / 2 two-source permutes and width / 2 - 1 blends per vector,
/// about half the shuffles of transposing eight rows (two of them zeros) eight by eight. The same
/// prefetch of the next strip's rows; the rest of k as transposeStrip copies it. The same values
/// in the same places, so the same bits.
template <std::int64_t width>
__attribute__((target("avx512f"))) void transposeStripNarrow512(const float* source, std::int64_t ld, std::int64_t valid,
                                                                std::int64_t depth, float* out, const float* next = nullptr) {
    static_assert(width == 4 || width == 6);
    static constexpr NarrowTransposePlan<width> kPlan{};
    std::int64_t p = 0;
    if (valid == width) {
        __m512i index[width];
#pragma GCC unroll 6
        for (std::int64_t j = 0; j < width; ++j) index[j] = _mm512_loadu_si512(kPlan.index[j].data());
        for (; p + 16 <= depth; p += 16) {
            if (next != nullptr)  // a line of each of the next strip's rows
#pragma GCC unroll 6
                for (std::int64_t q = 0; q < width; ++q) _mm_prefetch(reinterpret_cast<const char*>(next + q * ld + p), _MM_HINT_T0);
            __m512 row[width];
#pragma GCC unroll 6
            for (std::int64_t r = 0; r < width; ++r) row[r] = _mm512_loadu_ps(source + r * ld + p);
#pragma GCC unroll 6
            for (std::int64_t j = 0; j < width; ++j) {
                __m512 vector = _mm512_permutex2var_ps(row[0], index[j], row[1]);
#pragma GCC unroll 2
                for (std::int64_t g = 1; g < width / 2; ++g)
                    vector =
                        _mm512_mask_blend_ps(kPlan.pairLanes[j][g], vector, _mm512_permutex2var_ps(row[2 * g], index[j], row[2 * g + 1]));
                _mm512_storeu_ps(out + p * width + 16 * j, vector);
            }
        }
    }
    if (p < depth) transposeStrip<width>(source + p, ld, valid, depth - p, out + p * width);
}

/// The strips of width columns of source[0, depth) x [0, cols) (rows ld apart), each laid out
/// k-major, the last padded with zeros: out[(j / width) depth width + p width + c] =
/// source[p ld + j + c]; packed strips of op(A) = A^T or op(B) = B. Swept eight rows at a time,
/// each row read along its length: strip by strip, every read began a new page (rows of W3's first
/// layer are 4 KiB apart), which the hardware does not prefetch across, and the copy of that
/// layer's weights waited on memory for a sixteenth of the step; row by row, each row's pieces went
/// to strips kilobytes apart, 24 or 64 bytes each, and the weight gradients' copy of A^T (6 wide)
/// took 3.6 % of W1's step. Eight rows give each strip a run of 8 x width floats, whole cache lines
/// (the weight-gradient products 3-7 % faster, alternated in one process, the others unchanged).
template <std::int64_t width>
__attribute__((target("avx2"))) void copyStrips(const float* source, std::int64_t ld, std::int64_t cols, std::int64_t depth, float* out) {
    constexpr std::int64_t kRowsAtOnce = 8;
    const std::int64_t whole = cols / width * width;
    for (std::int64_t p = 0; p < depth; p += kRowsAtOnce) {
        const std::int64_t rows = std::min(kRowsAtOnce, depth - p);
        const float* first = source + p * ld;
        float* strip = out + p * width;
        // A few vector moves each (GCC had copied the 6-wide runs value by value); the fixed count
        // unrolled for the full groups of rows.
        if (rows == kRowsAtOnce)
            for (std::int64_t j = 0; j < whole; j += width, strip += depth * width) {
#pragma GCC unroll 8
                for (std::int64_t q = 0; q < kRowsAtOnce; ++q) std::memcpy(strip + q * width, first + q * ld + j, width * sizeof(float));
            }
        else
            for (std::int64_t j = 0; j < whole; j += width, strip += depth * width)
                for (std::int64_t q = 0; q < rows; ++q) std::memcpy(strip + q * width, first + q * ld + j, width * sizeof(float));
        if (whole < cols)
            for (std::int64_t q = 0; q < rows; ++q)
                for (std::int64_t c = 0; c < width; ++c) strip[q * width + c] = whole + c < cols ? first[q * ld + whole + c] : 0.0f;
    }
}

/// op(A)[0, rows) x [0, depth) into strips of kMr rows, each laid out k-major (the kMr values of one
/// k together, as the micro-kernel broadcasts them); the last strip padded with zeros. kAvx512:
/// A's strips of 4 and 6 rows transposed with AVX-512 (transposeStripNarrow512), for the AVX-512
/// kernels' products.
template <std::int64_t kMr, bool kAvx512>
void packA(Op opA, const float* a, std::int64_t lda, std::int64_t rows, std::int64_t depth, float* out) {
    if (opA == Op::Transpose) return copyStrips<kMr>(a, lda, rows, depth, out);  // op(A)[i][p] = a[p lda + i]
    for (std::int64_t i = 0; i < rows; i += kMr, out += depth * kMr) {           // op(A)[i + r][p] = a[(i + r) lda + p]
        const float* next = i + 2 * kMr <= rows ? a + (i + kMr) * lda : nullptr;
        if constexpr (kAvx512 && (kMr == 4 || kMr == 6))
            transposeStripNarrow512<kMr>(a + i * lda, lda, std::min(kMr, rows - i), depth, out, next);
        else
            transposeStrip<kMr>(a + i * lda, lda, std::min(kMr, rows - i), depth, out, next);
    }
}

/// op(B)[0, depth) x [0, cols) into strips of kNr columns, each laid out k-major (kNr values of one
/// k together, the micro-kernel's vector loads); the last strip padded with zeros. kAvx512: B^T's
/// strips transposed with AVX-512 (transposeStrip512), for the AVX-512 kernels' products.
template <std::int64_t kNr, bool kAvx512>
void packB(Op opB, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols, float* out) {
    if (opB == Op::None) return copyStrips<kNr>(b, ldb, cols, depth, out);  // op(B)[p][j] = b[p ldb + j]
    for (std::int64_t j = 0; j < cols; j += kNr, out += depth * kNr) {      // op(B)[p][j + c] = b[(j + c) ldb + p]
        if constexpr (kAvx512)
            transposeStrip512<kNr>(b + j * ldb, ldb, std::min(kNr, cols - j), depth, out);
        else
            transposeStrip<kNr>(b + j * ldb, ldb, std::min(kNr, cols - j), depth, out);
    }
}

}  // namespace distlab::kernels::packing
