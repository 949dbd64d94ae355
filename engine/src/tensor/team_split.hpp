#pragma once
// How a pass whose bits do not depend on where it is split (the optimizer's elementwise update)
// shares its work among the team: in proportion to how fast each thread went on the last passes of
// the same kind, instead of equally. On the shared 2-core VM one thread was often slower than the
// other for minutes at a time (the other guests, the host, its half of the data further away), and
// with equal shares the faster thread waited for it at the end of every pass (perf: 5 % of W3's
// samples in libgomp's wait on one thread). Timing only, never results. The packed product, whose
// passes are long enough for the speeds to change within one, claims its units of work as it goes
// instead (packed_product.cpp, claimUnits).
#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <ctime>

#include "tensor/parallel_ranges.hpp"

namespace distlab {

class TeamSplit {
public:
    /// The pass's key (a product's shape and operations, say) and the units of work to share among
    /// `count` threads; begin(t) .. begin(t + 1) is thread t's share.
    TeamSplit(std::uint64_t key, std::int64_t units, int count) : m_entry(entryFor(key, count)), m_count(count) {
        double total = 0.0;
        for (int t = 0; t < count; ++t) total += m_entry.speed[static_cast<std::size_t>(t)];
        double before = 0.0;
        m_bounds[0] = 0;
        for (int t = 0; t < count; ++t) {
            before += m_entry.speed[static_cast<std::size_t>(t)];
            m_bounds[static_cast<std::size_t>(t) + 1] = std::llround(static_cast<double>(units) * before / total);
        }
        m_bounds[static_cast<std::size_t>(count)] = units;
    }

    std::int64_t begin(int part) const { return m_bounds[static_cast<std::size_t>(part)]; }

    /// Thread `part` did its share in `seconds` (each thread writes its own slot).
    void record(int part, double seconds) { m_seconds[static_cast<std::size_t>(part)] = seconds; }

    /// After the team has finished: each thread's speed estimate moves a quarter of the way towards
    /// its speed on this product relative to the team's mean (one product's timing is noisy), kept
    /// within a factor of 2 of even (so no share shrinks to nothing and stops being measured).
    void update() {
        std::array<double, kMaxParallelParts> rate{};
        double mean = 0.0;
        for (int t = 0; t < m_count; ++t) {
            const auto i = static_cast<std::size_t>(t);
            const auto units = static_cast<double>(begin(t + 1) - begin(t));
            if (units <= 0.0 || m_seconds[i] <= 0.0) return;  // nothing to learn from
            rate[i] = units / m_seconds[i];
            mean += rate[i] / m_count;
        }
        for (int t = 0; t < m_count; ++t) {
            double& speed = m_entry.speed[static_cast<std::size_t>(t)];
            speed = std::clamp(0.75 * speed + 0.25 * rate[static_cast<std::size_t>(t)] / mean, 0.5, 2.0);
        }
    }

    static double now() {
        timespec time{};
        clock_gettime(CLOCK_MONOTONIC, &time);
        return static_cast<double>(time.tv_sec) + 1e-9 * static_cast<double>(time.tv_nsec);
    }

private:
    struct Entry {
        std::uint64_t key = 0;
        int count = 0;
        std::array<double, kMaxParallelParts> speed{};  // relative: 1 each to begin with
    };

    /// The calling (master) thread's estimates for this pass, in a small table searched whole, so
    /// nothing is allocated. Not indexed by the key: keys that shared a slot reset each other's
    /// estimates on every call, and W3's two forward products did (their keys differ only in k),
    /// as did its two weight gradients, so their splits stayed even. A step's passes are fewer
    /// than the table's entries; past that, the oldest entry is the one replaced.
    static Entry& entryFor(std::uint64_t key, int count) {
        thread_local std::array<Entry, 32> table{};
        thread_local std::size_t added = 0;
        for (Entry& entry : table)
            if (entry.key == key && entry.count == count) return entry;
        Entry& entry = table[added++ % table.size()];
        entry.key = key;
        entry.count = count;
        entry.speed.fill(1.0);
        return entry;
    }

    Entry& m_entry;
    int m_count;
    std::array<std::int64_t, kMaxParallelParts + 1> m_bounds{};
    std::array<double, kMaxParallelParts> m_seconds{};
};

/// The parts of forEachBalancedPart begin at multiples of this many values.
inline constexpr std::size_t kBalancedPartBlock = 1024;

/// forEachPart for a pass whose bits do not depend on where it is split (an elementwise update):
/// body(begin, end) over [0, n), the parts following the threads' speeds on the last passes with
/// this key, in whole blocks of kBalancedPartBlock values.
template <typename Body>
void forEachBalancedPart(std::uint64_t key, std::size_t n, Body&& body) {
    const int team = parallelTeamSize();
    if (team <= 1 || n < kParallelMinimumValues) return body(std::size_t{0}, n);
#ifndef DISTLAB_SERIAL_PARTS
    constexpr std::size_t kBlock = kBalancedPartBlock;
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    TeamSplit split(key, static_cast<std::int64_t>(blocks), team);
#pragma omp parallel num_threads(team)
    {
        const int part = omp_get_thread_num(), count = omp_get_num_threads();
        if (count != team) {  // a smaller team than asked for: even parts, nothing learnt
            const auto at = [&](int p) {
                return std::min(n, blocks * static_cast<std::size_t>(p) / static_cast<std::size_t>(count) * kBlock);
            };
            body(at(part), at(part + 1));
        } else {
            const double start = TeamSplit::now();
            body(std::min(n, static_cast<std::size_t>(split.begin(part)) * kBlock),
                 std::min(n, static_cast<std::size_t>(split.begin(part + 1)) * kBlock));
            split.record(part, TeamSplit::now() - start);
        }
    }
    split.update();
#endif
}

}  // namespace distlab
