#include "model/packed_product.hpp"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/micro_kernels.hpp"
#include "model/operand_packing.hpp"
#include "tensor/parallel_ranges.hpp"

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
// (UnitRunner). W1's largest, 784 x 256 floats, stays below; W3's, 1,536 x 1,024 per thread,
// lies above.
constexpr std::int64_t kStreamedOutputBytes = std::int64_t{1} << 20;
// The part of B's packed block that a rows-first walk keeps in L2 beside A's block: half of Zen 3's
// L2 (512 columns of a 128-deep block).
constexpr std::int64_t kSubBlockBytes = std::int64_t{256} << 10;
// Below this many flops (about 10 microseconds on one core) the team is not woken.
constexpr double kParallelMinimumFlops = 1e6;

/// Where an output of `rows` rows goes on in strips of 4 in a block of 6-row strips (AVX2's and
/// AVX-512's wide): its last rows, whichever unit of work holds them, where strips of 4 compute fewer rows of
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

/// The most rows of 4-row strips after a 6-row block's last whole strip (quadStripsFrom): a block of
/// A's rows that ends the output takes them with it rather than leaving them a block of their own.
constexpr std::int64_t kQuadRowsMost = 8;

/// One thread's packing buffers, allocated the first time the thread multiplies and kept for its
/// life: a step allocates nothing once every thread of the team has run one product.
struct alignas(64) PackBuffers {
    float a[(kMcMost + kQuadRowsMost) * kKcMost + kPackSlack];
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

/// The blocks of k: kKc deep from 0, the last as deep as blockDepth takes it.
constexpr std::int64_t blockCountOf(std::int64_t k) { return k <= kKcMost ? 1 : 1 + (k - kKcMost + kKc - 1) / kKc; }

/// How one block of k of the output is cut into units of work along one side (its rows or its
/// columns, `extent` long): units `coarse` long from 0, then, from `fineFrom`, units `fine` long,
/// so that the team's threads run out of work within one fine unit of each other; no cut at or
/// after `cutsBefore` (a 6-row block's strips of 4 stay with the unit before them), the last unit
/// running to the end. Every cut lies on a tile boundary.
struct Cuts {
    std::int64_t extent = 0, cutsBefore = 0, coarse = 1, fineFrom = 0, fine = 1;

    std::int64_t coarseCount() const { return (std::min(fineFrom, cutsBefore) + coarse - 1) / coarse; }
    std::int64_t count() const {
        const std::int64_t fineCount = fineFrom < cutsBefore ? (cutsBefore - fineFrom + fine - 1) / fine : 0;
        return std::max<std::int64_t>(1, coarseCount() + fineCount);
    }
    std::int64_t begin(std::int64_t unit) const {
        const std::int64_t coarseUnits = coarseCount();
        return unit == 0 ? 0 : unit < coarseUnits ? unit * coarse : fineFrom + (unit - coarseUnits) * fine;
    }
    std::int64_t end(std::int64_t unit) const { return unit + 1 < count() ? begin(unit + 1) : extent; }
    /// The unit that holds position `at`.
    std::int64_t containing(std::int64_t at) const {
        return std::min(count() - 1, at < fineFrom ? at / coarse : coarseCount() + (at - fineFrom) / fine);
    }
};

/// One unit of a product's work: the tiles of C in [rows) x [columns) over one block of k, from
/// `depth` rows of k at `from`.
struct Unit {
    std::int64_t index = 0, block = 0, from = 0, depth = 0;
    std::int64_t rowsBegin = 0, rowsEnd = 0, columnsBegin = 0, columnsEnd = 0;
};

/// How a product's work is cut into units, and the order the team claims them in. Split along the
/// rows, A's rows are cut, in the order (B's block of kNc columns, block of k, rows): each thread
/// packs each block of B it works under whole, as before units were claimed. Split along the
/// columns (only where all of op(A)'s rows are one block of A, so the team shares that block),
/// B's columns are cut, in the order (block of k, columns). Only the last block of k is cut into
/// fine units at its end; a unit may start once the unit of the block of k before it that holds
/// its last row or column is finished (unitBefore), so every element of C sums its blocks of k in
/// order whichever thread took which.
struct ProductPlan {
    bool alongRows = true;
    std::int64_t m = 0, n = 0, k = 0;
    std::int64_t blocks = 1;  // of k
    std::int64_t outer = 1;   // B's blocks of kNc columns (along rows) or 1
    int parts = 1;            // the team's threads
    Cuts cuts, lastCuts;      // a block of k's, and the last block's

    std::int64_t unitsPerOuter() const { return (blocks - 1) * cuts.count() + lastCuts.count(); }
    std::int64_t units() const { return outer * unitsPerOuter(); }
    const Cuts& cutsOf(std::int64_t block) const { return block + 1 < blocks ? cuts : lastCuts; }

    Unit at(std::int64_t index) const {
        const std::int64_t perOuter = unitsPerOuter(), o = index / perOuter, rest = index % perOuter;
        Unit unit{.index = index, .block = std::min(blocks - 1, rest / cuts.count())};
        const std::int64_t within = rest - unit.block * cuts.count();
        unit.from = unit.block * kKc;
        unit.depth = blockDepth(unit.from, k);
        const Cuts& own = cutsOf(unit.block);
        if (alongRows) {
            unit.rowsBegin = own.begin(within), unit.rowsEnd = own.end(within);
            unit.columnsBegin = o * kNc, unit.columnsEnd = std::min(n, unit.columnsBegin + kNc);
        } else {
            unit.rowsBegin = 0, unit.rowsEnd = m;
            unit.columnsBegin = own.begin(within), unit.columnsEnd = own.end(within);
        }
        return unit;
    }

    /// The unit that must be finished before `unit` starts (-1 for none): the one of the block of k
    /// before holding its last row (along rows) or column, every unit before it being finished too.
    std::int64_t unitBefore(const Unit& unit) const {
        if (unit.block == 0) return -1;
        const std::int64_t last = alongRows ? unit.rowsEnd - 1 : unit.columnsEnd - 1;
        const std::int64_t blockStart = unit.index - (unit.index % unitsPerOuter()) + (unit.block - 1) * cuts.count();
        return blockStart + cutsOf(unit.block - 1).containing(last);
    }
};

/// The rows of a 6-row block's strips of 4 (from quadStripsFrom(m)); m for the other blocks.
constexpr std::int64_t quadRowsFrom(Block block, std::int64_t m) { return block.rows == 6 ? quadStripsFrom(m) : m; }

/// The plan of an m x n product for a team of `parts` threads.
template <Block block>
ProductPlan planFor(std::int64_t m, std::int64_t n, std::int64_t k, int parts) {
    constexpr std::int64_t kMr = block.rows, kNr = block.columns;
    const auto roundUp = [](std::int64_t value, std::int64_t to) { return (value + to - 1) / to * to; };
    ProductPlan plan{.m = m, .n = n, .k = k, .blocks = blockCountOf(k), .parts = parts};
    // Along the columns where the output is wider than tall and its rows are one block of A: every
    // thread then packs the same block of A per block of k, and its own columns of B.
    plan.alongRows = parts <= 1 || n <= m || m > block.mc;
    if (plan.alongRows) {
        plan.outer = (n + kNc - 1) / kNc;
        const std::int64_t quadFrom = quadRowsFrom(block, m);
        // Alone: the blocks of A's rows that fit L2, as one thread always walked. On a team: half a
        // thread's share at most (a block of A for W3's weight gradients), then, over the last
        // block of k's last `parts` coarse units' rows, units of 12 rows (16 for the 8- and 16-row
        // blocks; W3's first weight gradient's take 18 microseconds on one core).
        const std::int64_t coarse =
            parts <= 1 ? block.mc : std::clamp(roundUp((m + 2 * std::int64_t{parts} - 1) / (2 * std::int64_t{parts}), kMr), kMr, block.mc);
        const std::int64_t fine = roundUp(12, kMr);
        plan.cuts = {.extent = m, .cutsBefore = quadFrom, .coarse = coarse, .fineFrom = m, .fine = fine};
        plan.lastCuts = plan.cuts;
        if (parts > 1) plan.lastCuts.fineFrom = std::max<std::int64_t>(0, m - parts * coarse) / coarse * coarse;
    } else {
        // Half a thread's share of the columns at most (4 panels of W3's forward products), then,
        // over the last block of k's last `parts` coarse units' columns, units of one panel.
        const std::int64_t coarse = std::clamp(roundUp((n + 2 * std::int64_t{parts} - 1) / (2 * std::int64_t{parts}), kNr), kNr, kNc);
        plan.cuts = {.extent = n, .cutsBefore = n, .coarse = coarse, .fineFrom = n, .fine = kNr};
        plan.lastCuts = plan.cuts;
        plan.lastCuts.fineFrom = std::max<std::int64_t>(0, n - parts * coarse) / coarse * coarse;
    }
    return plan;
}

/// Walks a region of a matrix (rows of rowFloats, strideFloats apart) a few cache lines at a time,
/// asking for each in L2: the next block of B, fetched while the current one is multiplied, so
/// its copy into the packed panel finds it there instead of waiting on memory (W3's weights do
/// not stay in the caches between steps). Measured: the first layer's forward 4.65 -> 4.37 ms
/// with its weights cold (best of 30; the L1-level hint and none were slower).
class Prefetcher {
public:
    Prefetcher() = default;
    Prefetcher(const float* base, std::int64_t rows, std::int64_t rowFloats, std::int64_t strideFloats)
        : m_base(reinterpret_cast<const char*>(base)), m_rows(rows), m_lines((rowFloats * 4 + 63) / 64), m_stride(strideFloats * 4) {}
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

/// A product's operands as productOnTeam was given them.
struct Operands {
    Op opA, opB;
    const float* a;
    std::int64_t lda;
    const float* b;
    std::int64_t ldb;
    float beta;
    float* c;
    const ProductEpilogue& epilogue;
};

/// One thread's share of a product: the units it claimed, each multiplied from packed copies of A's
/// rows and B's columns over its block of k, kept while the next unit needs the same.
template <Block block>
class UnitRunner {
public:
    UnitRunner(const Operands& operands, const ProductPlan& plan)
        : m_op(operands),
          m_plan(plan),
          m_quadFrom(quadRowsFrom(block, plan.m)),
          // Where all of k is one block and a thread's part of C is too large to stay in the caches
          // between steps (the weight gradients of a large layer, whose SGD step reads and writes
          // the weights from memory), A's strip is the outer loop over a part of B's block small
          // enough to stay in L2 beside A's: C's rows are then read and written in runs of lines the
          // hardware prefetchers follow, not one line per page. Each tile is the same FMA chains
          // either way, so the same bits.
          m_rowsFirst(plan.blocks == 1 && plan.m * plan.n * 4 / plan.parts > kStreamedOutputBytes),
          m_subColumns(m_rowsFirst ? std::max(kNr, kSubBlockBytes / (plan.k * 4) / kNr * kNr) : kNc) {}

    /// The tiles of `unit`.
    void run(const Unit& unit) {
        const std::int64_t kc = unit.depth, pc = unit.from;
        if (m_packedB.from != pc || m_packedB.begin != unit.columnsBegin) {
            const std::int64_t j0 = unit.columnsBegin;
            packB<kNr, kAvx512>(m_op.opB, m_op.opB == Op::None ? m_op.b + pc * m_op.ldb + j0 : m_op.b + j0 * m_op.ldb + pc, m_op.ldb, kc,
                                unit.columnsEnd - j0, m_buffers.b);
            m_packedB = {pc, j0};
            startPrefetch(unit);
        }
        if (m_packedA.from != pc || m_packedA.begin != unit.rowsBegin) {
            // Strips of kMr rows up to the 6-row block's strips of 4, then those, each strip starting
            // (its first row) kc floats into the buffer after the one before.
            const std::int64_t i0 = unit.rowsBegin, wholeEnd = std::min(unit.rowsEnd, m_quadFrom);
            const auto rowsOfA = [&](std::int64_t i) {
                return m_op.opA == Op::None ? m_op.a + i * m_op.lda + pc : m_op.a + pc * m_op.lda + i;
            };
            if (wholeEnd > i0) packA<kMr, kAvx512>(m_op.opA, rowsOfA(i0), m_op.lda, wholeEnd - i0, kc, m_buffers.a);
            const std::int64_t quadBegin = std::max(i0, m_quadFrom);
            if (quadBegin < unit.rowsEnd)
                packA<4, kAvx512>(m_op.opA, rowsOfA(quadBegin), m_op.lda, unit.rowsEnd - quadBegin, kc,
                                  m_buffers.a + (quadBegin - i0) * kc);
            m_packedA = {pc, i0};
        }
        const float scale = pc == 0 ? m_op.beta : 1.0f;  // beta once, then each block adds on
        const bool first = pc == 0, last = pc + kc >= m_plan.k;
        const std::int64_t ldc = m_plan.n;
        const ProductEpilogue& epilogue = m_op.epilogue;
        const auto stripRows = [&](std::int64_t ir) { return ir < m_quadFrom ? kMr : std::int64_t{4}; };
        // The micro-kernel on the tile of C that A's strip from row ir and B's panel from column jr make.
        const auto tile = [&](std::int64_t ir, std::int64_t jr) {
            const std::int64_t strip = stripRows(ir);
            m_next.issue(m_linesPerCall);
            const auto kernel = [&] {
                if constexpr (block.kernel == PackedKernel::Avx2)
                    return strip == 4 ? microKernel256<4> : microKernel256<6>;
                else if constexpr (kMr == 6)
                    return strip == 4 ? microKernel512<lastRowsOf(block)> : microKernel512<block>;
                else
                    return microKernel512<block>;
            }();
            // A second strip of 4 takes the tile sum after the first's: (row + 5) / 6 is the strip's
            // place in a count of 6-row strips that has room for both.
            TileEpilogue step;
            if (epilogue.tileSums != nullptr)
                step = {epilogue.rate, epilogue.tileSums + (ir + kMr - 1) / kMr * epilogue.tilesPerRow + jr / kNr};
            if (first && epilogue.bias != nullptr) step.bias = epilogue.bias + jr;
            step.relu = last && epilogue.relu;
            if (last && epilogue.mask != nullptr) step.mask = epilogue.mask + ir * ldc + jr;
            kernel(kc, m_buffers.a + (ir - unit.rowsBegin) * kc, m_buffers.b + (jr - unit.columnsBegin) * kc, m_op.c + ir * ldc + jr, ldc,
                   std::min(strip, unit.rowsEnd - ir), std::min(kNr, unit.columnsEnd - jr), scale, step);
        };
        if (m_rowsFirst) {
            for (std::int64_t js = unit.columnsBegin; js < unit.columnsEnd; js += m_subColumns)
                for (std::int64_t ir = unit.rowsBegin; ir < unit.rowsEnd; ir += stripRows(ir))
                    for (std::int64_t jr = js; jr < std::min(unit.columnsEnd, js + m_subColumns); jr += kNr) tile(ir, jr);
        } else {
            for (std::int64_t jr = unit.columnsBegin; jr < unit.columnsEnd; jr += kNr)
                for (std::int64_t ir = unit.rowsBegin; ir < unit.rowsEnd; ir += stripRows(ir)) tile(ir, jr);
        }
    }

private:
    static constexpr std::int64_t kMr = block.rows, kNr = block.columns;
    static constexpr bool kAvx512 = block.kernel == PackedKernel::Avx512;  // the operands copied with AVX-512 too
    static_assert(block.mc % kMr == 0 && kNc % kNr == 0 && block.mc <= kMcMost);
    struct PackedKey {
        std::int64_t from = -1, begin = -1;
    };

    /// Along rows, the block of B this thread packs next (the next block of k, or of B's columns),
    /// which it packs whole, spread over its share of this block's micro-kernel calls. Along
    /// columns each unit packs its own columns of B, fetched by the hardware alone: claiming the
    /// next unit early to fetch its block during this one measured no faster (without it W3's step
    /// ran 0.985-1.030 times as fast as with it, in four runs of packed_product_ab.sh).
    void startPrefetch(const Unit& unit) {
        m_next = {};
        if (!m_plan.alongRows) return;
        const std::int64_t nextFrom = unit.from + unit.depth;
        const std::int64_t j0 = nextFrom < m_plan.k ? unit.columnsBegin : unit.columnsBegin + kNc;
        if (j0 >= m_plan.n) return;
        const std::int64_t pc = nextFrom < m_plan.k ? nextFrom : 0, kc = blockDepth(pc, m_plan.k), j1 = std::min(m_plan.n, j0 + kNc);
        m_next = m_op.opB == Op::None ? Prefetcher(m_op.b + pc * m_op.ldb + j0, kc, j1 - j0, m_op.ldb)
                                      : Prefetcher(m_op.b + j0 * m_op.ldb + pc, j1 - j0, kc, m_op.ldb);
        const std::int64_t calls =
            std::max<std::int64_t>(1, (m_plan.m + kMr - 1) / kMr * ((unit.columnsEnd - unit.columnsBegin + kNr - 1) / kNr) / m_plan.parts);
        m_linesPerCall = std::min((m_next.lines() + calls - 1) / calls, block.prefetchBurstMost);
    }

    const Operands& m_op;
    const ProductPlan& m_plan;
    const std::int64_t m_quadFrom;
    const bool m_rowsFirst;
    const std::int64_t m_subColumns;
    PackBuffers& m_buffers = threadBuffers();
    PackedKey m_packedA, m_packedB;
    Prefetcher m_next;
    std::int64_t m_linesPerCall = 0;
};

/// A counter of its own cache line, so the team's threads do not invalidate each other's.
struct alignas(64) SharedIndex {
    std::atomic<std::int64_t> value{0};
};

/// Where the team stands on a product's units: the next unclaimed one, and for each thread the
/// lowest it has claimed and not finished (a lower bound while it claims; past every unit once it
/// is done), so a unit whose unitBefore is below every other thread's lowest may start.
struct TeamProgress {
    SharedIndex next;
    std::array<SharedIndex, kMaxParallelParts> lowestHeld;
};

/// One thread's part of the team's product: units claimed one at a time, in order, until none is
/// left. The thread that finishes first is never left waiting for more than the last unit another
/// thread claimed, so the work follows each thread's speed while it runs (the host took one of the
/// two vCPUs for stretches that lasted longer than a product, and a split learnt from the passes
/// before left the faster thread waiting 7-9 % of each product: RESULTS.md, session 26).
template <Block block>
void claimUnits(const Operands& operands, const ProductPlan& plan, TeamProgress& progress) {
    const int me = omp_get_thread_num(), team = omp_get_num_threads();
    const std::int64_t units = plan.units();
    std::atomic<std::int64_t>& lowest = progress.lowestHeld[static_cast<std::size_t>(me)].value;
    // The lower bound is published before the claim, so no other thread sees this one holding
    // nothing while it holds a unit below theirs; it is published after the last unit's writes to
    // C, so a thread that sees it past that unit sees them.
    const auto claim = [&] {
        lowest.store(progress.next.value.load());
        return progress.next.value.fetch_add(1);
    };
    UnitRunner<block> runner(operands, plan);
    for (std::int64_t current = claim(); current < units; current = claim()) {
        const Unit unit = plan.at(current);
        if (const std::int64_t before = plan.unitBefore(unit); before >= 0)
            for (int other = 0; other < team; ++other)
                if (other != me)
                    while (progress.lowestHeld[static_cast<std::size_t>(other)].value.load() <= before) _mm_pause();
        runner.run(unit);
    }
    lowest.store(std::numeric_limits<std::int64_t>::max());
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
void productOnTeam(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c, const ProductEpilogue& epilogue) {
    const Operands operands{opA, opB, a, opA == Op::Transpose ? m : k, b, opB == Op::Transpose ? k : n, beta, c, epilogue};
    const auto onTeam = [&]<Block block>() {
        // The team shares the output along its longer side (see planFor), so the operand each
        // thread copies whole is the smaller one (x for the forward products, dz for the weight
        // gradients). A square output is split along its rows, so each thread's part of C is whole
        // rows in pages of its own rather than one half of every row: W3's second weight gradient
        // (1,024 x 1,024, its SGD step reading and writing the weights) ran 29-36 % faster so.
        const std::int64_t tiles = n <= m ? (m + block.rows - 1) / block.rows : (n + block.columns - 1) / block.columns;
        const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
        const int parts = flops < kParallelMinimumFlops ? 1 : static_cast<int>(std::min<std::int64_t>(parallelTeamSize(), tiles));
        const ProductPlan plan = planFor<block>(m, n, k, parts);
        if (parts <= 1) {
            UnitRunner<block> runner(operands, plan);
            for (std::int64_t unit = 0; unit < plan.units(); ++unit) runner.run(plan.at(unit));
            return;
        }
        TeamProgress progress;
#pragma omp parallel num_threads(parts)
        claimUnits<block>(operands, plan, progress);
    };
    const Block block = blockFor(kernel, n);
    if (block == kAvx2)
        onTeam.template operator()<kAvx2>();
    else if (block == kNarrow)
        onTeam.template operator()<kNarrow>();
    else if (block == kHalfWide)
        onTeam.template operator()<kHalfWide>();
    else
        onTeam.template operator()<kWide>();
}

}  // namespace

void packedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float beta, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {  // no products to add: C = beta C
        for (std::int64_t i = 0; i < m * n; ++i) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
        return;
    }
    productOnTeam(kernel, opA, opB, m, n, k, a, b, beta, c, ProductEpilogue{});
}

void packedAffineProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* bias, bool relu, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) throw std::invalid_argument("packedAffineProduct: the product must sum over at least one value of k");
    productOnTeam(kernel, opA, opB, m, n, k, a, b, 0.0f, c, ProductEpilogue{.bias = bias, .relu = relu});
}

void packedMaskedProduct(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                         const float* b, const float* mask, float* c) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) throw std::invalid_argument("packedMaskedProduct: the product must sum over at least one value of k");
    productOnTeam(kernel, opA, opB, m, n, k, a, b, 0.0f, c, ProductEpilogue{.mask = mask});
}

std::int64_t packedSgdTileCount(std::int64_t m, std::int64_t n) {
    // The AVX2 kernel's 6 x 16 tiles are the smallest of all the blocks', so their count is enough for any.
    return (m + kAvx2.rows - 1) / kAvx2.rows * ((n + kAvx2.columns - 1) / kAvx2.columns);
}

double packedSgdStep(PackedKernel kernel, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                     float rate, float* w, std::span<double> tileSums) {
    if (m <= 0 || n <= 0) return 0.0;
    if (k <= 0 || k > kPackedSgdDepthMost)
        throw std::invalid_argument("packedSgdStep: the gradient must be summed over 1 to " + std::to_string(kPackedSgdDepthMost) +
                                    " rows, not " + std::to_string(k));
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
