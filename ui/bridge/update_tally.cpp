#include "bridge/update_tally.hpp"

#include <algorithm>

namespace distlab::ui {

namespace {
int binOf(std::int64_t staleness) { return static_cast<int>(std::clamp<std::int64_t>(staleness, 0, UpdateTally::kBins - 1)); }
}  // namespace

UpdateTally::UpdateTally(int workers) : m_applied(static_cast<std::size_t>(std::max(1, workers)), 0) {}

void UpdateTally::add(const StepRecord& step, std::span<const ReplicaRecord* const> replicas) {
    const int workers = workerCount();
    if (step.worker >= 0) {
        if (step.worker < workers) ++m_applied[static_cast<std::size_t>(step.worker)];
    } else {
        for (const ReplicaRecord* record : replicas)
            if (record != nullptr && record->active && record->replica >= 0 && record->replica < workers)
                ++m_applied[static_cast<std::size_t>(record->replica)];
    }
    const std::int64_t staleness = std::max<std::int64_t>(0, step.staleness);
    if (m_windowCount == kWindow) {
        const std::int64_t evicted = m_window[static_cast<std::size_t>(m_windowHead)];
        --m_bins[static_cast<std::size_t>(binOf(evicted))];
        m_windowSum -= evicted;
    } else {
        ++m_windowCount;
    }
    m_window[static_cast<std::size_t>(m_windowHead)] = staleness;
    m_windowHead = (m_windowHead + 1) % kWindow;
    ++m_bins[static_cast<std::size_t>(binOf(staleness))];
    m_windowSum += staleness;
    ++m_updates;
    m_runSum += static_cast<double>(staleness);
}

std::int64_t UpdateTally::applied(int worker) const {
    if (worker < 0 || worker >= workerCount()) return 0;
    return m_applied[static_cast<std::size_t>(worker)];
}

double UpdateTally::windowMean() const { return m_windowCount == 0 ? 0.0 : static_cast<double>(m_windowSum) / m_windowCount; }

double UpdateTally::runMean() const { return m_updates == 0 ? 0.0 : m_runSum / static_cast<double>(m_updates); }

std::int64_t UpdateTally::windowMax() const {
    // The window's own values, not the bins: the last bin holds kBins - 1 and anything larger.
    std::int64_t largest = 0;
    for (int i = 0; i < m_windowCount; ++i) largest = std::max(largest, m_window[static_cast<std::size_t>(i)]);
    return largest;
}

}  // namespace distlab::ui
