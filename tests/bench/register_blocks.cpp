// Which AVX-512 register block a packed product's inner loops should use, on these cores as the
// host leaves them: each candidate's loop nest (a block of A's packed strips from L2, 256 of k, B's
// packed micro-panels, C read and written by the packed product's own micro-kernel), alternated
// round by round with the FMA chains of fma_peak.cpp, each as GFLOP/s over about 6 ms. A shared
// VM's host takes the core's load throughput for stretches of seconds, which slows a loop that
// loads its operands far more than one that does not (session 26: the 8 x 32 block's loop nest at
// 0.69 of the chains beside it, 0.95 when the host left the core alone). A detector (the 8 x 32
// nest run once more before and after the candidates, who take turns at each place in the order)
// sorts the rounds into busy (both under 0.85 of the chains), quiet (both above) and neither, and
// each block's median share of the chains is printed for busy and quiet, one JSON line per block.
//
//   g++ -std=c++20 -O3 -march=native -Iengine/src -Iengine/include -I/usr/include/eigen3
//       tests/bench/register_blocks.cpp -o register_blocks && ./register_blocks [rounds]
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "device/fma_chains.hpp"
#include "model/micro_kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// GFLOP/s of `run` (flops each call) over enough calls for about 6 ms.
template <typename Run>
double gflops(double flops, Run&& run) {
    int calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
        run();
        ++calls;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.006);
    return flops * calls / elapsed / 1e9;
}

/// One tile of C (kRows x kVectors 16-float vectors) += a packed strip of A times a packed panel of
/// B over `depth` values of k: the packed product's own micro-kernel, with that block's shape.
template <int kRows, int kVectors>
void tile(std::int64_t depth, const float* a, const float* b, float* c, std::int64_t ldc) {
    using namespace distlab::kernels;
    constexpr micro::Block block{PackedKernel::Avx512, kRows, 16 * kVectors, kRows, 8};
    micro::microKernel512<block>(depth, a, b, c, ldc, kRows, 16 * kVectors, 1.0f, micro::TileEpilogue{});
}

constexpr std::int64_t kDepth = 512, kBlockDepth = 256, kLdc = 1024;

struct Operands {
    float* a;  // packed strips of A, a block of kBlockDepth after another
    float* b;  // packed panels of B, likewise
    float* c;  // kLdc floats a row
};

/// Rows of C (about 130, a multiple of kRows) by columns (about 512, a multiple of the block's), over
/// kDepth in blocks of kBlockDepth, B's panel the outer loop as in the packed product. Its flops.
template <int kRows, int kVectors>
double loopNest(const Operands& o, bool run) {
    constexpr std::int64_t rows = 132 / kRows * kRows, columns = 512 / (16 * kVectors) * (16 * kVectors);
    if (run)
        for (std::int64_t pc = 0; pc < kDepth; pc += kBlockDepth)
            for (std::int64_t j = 0; j < columns; j += 16 * kVectors)
                for (std::int64_t i = 0; i < rows; i += kRows)
                    tile<kRows, kVectors>(kBlockDepth, o.a + pc * rows + i * kBlockDepth, o.b + pc * columns + j * kBlockDepth,
                                          o.c + i * kLdc + j, kLdc);
    return 2.0 * rows * columns * kDepth;
}

struct Candidate {
    const char* name;
    double (*nest)(const Operands&, bool);
    std::vector<double> busy, quiet;  // shares of the chains' rate in the same round
};

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 300;
    if (rounds < 1 || !__builtin_cpu_supports("avx512f")) {
        std::fprintf(stderr, "usage: register_blocks [rounds >= 1] (on a CPU with AVX-512)\n");
        return 2;
    }
    const auto floats = [](std::size_t n) {
        auto* p = static_cast<float*>(std::aligned_alloc(64, n * sizeof(float)));
        std::fill(p, p + n, 1e-3f);
        return p;
    };
    const Operands o{floats(132 * kDepth), floats(kDepth * 512), floats(132 * kLdc)};
    Candidate candidates[] = {{"8x32", loopNest<8, 2>, {}, {}},
                              {"6x64", loopNest<6, 4>, {}, {}},
                              {"8x48", loopNest<8, 3>, {}, {}},
                              {"12x32", loopNest<12, 2>, {}, {}}};
    constexpr std::int64_t kChainIterations = 5000;
    constexpr int kCandidates = static_cast<int>(std::size(candidates));
    std::vector<double> shares(kCandidates);
    for (int round = 0; round < rounds; ++round) {
        const double chains = gflops(distlab::fma::kFlopsPerIteration512 * kChainIterations, [] {
            static volatile std::int64_t iterations = kChainIterations;  // read at run time: the call is not folded
            static volatile float sink = 0;
            sink = sink + distlab::fma::chains512(iterations);
        });
        const auto detect = [&] { return gflops(loopNest<8, 2>(o, false), [&] { loopNest<8, 2>(o, true); }) / chains; };
        const double before = detect();
        for (int i = 0; i < kCandidates; ++i) {  // each in every place of the order in turn
            Candidate& c = candidates[(i + round) % kCandidates];
            shares[static_cast<std::size_t>((i + round) % kCandidates)] = gflops(c.nest(o, false), [&] { c.nest(o, true); }) / chains;
        }
        const double after = detect();
        // Busy or quiet throughout: a round whose state changed midway counts as neither.
        const bool busy = before < 0.85 && after < 0.85, quiet = before >= 0.85 && after >= 0.85;
        for (int i = 0; i < kCandidates; ++i)
            if (busy || quiet) (busy ? candidates[i].busy : candidates[i].quiet).push_back(shares[static_cast<std::size_t>(i)]);
    }
    for (const Candidate& c : candidates)
        std::printf("{\"block\": \"%s\", \"busy_rounds\": %zu, \"busy_share\": %.3f, \"quiet_rounds\": %zu, \"quiet_share\": %.3f}\n",
                    c.name, c.busy.size(), median(c.busy), c.quiet.size(), median(c.quiet));
    return 0;
}
