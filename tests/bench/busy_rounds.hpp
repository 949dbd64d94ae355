#pragma once
// What tests/bench/register_blocks.cpp and tests/bench/host_contention.cpp share: a loop's GFLOP/s
// over a few milliseconds, the FMA chains of fma_peak.cpp as the ceiling beside it, and rounds
// sorted into busy and quiet. On the shared VM the host's other work slows this core for stretches
// of seconds (a tenth to a half of the rounds), and a loop's speed then depends less on the loop
// than on when it ran; so each round measures every candidate once, in a rotating order, beside the
// chains, and a detector run before and after them decides whether the round was busy throughout
// (both under 0.85 of the chains), quiet throughout (both above) or neither (not counted).
//
// The detector is a loop nest of the packed product's own AVX-512 micro-kernel (6 x 64, B's panels
// from L2, C read and written). The kernel's arguments reach it through volatiles: given constants
// GCC compiles a clone of the kernel for them (constant propagation), whose k loop, with a constant
// depth, it does not unroll; that clone, not the engine's kernel, would be measured (session 26's
// figures were of such clones).
// Header-only, for stand-alone g++ builds of the benchmarks (x86-64 with AVX-512).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device/fma_chains.hpp"
#include "model/micro_kernels.hpp"

namespace distlab::bench {

/// GFLOP/s of `run` (`flops` each call) over enough calls for about 6 ms.
template <typename Run>
double gflopsOver(double flops, Run&& run) {
    using Clock = std::chrono::steady_clock;
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

/// The FMA chains' GFLOP/s now: the ceiling each round's loops are divided by.
inline double chainsGflops() {
    constexpr std::int64_t kIterations = 5000;
    return gflopsOver(fma::kFlopsPerIteration512 * kIterations, [] {
        static volatile std::int64_t iterations = kIterations;  // read at run time: the call is not folded
        static volatile float sink = 0;
        sink = sink + fma::chains512(iterations);
    });
}

/// A loop nest of the packed product's AVX-512 micro-kernel in one register block's shape: rows of C
/// (about 130, a multiple of kRows) by columns (about 512, a multiple of the block's), over 512 of k
/// in blocks of 256, B's panel the outer loop as in the packed product; A's packed strips (from
/// L2), B's packed panels and C (read and written) in buffers made once.
template <int kRows, int kVectors>
class KernelNest {
public:
    static constexpr std::int64_t kRowsOfC = 132 / kRows * kRows, kColumns = 512 / (16 * kVectors) * (16 * kVectors);
    static constexpr std::int64_t kDepth = 512, kBlockDepth = 256, kLdc = 1024;
    static constexpr double kFlops = 2.0 * kRowsOfC * kColumns * kDepth;

    KernelNest() : m_a(floats(kRowsOfC * kDepth)), m_b(floats(kDepth * kColumns)), m_c(floats(kRowsOfC * kLdc)) {}
    KernelNest(const KernelNest&) = delete;
    KernelNest& operator=(const KernelNest&) = delete;
    ~KernelNest() {
        std::free(m_a);
        std::free(m_b);
        std::free(m_c);
    }

    void run() {
        using namespace distlab::kernels;
        constexpr micro::Block block{PackedKernel::Avx512, kRows, 16 * kVectors, kRows, 8};
        // The kernel's arguments as the packed product passes them, read at run time (the file's comment).
        static volatile std::int64_t blockDepth = kBlockDepth, ldc = kLdc, tileRows = kRows, tileColumns = 16 * kVectors;
        static volatile float scale = 1.0f;
        const std::int64_t depth = blockDepth;
        for (std::int64_t pc = 0; pc < kDepth; pc += depth)
            for (std::int64_t j = 0; j < kColumns; j += 16 * kVectors)
                for (std::int64_t i = 0; i < kRowsOfC; i += kRows)
                    micro::microKernel512<block>(depth, m_a + pc * kRowsOfC + i * depth, m_b + pc * kColumns + j * depth,
                                                 m_c + i * kLdc + j, ldc, tileRows, tileColumns, scale, m_epilogue);
    }

private:
    static float* floats(std::int64_t n) {
        auto* p = static_cast<float*>(std::aligned_alloc(64, static_cast<std::size_t>(n) * sizeof(float)));
        std::fill(p, p + n, 1e-3f);
        return p;
    }
    float *m_a, *m_b, *m_c;
    kernels::micro::TileEpilogue m_epilogue;  // none: C = C + the tile
};

/// A candidate's shares of the chains' rate, one per counted round.
struct Candidate {
    std::string name;
    std::vector<double> busy, quiet;
};

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// Runs `rounds` rounds: the chains, the detector, every candidate once (each in every place of the
/// order in turn: a busy stretch that ends midway favours the later places), the detector again.
/// measure(i) gives candidate i's GFLOP/s. Then prints one JSON line per candidate: its median share
/// of the chains in busy and in quiet rounds, and how many of each.
template <typename Measure>
void compareInRounds(int rounds, std::vector<Candidate>& candidates, Measure&& measure) {
    KernelNest<6, 4> detector;
    const auto count = candidates.size();
    std::vector<double> shares(count);
    for (int round = 0; round < rounds; ++round) {
        const double chains = chainsGflops();
        const auto detect = [&] { return gflopsOver(detector.kFlops, [&] { detector.run(); }) / chains; };
        const double before = detect();
        for (std::size_t i = 0; i < count; ++i) {
            const std::size_t c = (i + static_cast<std::size_t>(round)) % count;
            shares[c] = measure(c) / chains;
        }
        const double after = detect();
        const bool busy = before < 0.85 && after < 0.85, quiet = before >= 0.85 && after >= 0.85;
        if (!busy && !quiet) continue;  // the state changed midway
        for (std::size_t c = 0; c < count; ++c) (busy ? candidates[c].busy : candidates[c].quiet).push_back(shares[c]);
    }
    for (const Candidate& c : candidates)
        std::printf(
            "{\"candidate\": \"%s\", \"busy_rounds\": %zu, \"busy_share\": %.3f, "
            "\"quiet_rounds\": %zu, \"quiet_share\": %.3f}\n",
            c.name.c_str(), c.busy.size(), median(c.busy), c.quiet.size(), median(c.quiet));
}

/// The rounds from argv[1] (default 300), or -1 with a usage line where they are not a positive
/// number or the CPU has no AVX-512.
inline int roundsFrom(int argc, char** argv, const char* program) {
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 300;
    if (rounds < 1 || !__builtin_cpu_supports("avx512f")) {
        std::fprintf(stderr, "usage: %s [rounds >= 1] (on a CPU with AVX-512)\n", program);
        return -1;
    }
    return rounds;
}

}  // namespace distlab::bench
