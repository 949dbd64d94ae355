#include "bridge/decimated_series.hpp"

#include <algorithm>
#include <cmath>

namespace distlab::ui {

namespace {
// NaN-aware min/max: a non-finite sample never hides the finite ones of its bucket.
float lower(float a, float b) { return std::isnan(a) ? b : (std::isnan(b) ? a : std::min(a, b)); }
float higher(float a, float b) { return std::isnan(a) ? b : (std::isnan(b) ? a : std::max(a, b)); }
}  // namespace

DecimatedSeries::DecimatedSeries(int capacity) : m_capacity(static_cast<std::size_t>(std::max(16, capacity) & ~1)) {}

void DecimatedSeries::append(double step, double wallSeconds, float value) {
    m_newest = SeriesPoint{step, wallSeconds, value, value, value, 1};
    if (m_pendingCount == 0) {
        m_pending = m_newest;
        m_pendingSum = 0.0;
        m_pendingFinite = 0;
    } else {
        m_pending.low = lower(m_pending.low, value);
        m_pending.high = higher(m_pending.high, value);
    }
    if (std::isfinite(value)) {
        m_pendingSum += value;
        ++m_pendingFinite;
    }
    ++m_pendingCount;
    m_pending.samples = m_pendingCount;
    if (m_pendingFinite > 0) m_pending.mean = static_cast<float>(m_pendingSum / static_cast<double>(m_pendingFinite));
    ++m_appended;
    ++m_version;
    if (m_pendingCount >= m_bucketWidth) closeBucket();
}

void DecimatedSeries::clear() {
    m_closed.clear();
    m_pendingCount = 0;
    m_bucketWidth = 1;
    m_appended = 0;
    ++m_version;
}

void DecimatedSeries::restore(std::span<const SeriesPoint> points) {
    clear();
    if (points.empty()) return;
    m_closed.reserve(m_capacity);
    std::int64_t width = 1;
    for (const SeriesPoint& point : points) {
        m_closed.push_back(point);
        m_appended += point.samples;
        while (width < point.samples) width *= 2;
        if (m_closed.size() >= m_capacity) {
            m_bucketWidth = width;
            mergePairs();
            width = m_bucketWidth;
        }
    }
    m_bucketWidth = std::max(m_bucketWidth, width);
    m_newest = points.back();
    m_newest.low = m_newest.high = m_newest.mean;
    m_newest.samples = 1;
}

void DecimatedSeries::closeBucket() {
    if (m_closed.capacity() == 0) m_closed.reserve(m_capacity);
    m_closed.push_back(m_pending);
    m_pendingCount = 0;
    if (m_closed.size() >= m_capacity) mergePairs();
}

void DecimatedSeries::mergePairs() {
    // Halve the buckets in place: each new bucket covers two old ones (x of the first).
    const std::size_t half = m_closed.size() / 2;
    for (std::size_t i = 0; i < half; ++i) {
        SeriesPoint merged = m_closed[2 * i];
        const SeriesPoint& second = m_closed[2 * i + 1];
        merged.low = lower(merged.low, second.low);
        merged.high = higher(merged.high, second.high);
        if (!std::isfinite(merged.mean)) {
            merged.mean = second.mean;
        } else if (std::isfinite(second.mean)) {
            const double total = static_cast<double>(merged.samples + second.samples);
            merged.mean = static_cast<float>((static_cast<double>(merged.mean) * static_cast<double>(merged.samples) +
                                              static_cast<double>(second.mean) * static_cast<double>(second.samples)) /
                                             total);
        }
        merged.samples += second.samples;
        m_closed[i] = merged;
    }
    m_closed.resize(half);
    m_bucketWidth *= 2;
}

}  // namespace distlab::ui
