// What the host's other work takes from this core while it is busy: the FMA chains alone and with
// other instructions between them, each per 16 FMAs (8 cycles at the peak of two FMA pipes), as a
// share of the chains beside them in busy and in quiet rounds (busy_rounds.hpp). The padding:
//
//   nops x8, x16     multi-byte NOPs: each takes a slot where the core's front end issues and
//                    renames instructions, and nothing else (no execution port, no memory);
//   broadcasts x8    vbroadcastss from L1 (the loads a micro-kernel makes of A);
//   loads x4         64-byte vector loads from L1 (a micro-kernel's loads of B);
//   both             8 broadcasts and 4 loads;
//   6x64 k loop      the packed product's 6 x 64 micro-kernel's k loop (4 loads, 6 broadcasts and
//                    24 FMAs a step of k, unrolled by 4) on operands that stay in L1;
//   6x64 nest        the packed product's own micro-kernel over packed panels (the detector's
//                    loop nest: B from L2, C read and written).
//
// A loop slowed only by the padding's slots, not by its memory (the NOPs), says the host takes the
// core's issue bandwidth: what another thread on the core's other hyperthread would take. One JSON
// line per loop. x86-64 with AVX-512 only (the loops are written in assembly, so that the compiler
// neither hoists the loads nor drops the NOPs):
//
//   g++ -std=c++20 -O3 -march=native -Iengine/src -Iengine/include -I/usr/include/eigen3
//       tests/bench/host_contention.cpp -o host_contention && ./host_contention [rounds]
#include <cstdint>

#include "busy_rounds.hpp"

namespace {

alignas(64) float scratch[1024];  // the padding's and the k loop's operands: 4 KiB, in L1

// Sixteen independent FMA chains (zmm0-zmm15) on two constants, as fma::chains512 runs them.
#define DISTLAB_FMA16                                                                 \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm0\n vfmadd231ps %%zmm16, %%zmm17, %%zmm1\n"   \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm2\n vfmadd231ps %%zmm16, %%zmm17, %%zmm3\n"   \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm4\n vfmadd231ps %%zmm16, %%zmm17, %%zmm5\n"   \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm6\n vfmadd231ps %%zmm16, %%zmm17, %%zmm7\n"   \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm8\n vfmadd231ps %%zmm16, %%zmm17, %%zmm9\n"   \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm10\n vfmadd231ps %%zmm16, %%zmm17, %%zmm11\n" \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm12\n vfmadd231ps %%zmm16, %%zmm17, %%zmm13\n" \
    "vfmadd231ps %%zmm16, %%zmm17, %%zmm14\n vfmadd231ps %%zmm16, %%zmm17, %%zmm15\n"
#define DISTLAB_NOP4 "nopl 0(%%rax)\n nopl 0(%%rax)\n nopl 0(%%rax)\n nopl 0(%%rax)\n"
#define DISTLAB_NOP8 DISTLAB_NOP4 DISTLAB_NOP4
#define DISTLAB_BROADCAST8                                                                         \
    "vbroadcastss 0(%1), %%zmm18\n vbroadcastss 4(%1), %%zmm19\n vbroadcastss 8(%1), %%zmm20\n"    \
    "vbroadcastss 12(%1), %%zmm21\n vbroadcastss 16(%1), %%zmm22\n vbroadcastss 20(%1), %%zmm23\n" \
    "vbroadcastss 24(%1), %%zmm24\n vbroadcastss 28(%1), %%zmm25\n"
#define DISTLAB_LOAD4 "vmovaps 64(%1), %%zmm26\n vmovaps 128(%1), %%zmm27\n vmovaps 192(%1), %%zmm28\n vmovaps 256(%1), %%zmm29\n"
#define DISTLAB_CLOBBERS                                                                                                                   \
    "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
        "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",      \
        "xmm29"
// The chains with `padding` after each 16 FMAs, `iterations` times. The constants are zero: the
// chains stay finite whatever the count, and an FMA's speed does not depend on its values.
#define DISTLAB_PADDED_CHAINS(name, padding)                                        \
    __attribute__((noinline)) void name(std::int64_t iterations) {                  \
        asm volatile(                                                               \
            "vxorps %%xmm16, %%xmm16, %%xmm16\n vxorps %%xmm17, %%xmm17, %%xmm17\n" \
            "1:\n" DISTLAB_FMA16 padding "dec %0\n jnz 1b\n"                        \
            : "+r"(iterations)                                                      \
            : "r"(scratch)                                                          \
            : DISTLAB_CLOBBERS);                                                    \
    }
DISTLAB_PADDED_CHAINS(chainsAlone, "")
DISTLAB_PADDED_CHAINS(chainsNops8, DISTLAB_NOP8)
DISTLAB_PADDED_CHAINS(chainsNops16, DISTLAB_NOP8 DISTLAB_NOP8)
DISTLAB_PADDED_CHAINS(chainsBroadcasts8, DISTLAB_BROADCAST8)
DISTLAB_PADDED_CHAINS(chainsLoads4, DISTLAB_LOAD4)
DISTLAB_PADDED_CHAINS(chainsBoth, DISTLAB_BROADCAST8 DISTLAB_LOAD4)

// The 6 x 64 micro-kernel's k loop, 4 steps of k an iteration, on operands that stay in L1 (A at
// scratch, B 256 floats on). A step u: B's 4 vectors into zmm24-27, then for each of A's 6 rows a
// broadcast into zmm28 and 4 FMAs into the row's accumulators (row r, vector v: zmm(4 r + v)).
#define DISTLAB_ROW(u, r, a0, a1, a2, a3)                                                 \
    "vbroadcastss " u "*24+" r "*4(%1), %%zmm28\n vfmadd231ps %%zmm24, %%zmm28, %%zmm" a0 \
    "\n"                                                                                  \
    "vfmadd231ps %%zmm25, %%zmm28, %%zmm" a1 "\n vfmadd231ps %%zmm26, %%zmm28, %%zmm" a2  \
    "\n"                                                                                  \
    "vfmadd231ps %%zmm27, %%zmm28, %%zmm" a3 "\n"
#define DISTLAB_K_STEP(u)                                                                                                             \
    "vmovaps " u "*256(%2), %%zmm24\n vmovaps " u                                                                                     \
    "*256+64(%2), %%zmm25\n"                                                                                                          \
    "vmovaps " u "*256+128(%2), %%zmm26\n vmovaps " u "*256+192(%2), %%zmm27\n" DISTLAB_ROW(u, "0", "0", "1", "2", "3")               \
        DISTLAB_ROW(u, "1", "4", "5", "6", "7") DISTLAB_ROW(u, "2", "8", "9", "10", "11") DISTLAB_ROW(u, "3", "12", "13", "14", "15") \
            DISTLAB_ROW(u, "4", "16", "17", "18", "19") DISTLAB_ROW(u, "5", "20", "21", "22", "23")
__attribute__((noinline)) void kernelLoop(std::int64_t iterations) {
    asm volatile("1:\n" DISTLAB_K_STEP("0") DISTLAB_K_STEP("1") DISTLAB_K_STEP("2") DISTLAB_K_STEP("3") "dec %0\n jnz 1b\n"
                 : "+r"(iterations)
                 : "r"(scratch), "r"(scratch + 256)
                 : DISTLAB_CLOBBERS);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace distlab::bench;
    const int rounds = roundsFrom(argc, argv, "host_contention");
    if (rounds < 0) return 2;
    struct Loop {
        const char* name;
        void (*run)(std::int64_t);
        std::int64_t fmasPerIteration;
    };
    const Loop loops[] = {{"chains", chainsAlone, 16},
                          {"chains + nops x8", chainsNops8, 16},
                          {"chains + nops x16", chainsNops16, 16},
                          {"chains + broadcasts x8", chainsBroadcasts8, 16},
                          {"chains + loads x4", chainsLoads4, 16},
                          {"chains + broadcasts x8 + loads x4", chainsBoth, 16},
                          {"6x64 k loop (L1)", kernelLoop, 96}};
    constexpr std::int64_t kFmas = 96'000;  // a call of each loop: about 18 microseconds at the peak
    KernelNest<6, 4> nest;
    std::vector<Candidate> candidates;
    for (const Loop& loop : loops) candidates.push_back({loop.name, {}, {}});
    candidates.push_back({"6x64 nest (engine kernel)", {}, {}});
    compareInRounds(rounds, candidates, [&](std::size_t c) {
        if (c == std::size(loops)) return gflopsOver(nest.kFlops, [&] { nest.run(); });
        const Loop& loop = loops[c];
        return gflopsOver(kFmas * 32.0, [&] { loop.run(kFmas / loop.fmasPerIteration); });  // 16 lanes, 2 FLOPs each
    });
    return 0;
}
