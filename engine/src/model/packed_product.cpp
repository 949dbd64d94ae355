#include "model/packed_product.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/micro_kernels.hpp"
#include "model/operand_packing.hpp"
#include "tensor/parallel_ranges.hpp"
#include "tensor/team_split.hpp"

namespace distlab::kernels {
namespace {

using packing::kPackSlack;
using packing::packA;
using packing::packB;

using namespace micro;

// The cache blocks: one packed B micro-panel (kKc x its columns floats: 16-32 KiB, held in L1; 64
// KiB for AVX-512's wide block, streamed from L2) is reused by every row strip of the packed A
// block (mc x kKc, 128-144 KiB, held in L2) before the next one is read. kNc is a multiple of
// every block's columns. On Zen 3 (512 KiB of L2, so the packed B block of 1 MiB lives in L3) B
// blocks of 256 and 512 columns and A blocks of 288 rows measured no faster, within the shared
// VM's spread.
constexpr std::int64_t kKc = 256;
constexpr std::int64_t kNc = 1024;
constexpr std::int64_t kMcMost = 144;
constexpr std::int64_t kKcMost = 320;
static_assert(kPackedSgdDepthMost <= kKc, "the SGD step needs each tile finished in one block of k");

/// How deep the block of k from pc is: kKc, except that what is left is taken whole while it is at
/// most kKcMost deep, instead of as a thin last block that reads and writes all of C again for
/// little work (W1's first layer: 784 = 256 + 256 + 272, not + 16). The same blocks on every
/// kernel, so the same bits. On AVX2 a B micro-panel 320 deep is 20 KiB, beside an A strip of
/// 7.5 KiB in Zen 3's 32 KiB L1.
constexpr std::int64_t blockDepth(std::int64_t pc, std::int64_t k) { return k - pc <= kKcMost ? k - pc : kKc; }
// An output (one thread's part of C) above this size streams from memory each step rather than
// staying in the caches (Zen 3's L2 is 512 KiB): above it the weight gradients walk rows first
// (productBlock). W1's largest, 784 x 256 floats, stays below; W3's, 1,536 x 1,024 per thread,
// lies above.
constexpr std::int64_t kStreamedOutputBytes = std::int64_t{1} << 20;
// The part of B's packed block that a rows-first walk keeps in L2 beside A's block: half of Zen 3's
// L2 (512 columns of a 128-deep block).
constexpr std::int64_t kSubBlockBytes = std::int64_t{256} << 10;
// Below this many flops (about 10 microseconds on one core) the team is not woken.
constexpr double kParallelMinimumFlops = 1e6;

/// Where a block of `rows` rows of A goes on in strips of 4 in a block of 6-row strips (AVX2's and
/// AVX-512's wide; rows if it does not): its last rows, where strips of 4 compute fewer rows of
/// padding than strips of 6 would (7 or 8 left as 4 + 4, 1 to 4 as one 4; a batch of 128 rows as
/// 20 x 6 + 2 x 4, not 22 x 6 with 4 rows of zeros). The 4-row kernels keep 8 (AVX2) or 16
/// (AVX-512) accumulators, enough to fill two FMA pipes, so a strip of 4 costs two thirds of one
/// of 6.
constexpr std::int64_t quadStripsFrom(std::int64_t rows) {
    const std::int64_t left = rows % 6;
    if (left == 0 || left == 5) return rows;
    if (left >= 3) return rows - left;
    return rows >= 6 ? rows - left - 6 : 0;
}

/// The register block a kernel uses for outputs n wide.
constexpr Block blockFor(PackedKernel kernel, std::int64_t n) {
    return kernel == PackedKernel::Avx2 ? kAvx2 : n <= kNarrow.columns ? kNarrow : n <= kHalfWide.columns ? kHalfWide : kWide;
}

/// One thread's packing buffers, allocated the first time the thread multiplies and kept for its
/// life: a step allocates nothing once every thread of the team has run one product.
struct alignas(64) PackBuffers {
    float a[kMcMost * kKcMost + kPackSlack];
    alignas(64) float b[kKcMost * kNc];
};

PackBuffers& threadBuffers() {
    thread_local const std::unique_ptr<PackBuffers> buffers = std::make_unique<PackBuffers>();
    return *buffers;
}


/// What a whole product does besides C = beta C + op(A) op(B): the SGD step of packedSgdStep (its
/// rate and where each tile's Σ T² goes, at tileSums[(row / tile rows) tilesPerRow + column / tile
/// columns]) where tileSums is set, packedAffineProduct's bias (a value per column) and ReLU, or
/// packedMaskedProduct's mask (laid out as C).
struct ProductEpilogue {
    float rate = 0.0f;
    double* tileSums = nullptr;
    std::int64_t tilesPerRow = 0;
    const float* bias = nullptr;
    bool relu = false;
    const float* mask = nullptr;
};


/// Walks a region of a matrix (rows of rowFloats, strideFloats apart) a few cache lines at a time,
/// asking for each in L2: the next block of B, fetched while the current one is multiplied, so
/// its copy into the packed panel finds it there instead of waiting on memory (W3's weights do
/// not stay in the caches between steps). Measured: the first layer's forward 4.65 -> 4.37 ms
/// with its weights cold (best of 30; the L1-level hint and none were slower).
class Prefetcher {
public:
    Prefetcher() = default;
    Prefetcher(const float* base, std::int64_t rows, std::int64_t rowFloats, std::int64_t strideFloats)
        : m_base(reinterpret_cast<const char*>(base)), m_rows(rows), m_lines((rowFloats * 4 + 63) / 64),
          m_stride(strideFloats * 4) {}
    std::int64_t lines() const { return m_rows * m_lines; }
    void issue(std::int64_t count) {
        for (; count > 0 && m_row < m_rows; --count) {
            _mm_prefetch(m_base + m_row * m_stride + m_line * 64, _MM_HINT_T1);
            if (++m_line == m_lines) m_line = 0, ++m_row;
        }
    }

private:
    const char* m_base = nullptr;
    std::int64_t m_rows = 0, m_lines = 0, m_stride = 0, m_row = 0, m_line = 0;
};

/// C[m, n] = beta C + op(A) op(B), then the epilogue, on the calling thread alone, blocked for the
/// caches.
template <Block block>
void productBlock(Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, std::int64_t lda,
                  const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc, const ProductEpilogue& epilogue) {
    constexpr std::int64_t kMr = block.rows, kNr = block.columns, kMc = block.mc;
    static_assert(kMc % kMr == 0 && kNc % kNr == 0 && kMc <= kMcMost);
    PackBuffers& buffers = threadBuffers();
    // How the tiles of a block are walked. Usually B's panel is the outer loop: held in L1 while A's
    // strips (from L2) pass under it, C visited a column of tiles at a time, each row of the tile a
    // line in a different page. Where all of k is one block and C is too large to stay in the caches
    // between steps (the weight gradients of a large layer, whose SGD step reads and writes the
    // weights from memory), A's strip is the outer loop instead, over a part of B's block small
    // enough to stay in L2 beside A's: C's rows are then read and written in runs of lines the
    // hardware prefetchers follow, not one line per page. Each tile is the same FMA chains either
    // way, so the same bits.
    const bool rowsFirst = blockDepth(0, k) == k && m * n * 4 > kStreamedOutputBytes;
    const std::int64_t subColumns = rowsFirst ? std::max(kNr, kSubBlockBytes / (k * 4) / kNr * kNr) : kNc;
    // op(B)'s block of rows [pc, pc + its depth) and columns [jc, jc + kNc), as a region of b.
    const auto regionOfB = [&](std::int64_t jc, std::int64_t pc) {
        const std::int64_t nc = std::min(kNc, n - jc), kc = blockDepth(pc, k);
        return opB == Op::None ? Prefetcher(b + pc * ldb + jc, kc, nc, ldb) : Prefetcher(b + jc * ldb + pc, nc, kc, ldb);
    };
    for (std::int64_t jc = 0; jc < n; jc += kNc) {
        const std::int64_t nc = std::min(kNc, n - jc);
        for (std::int64_t pc = 0, kc = 0; pc < k; pc += kc) {
            kc = blockDepth(pc, k);
            packB<kNr>(opB, opB == Op::None ? b + pc * ldb + jc : b + jc * ldb + pc, ldb, kc, nc, buffers.b);
            Prefetcher next;  // the block packed after this one, spread over this block's micro-kernel calls
            if (pc + kc < k) next = regionOfB(jc, pc + kc);
            else if (jc + kNc < n) next = regionOfB(jc + kNc, 0);
            const std::int64_t calls = (m + kMr - 1) / kMr * ((nc + kNr - 1) / kNr);
            const std::int64_t linesPerCall = (next.lines() + calls - 1) / calls;
            const float scale = pc == 0 ? beta : 1.0f;  // beta once, then each block adds on
            const bool first = pc == 0, last = pc + kc >= k;
            for (std::int64_t ic = 0; ic < m; ic += kMc) {
                const std::int64_t mc = std::min(kMc, m - ic);
                // A's rows [ic, ic + mc): strips of kMr, then a 6-row block's last rows in strips of 4 (quadStripsFrom),
                // each strip starting (its first row) kc floats into the buffer.
                const std::int64_t quadFrom = kMr == 6 ? quadStripsFrom(mc) : mc;
                const auto rowsOfA = [&](std::int64_t i) { return opA == Op::None ? a + (ic + i) * lda + pc : a + pc * lda + ic + i; };
                packA<kMr>(opA, rowsOfA(0), lda, quadFrom, kc, buffers.a);
                if (quadFrom < mc) packA<4>(opA, rowsOfA(quadFrom), lda, mc - quadFrom, kc, buffers.a + quadFrom * kc);
                const auto stripRows = [&](std::int64_t ir) { return ir < quadFrom ? kMr : std::int64_t{4}; };
                // The micro-kernel on the tile of C that A's strip from row ir and B's panel from column jr make.
                const auto tile = [&](std::int64_t ir, std::int64_t jr) {
                    const std::int64_t strip = stripRows(ir);
                    next.issue(std::min(linesPerCall, block.prefetchBurstMost));
                    const auto kernel = [&] {
                        if constexpr (block.kernel == PackedKernel::Avx2) return strip == 4 ? microKernel256<4> : microKernel256<6>;
                        else if constexpr (kMr == 6) return strip == 4 ? microKernel512<lastRowsOf(block)> : microKernel512<block>;
                        else return microKernel512<block>;
                    }();
                    // A second strip of 4 takes the tile sum after the first's: (row + 5) / 6 is the
                    // strip's place in a count of 6-row strips that has room for both.
                    TileEpilogue step;
                    if (epilogue.tileSums != nullptr)
                        step = {epilogue.rate, epilogue.tileSums + (ic + ir + kMr - 1) / kMr * epilogue.tilesPerRow + (jc + jr) / kNr};
                    if (first && epilogue.bias != nullptr) step.bias = epilogue.bias + jc + jr;
                    step.relu = last && epilogue.relu;
                    if (last && epilogue.mask != nullptr) step.mask = epilogue.mask + (ic + ir) * ldc + jc + jr;
                    kernel(kc, buffers.a + ir * kc, buffers.b + jr * kc, c + (ic + ir) * ldc + jc + jr, ldc,
                           std::min(strip, mc - ir), std::min(kNr, nc - jr), scale, step);
                };
                if (rowsFirst) {
                    for (std::int64_t js = 0; js < nc; js += subColumns)
                        for (std::int64_t ir = 0; ir < mc; ir += stripRows(ir))
                            for (std::int64_t jr = js; jr < std::min(nc, js + subColumns); jr += kNr) tile(ir, jr);
                } else {
                    for (std::int64_t jr = 0; jr < nc; jr += kNr)
                        for (std::int64_t ir = 0; ir < mc; ir += stripRows(ir)) tile(ir, jr);
                }
            }
        }
    }
}

}  // namespace

std::span<const PackedKernel> packedKernels() {
    static const std::vector<PackedKernel> kernels = [] {
        __builtin_cpu_init();
        std::vector<PackedKernel> available;
        if (__builtin_cpu_supports("avx512f")) available.push_back(PackedKernel::Avx512);
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) available.push_back(PackedKernel::Avx2);
        return available;
    }();
    return kernels;
}

bool packedKernelAvailable(PackedKernel kernel) {
    const auto kernels = packedKernels();
    return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

namespace {

/// packedProduct, packedAffineProduct or packedSgdStep, as the epilogue says: the output split
/// across the team.
void productOnTeam(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                   const float* b, float beta, float* c, const ProductEpilogue& epilogue) {
    const std::int64_t lda = opA == Op::Transpose ? m : k;
    const std::int64_t ldb = opB == Op::Transpose ? k : n;
    // Split the output along its longer side: each thread packs the whole of the other operand, so
    // the copy made twice is the smaller one (x for the forward products, dz for the weight
    // gradients). A square output is split along its rows, so each thread's part of C is whole rows
    // in pages of its own rather than one half of every row: W3's second weight gradient (1,024 x
    // 1,024, its SGD step reading and writing the weights) ran 29-36 % faster so, alternated in one
    // process.
    const bool alongRows = n <= m;
    const Block block = blockFor(kernel, n);
    const auto run = block == kAvx2 ? productBlock<kAvx2>
                     : block == kNarrow ? productBlock<kNarrow>
                     : block == kHalfWide ? productBlock<kHalfWide>
                                          : productBlock<kWide>;
    const std::int64_t tile = alongRows ? block.rows : block.columns;
    const std::int64_t extent = alongRows ? m : n;
    const std::int64_t units = (extent + tile - 1) / tile;
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const int parts =
        flops < kParallelMinimumFlops ? 1 : static_cast<int>(std::min<std::int64_t>(parallelTeamSize(), units));
    const auto slice = [&](std::int64_t begin, std::int64_t end) {
        if (begin >= end) return;
        // The slice's own tiles and bias: a slice starts on a tile boundary, so its tile sums lie
        // where the whole output's do.
        ProductEpilogue own = epilogue;
        if (own.tileSums != nullptr) own.tileSums += alongRows ? begin / block.rows * own.tilesPerRow : begin / block.columns;
        if (own.bias != nullptr && !alongRows) own.bias += begin;
        if (own.mask != nullptr) own.mask += alongRows ? begin * n : begin;
        if (alongRows)
            run(opA, opB, end - begin, n, k, opA == Op::None ? a + begin * lda : a + begin, lda, b, ldb, beta,
                c + begin * n, n, own);
        else
            run(opA, opB, m, end - begin, k, a, lda, opB == Op::None ? b + begin : b + begin * ldb, ldb, beta, c + begin,
                n, own);
    };
    if (parts <= 1) {
        slice(0, extent);
        return;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(m) * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(n) << 20) ^
                              (static_cast<std::uint64_t>(k) << 40) ^ (opA == Op::Transpose ? 1u : 0u) ^
                              (opB == Op::Transpose ? 2u : 0u) ^ (kernel == PackedKernel::Avx2 ? 4u : 0u) ^
                              (epilogue.tileSums != nullptr ? 8u : 0u);
    TeamSplit split(key, units, parts);
#pragma omp parallel num_threads(parts)
    {
        // The team OpenMP gave may be smaller: then the parts are even and nothing is learnt.
        const int part = omp_get_thread_num(), count = omp_get_num_threads();
        if (count != parts) {
            slice(units * part / count * tile, std::min(extent, units * (part + 1) / count * tile));
        } else {
            const double start = TeamSplit::now();
            slice(split.begin(part) * tile, std::min(extent, split.begin(part + 1) * tile));
            split.record(part, TeamSplit::now() - start);
        }
    }
    split.update();
}

}  // namespace

void packedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                   const float* b, float beta, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {  // no products to add: C = beta C
        for (std::int64_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
        return;
    }
    productOnTeam(kernel, opA, opB, m, n, k, a, b, beta, c, ProductEpilogue{});
}

void packedAffineProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k,
                         const float* a, const float* b, const float* bias, bool relu, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) throw std::invalid_argument("packedAffineProduct: the product must sum over at least one value of k");
    productOnTeam(kernel, opA, opB, m, n, k, a, b, 0.0f, c, ProductEpilogue{.bias = bias, .relu = relu});
}

void packedMaskedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k,
                         const float* a, const float* b, const float* mask, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) throw std::invalid_argument("packedMaskedProduct: the product must sum over at least one value of k");
    productOnTeam(kernel, opA, opB, m, n, k, a, b, 0.0f, c, ProductEpilogue{.mask = mask});
}

std::int64_t packedSgdTileCount(std::int64_t m, std::int64_t n) {
    // The AVX2 kernel's 6 x 16 tiles are the smallest of all the blocks', so their count is enough for any.
    return (m + kAvx2.rows - 1) / kAvx2.rows * ((n + kAvx2.columns - 1) / kAvx2.columns);
}

double packedSgdStep(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                     const float* b, float rate, float* w, std::span<double> tileSums) {
    if (m <= 0 || n <= 0) return 0.0;
    if (k <= 0 || k > kPackedSgdDepthMost)
        throw std::invalid_argument("packedSgdStep: the gradient must be summed over 1 to " +
                                    std::to_string(kPackedSgdDepthMost) + " rows, not " + std::to_string(k));
    const Block block = blockFor(kernel, n);
    const std::int64_t tilesPerRow = (n + block.columns - 1) / block.columns;
    const std::int64_t tiles = (m + block.rows - 1) / block.rows * tilesPerRow;
    if (static_cast<std::int64_t>(tileSums.size()) < tiles) throw std::invalid_argument("packedSgdStep: too few tile sums");
    productOnTeam(kernel, opA, opB, m, n, k, a, b, 1.0f, w,
                  ProductEpilogue{.rate = rate, .tileSums = tileSums.data(), .tilesPerRow = tilesPerRow});
    // The tiles' sums in tile order: the same bits whichever thread finished which tile.
    double sum = 0.0;
    for (std::int64_t t = 0; t < tiles; ++t) sum += tileSums[static_cast<std::size_t>(t)];
    return sum;
}

}  // namespace distlab::kernels
