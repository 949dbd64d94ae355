// Which AVX-512 register block a packed product's inner loops should use, on these cores as the
// host leaves them: each candidate's loop nest (a block of A's packed strips from L2, 256 of k, B's
// packed micro-panels, C read and written by the packed product's own micro-kernel in that block's
// shape) as a share of the FMA chains of fma_peak.cpp beside it, in the rounds where the host is
// busy and in those where it is quiet (busy_rounds.hpp says how rounds are sorted). Session 26: the
// 8 x 32 block's loop nest at 0.69 of the chains while the host was busy, 0.95 while it was quiet;
// what the host takes is measured by host_contention.cpp. One JSON line per block.
//
//   g++ -std=c++20 -O3 -march=native -Iengine/src -Iengine/include -I/usr/include/eigen3
//       tests/bench/register_blocks.cpp -o register_blocks && ./register_blocks [rounds]
#include "busy_rounds.hpp"

int main(int argc, char** argv) {
    using namespace distlab::bench;
    const int rounds = roundsFrom(argc, argv, "register_blocks");
    if (rounds < 0) return 2;
    KernelNest<8, 2> block8x32;
    KernelNest<6, 4> block6x64;
    KernelNest<8, 3> block8x48;
    KernelNest<12, 2> block12x32;
    std::vector<Candidate> candidates{{"8x32", {}, {}}, {"6x64", {}, {}}, {"8x48", {}, {}}, {"12x32", {}, {}}};
    compareInRounds(rounds, candidates, [&](std::size_t c) {
        const auto rate = [](auto& nest) { return gflopsOver(nest.kFlops, [&] { nest.run(); }); };
        switch (c) {
            case 0:
                return rate(block8x32);
            case 1:
                return rate(block6x64);
            case 2:
                return rate(block8x48);
            default:
                return rate(block12x32);
        }
    });
    return 0;
}
