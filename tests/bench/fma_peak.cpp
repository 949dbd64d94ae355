// The float32 FMA peak of these cores: the roofline's ceiling that tests/bench/roofline.py (which
// builds and runs this) divides achieved GFLOP/s by. Independent FMA chains held in registers, at
// AVX-512 and AVX2 width, on one thread and on N threads; prints one JSON line. Two figures each:
// the best round (about 12 ms), what the cores can do at all, and the rate sustained over all the
// rounds, what they did over the whole time: on a shared VM the host's other work slows the cores
// for moments to seconds (best 0.1-s rounds of one core read 77-174 GFLOP/s within a minute), so a
// workload measured over seconds is set against the sustained rate measured beside it.
//
//   g++ -O3 -pthread -Iengine/src tests/bench/fma_peak.cpp -o fma_peak && ./fma_peak [threads] [seconds] [widest]
//
// With `widest`, only the widest width the CPU runs (AVX-512, else AVX2) is measured.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "device/fma_chains.hpp"

namespace {

// A round: 2^22 iterations, about 12 ms at AVX-512 width.
constexpr std::int64_t kIterations = 1 << 22;

struct Width {
    const char* name;
    float (*run)(std::int64_t);
    double flopsPerIteration;  // chains × lanes × 2 (an FMA is two FLOPs)
    bool supported;
};

struct Rate {
    double best = 0;       // GFLOP/s of the fastest round
    double sustained = 0;  // GFLOP/s over all the rounds together
};

/// Runs `threads` copies at once, round after round, for at least `seconds`.
Rate measure(const Width& width, int threads, double seconds) {
    using Clock = std::chrono::steady_clock;
    double best = 0, flops = 0, busy = 0;
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    std::atomic<float> sink{0};
    do {
        // Each worker stamps its own start and end: the main thread may be descheduled while the
        // workers hold every core, so its clock would miss the start.
        std::atomic<int> ready{0};
        std::vector<Clock::time_point> starts(static_cast<std::size_t>(threads)), ends(starts.size());
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                ready.fetch_add(1);
                while (ready.load() < threads) {
                }
                starts[static_cast<std::size_t>(t)] = Clock::now();
                sink.store(sink.load() + width.run(kIterations));
                ends[static_cast<std::size_t>(t)] = Clock::now();
            });
        for (auto& thread : pool) thread.join();
        const double elapsed =
            std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) - *std::min_element(starts.begin(), starts.end()))
                .count();
        const double roundFlops = width.flopsPerIteration * static_cast<double>(kIterations) * threads;
        best = std::max(best, roundFlops / elapsed / 1e9);
        flops += roundFlops;
        busy += elapsed;
    } while (Clock::now() < until);
    return {best + 0.0f * sink.load(), flops / busy / 1e9};
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
    const bool widestOnly = argc > 3 && std::string(argv[3]) == "widest";
    if (threads < 1 || seconds <= 0 || (argc > 3 && !widestOnly)) {
        std::fprintf(stderr, "usage: fma_peak [threads >= 1] [seconds > 0] [widest]\n");
        return 2;
    }
    const Width widths[] = {
        {"avx512", distlab::fma::chains512, distlab::fma::kFlopsPerIteration512, __builtin_cpu_supports("avx512f") != 0},
        {"avx2", distlab::fma::chains256, distlab::fma::kFlopsPerIteration256,
         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")},
    };
    std::printf("{\"threads\": %d", threads);
    bool measured = false;
    for (const Width& width : widths) {
        if (!width.supported || (widestOnly && measured)) {
            std::printf(", \"%s\": null", width.name);
            continue;
        }
        const Rate one = measure(width, 1, seconds);
        const Rate all = threads == 1 ? one : measure(width, threads, seconds);  // one thread is all of them
        std::printf(
            ", \"%s\": {\"gflops_1_thread\": %.1f, \"gflops_all_threads\": %.1f, \"sustained_1_thread\": %.1f, "
            "\"sustained_all_threads\": %.1f}",
            width.name, one.best, all.best, one.sustained, all.sustained);
        measured = true;
    }
    std::printf("}\n");
    return 0;
}
