#pragma once
// Independent float32 FMA chains held in registers, at AVX-512 and at AVX2 width: what a core does
// at its arithmetic peak. Shared by the FMA probe beside a benchmark's steps (fma_probe.cpp) and by
// the stand-alone peak benchmark (tests/bench/fma_peak.cpp), so both measure the same loop.
// Header-only, without the engine's other headers, so that benchmark builds with g++ alone.
#include <immintrin.h>

#include <cstdint>

namespace distlab::fma {

// Sixteen accumulators: more than latency (4 cycles) x FMA pipes (2), so the chains never stall,
// and few enough to stay in AVX-512's 32 registers.
inline constexpr int kChains512 = 16;
// AVX2 has 16 registers: 12 chains and the 2 constants fit.
inline constexpr int kChains256 = 12;
/// FLOPs of one iteration: chains x lanes x 2 (an FMA is two FLOPs).
inline constexpr double kFlopsPerIteration512 = kChains512 * 16 * 2.0;
inline constexpr double kFlopsPerIteration256 = kChains256 * 8 * 2.0;

// Each function returns a value derived from every chain, so the compiler cannot drop any. The two
// are written out per instruction set, as the packed product's micro-kernels are: a function's
// target instruction set cannot follow a template argument.
__attribute__((target("avx512f,fma"), noinline)) inline float chains512(std::int64_t iterations) {
    __m512 acc[kChains512];
    for (int c = 0; c < kChains512; ++c) acc[c] = _mm512_set1_ps(1.0f + 1e-3f * static_cast<float>(c));
    const __m512 a = _mm512_set1_ps(0.999999f);
    const __m512 b = _mm512_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 16  // every chain in its own register, at any optimisation level
        for (int c = 0; c < kChains512; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    for (int c = 1; c < kChains512; ++c) acc[0] = _mm512_add_ps(acc[0], acc[c]);
    alignas(64) float lanes[16];  // summed by hand: GCC 12 warns inside _mm512_reduce_add_ps
    _mm512_store_ps(lanes, acc[0]);
    float sum = 0;
    for (float lane : lanes) sum += lane;
    return sum;
}

__attribute__((target("avx2,fma"), noinline)) inline float chains256(std::int64_t iterations) {
    __m256 acc[kChains256];
    for (int c = 0; c < kChains256; ++c) acc[c] = _mm256_set1_ps(1.0f + 1e-3f * static_cast<float>(c));
    const __m256 a = _mm256_set1_ps(0.999999f);
    const __m256 b = _mm256_set1_ps(1e-7f);
    for (std::int64_t i = 0; i < iterations; ++i)
#pragma GCC unroll 12
        for (int c = 0; c < kChains256; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    for (int c = 1; c < kChains256; ++c) acc[0] = _mm256_add_ps(acc[0], acc[c]);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, acc[0]);
    float sum = 0;
    for (float lane : lanes) sum += lane;
    return sum;
}

}  // namespace distlab::fma
