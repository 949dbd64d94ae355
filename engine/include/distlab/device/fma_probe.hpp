#pragma once
// The FMA rate of the cores a benchmark runs on, measured beside its steps: `distlab-cli bench
// --fma-probe` runs a short burst after each step, on the threads that run the step's products. On
// a shared machine the host takes the cores' cycles for moments to seconds (a 0.1-s FMA round of
// one core read 77-174 GFLOP/s within a minute on the development VM), so a workload measured over
// seconds is set against the ceiling measured in the same moments, not only against the best
// round a stand-alone run of tests/bench/fma_peak.cpp happened to catch.

namespace distlab {

struct FmaBurst {
    double flops = 0;    ///< FLOPs all the threads did
    double seconds = 0;  ///< flops over the sum of the threads' own rates: each thread timed alone
};

/// Whether fmaBurst can run here: the CPU has AVX-512 F, or AVX2 and FMA.
bool fmaBurstAvailable();

/// One burst of independent FMA chains (device/fma_chains.hpp, the widest width the CPU runs, about
/// 0.1 ms at its peak) on each of `threads` threads of the calling thread's OpenMP team: the team
/// that runs its packed products, so the burst does not compete with that team's threads spinning
/// after a product. The threads start together (each waits for all to arrive) and each times its
/// own chains; a thread the host holds back lowers the rate as it would a product's. Throws
/// std::invalid_argument unless threads >= 1 and std::runtime_error where !fmaBurstAvailable().
FmaBurst fmaBurst(int threads);

}  // namespace distlab
