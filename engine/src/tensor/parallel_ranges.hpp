#pragma once
// Splitting a pass over a whole buffer (the optimizer's update, a gradient norm, a layer's
// activations) across the calling thread's OpenMP team: the size the replica pool gave it
// (threads / replicas), so a replica never starts threads beyond its share of the cores.
#include <omp.h>

#include <algorithm>
#include <cstddef>

#if !defined(_OPENMP)
// A translation unit compiled without OpenMP (a test that includes the dense kernels) runs its
// passes on the calling thread.
#define DISTLAB_SERIAL_PARTS 1
#elif defined(__SANITIZE_THREAD__)
#define DISTLAB_SERIAL_PARTS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DISTLAB_SERIAL_PARTS 1
#endif
#endif

namespace distlab {

/// Below this many values, waking the team costs more than it saves.
inline constexpr std::size_t kParallelMinimumValues = std::size_t{1} << 16;
/// Most parts a pass is split into (callers keep one partial result per part).
inline constexpr int kMaxParallelParts = 64;

/// The threads a pass may be split across: the calling thread's OpenMP team, at most
/// kMaxParallelParts.
inline int parallelTeamSize() {
#ifdef DISTLAB_SERIAL_PARTS
    // Without OpenMP, or under ThreadSanitizer: libgomp is not instrumented, so the team's barrier
    // is invisible and every part would be reported as a race (as Eigen's parallel products are).
    return 1;
#else
    return std::min(omp_get_max_threads(), kMaxParallelParts);
#endif
}

/// The calling thread's OpenMP team is `threads` for this object's life, then what it was before.
/// For a thread that shares the cores with threads outside its team (the parameter servers'
/// coordinator beside the workers): libgomp's team threads spin for a while after each parallel
/// region, and on a core another thread needs, that spin is its time lost.
class ScopedTeamSize {
public:
    explicit ScopedTeamSize(int threads) {
#ifndef DISTLAB_SERIAL_PARTS
        m_before = omp_get_max_threads();
        omp_set_num_threads(std::max(1, threads));
#else
        (void)threads;
#endif
    }
    ~ScopedTeamSize() {
#ifndef DISTLAB_SERIAL_PARTS
        omp_set_num_threads(m_before);
#endif
    }
    ScopedTeamSize(const ScopedTeamSize&) = delete;
    ScopedTeamSize& operator=(const ScopedTeamSize&) = delete;

private:
    int m_before = 1;
};

/// Runs body(part, begin, end) over [0, n) in equal contiguous parts, one per thread of the calling
/// thread's OpenMP team, or as one part on the calling thread when the n items hold fewer than
/// kParallelMinimumValues values (valuesPerItem each: a row of a matrix, say) or the team is one
/// thread. Returns the number of parts. The parts depend only on n and the team size, so a fixed
/// thread count gives the same bits.
template <typename Body>
int forEachPart(std::size_t n, Body&& body, std::size_t valuesPerItem = 1) {
    const int team = parallelTeamSize();
    if (team <= 1 || n * valuesPerItem < kParallelMinimumValues) {
        body(0, std::size_t{0}, n);
        return 1;
    }
#ifndef DISTLAB_SERIAL_PARTS
#pragma omp parallel num_threads(team)
    {
        const auto part = static_cast<std::size_t>(omp_get_thread_num());
        const auto parts = static_cast<std::size_t>(omp_get_num_threads());
        body(static_cast<int>(part), n * part / parts, n * (part + 1) / parts);
    }
#endif
    return team;
}

}  // namespace distlab
