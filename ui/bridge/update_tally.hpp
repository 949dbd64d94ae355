#pragma once
// Who pushed the updates a parameter-server run applied, and how stale they were: per-worker counts
// over the whole run and a histogram of the staleness of the most recent kWindow updates (bounded
// memory, no allocation per update). RunHistory feeds it every step. GUI thread only.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <distlab/telemetry/records.hpp>

namespace distlab::ui {

class UpdateTally {
public:
    /// Updates the staleness histogram and mean cover (the most recent ones).
    static constexpr int kWindow = 2048;
    /// Histogram bins: staleness 0 .. kBins - 2, and one last bin for kBins - 1 or more.
    static constexpr int kBins = 32;

    explicit UpdateTally(int workers);

    /// Counts one applied update: `step.worker` when set (async), otherwise every worker that
    /// reported the step in `replicas` (sync: the workers whose gradients were averaged).
    void add(const StepRecord& step, std::span<const ReplicaRecord* const> replicas);

    int workerCount() const { return static_cast<int>(m_applied.size()); }
    /// Updates applied with worker `worker`'s gradient since the run started.
    std::int64_t applied(int worker) const;
    /// Updates counted so far.
    std::int64_t updates() const { return m_updates; }
    /// Updates in the staleness window (<= kWindow).
    int windowCount() const { return m_windowCount; }
    /// How many updates of the window had staleness `bin` (the last bin: that or more).
    std::int64_t bin(int bin) const { return m_bins[static_cast<std::size_t>(bin)]; }
    /// Mean staleness over the window (0 when empty).
    double windowMean() const;
    /// Mean staleness over the whole run (0 when empty).
    double runMean() const;
    /// Largest staleness in the window (beyond the last bin's kBins - 1 too).
    std::int64_t windowMax() const;

private:
    std::vector<std::int64_t> m_applied;
    std::array<std::int64_t, kBins> m_bins{};
    std::array<std::int64_t, kWindow> m_window{};  // ring of the recent stalenesses
    int m_windowHead = 0;
    int m_windowCount = 0;
    std::int64_t m_windowSum = 0;
    std::int64_t m_updates = 0;
    double m_runSum = 0.0;
};

}  // namespace distlab::ui
