#include "distlab/device/fma_probe.hpp"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "device/fma_chains.hpp"

namespace distlab {

namespace {

// About 0.1 ms at AVX-512 width on one core at 170 GFLOP/s: short beside a step (W1's is 2 ms),
// long beside the clock's resolution and the team's start.
constexpr std::int64_t kIterations = std::int64_t{1} << 15;

bool hasAvx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
}

}  // namespace

bool fmaBurstAvailable() {
    __builtin_cpu_init();
    return hasAvx512() || (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
}

FmaBurst fmaBurst(int threads) {
    if (threads < 1) throw std::invalid_argument("fmaBurst: threads must be at least 1");
    if (!fmaBurstAvailable()) throw std::runtime_error("fmaBurst: the CPU has neither AVX-512 nor AVX2 with FMA");
    static const bool wide = hasAvx512();
    const double flopsPerThread = static_cast<double>(kIterations) * (wide ? fma::kFlopsPerIteration512 : fma::kFlopsPerIteration256);
    std::atomic<int> arrived{0};
    std::atomic<float> sink{0.0f};
    double rateSum = 0;  // FLOP/s, each thread's own
    int team = 0;
#pragma omp parallel num_threads(threads) reduction(+ : rateSum)
    {
        const int count = omp_get_num_threads();
#pragma omp single nowait
        team = count;
        // Start together: a thread woken late would otherwise run while the others have finished.
        arrived.fetch_add(1, std::memory_order_acq_rel);
        while (arrived.load(std::memory_order_acquire) < count) {
        }
        const auto start = std::chrono::steady_clock::now();
        const float value = wide ? fma::chains512(kIterations) : fma::chains256(kIterations);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        sink.store(sink.load(std::memory_order_relaxed) + value, std::memory_order_relaxed);
        rateSum += flopsPerThread / seconds;
    }
    const double flops = flopsPerThread * team;
    return {flops + 0.0 * sink.load(), flops / rateSum};
}

}  // namespace distlab
