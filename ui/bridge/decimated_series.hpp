#pragma once
// A bounded time series: buckets of equal width (in samples) holding the min and the max of their
// samples. The width is 1 (raw samples) until the series fills up; then neighbouring buckets merge
// pairwise and the width doubles, so memory stays flat over any run length (under 330 KB per
// series) and a run of any length keeps at least capacity / 2 points: more than two per pixel
// column of any chart of the whole run. Appending touches only the newest bucket (a few
// nanoseconds, no cache misses), because every series takes one sample per training step.
// GUI thread only (no locking).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace distlab::ui {

/// Which x coordinate a view plots.
enum class XAxis { Step, WallSeconds };

/// One held point: a raw sample (low == high == mean) or a bucket of consecutive samples (their
/// min, max and mean; x of the first).
struct SeriesPoint {
    double step = 0.0;
    double wallSeconds = 0.0;
    float low = 0.0f;
    float high = 0.0f;
    float mean = 0.0f;         ///< of the finite samples (smoothing follows it, not the extremes)
    std::int64_t samples = 1;  ///< raw samples this point stands for
    double x(XAxis axis) const { return axis == XAxis::Step ? step : wallSeconds; }
};

class DecimatedSeries {
public:
    /// At most `capacity` closed buckets are held (plus the one being filled).
    explicit DecimatedSeries(int capacity = 8192);

    /// Appends one sample (x increasing). O(1) amortised; allocates only on the first append.
    void append(double step, double wallSeconds, float value);
    void clear();
    /// Replaces the content with `points` (x increasing, as forEach gave them: a saved run's curve);
    /// appends go on after them at the widest bucket width among them.
    void restore(std::span<const SeriesPoint> points);

    bool empty() const { return heldCount() == 0; }
    /// Points held now: at most capacity + 1.
    std::size_t heldCount() const { return m_closed.size() + (m_pendingCount > 0 ? 1u : 0u); }
    /// Samples appended since the last clear().
    std::int64_t appendedCount() const { return m_appended; }
    /// Changes on every append or clear; lets a view skip redrawing unchanged data.
    std::uint64_t version() const { return m_version; }
    /// Raw samples per bucket (1 until the series first fills up, then doubling).
    std::int64_t bucketWidth() const { return m_bucketWidth; }
    /// The newest sample itself (not its bucket). Not for an empty series.
    const SeriesPoint& last() const { return m_newest; }
    /// The oldest point. Not for an empty series.
    const SeriesPoint& first() const { return m_closed.empty() ? m_pending : m_closed.front(); }

    /// Calls fn(const SeriesPoint&) for every held point in x order.
    template <typename Fn>
    void forEach(Fn&& fn) const {
        for (const SeriesPoint& point : m_closed) fn(point);
        if (m_pendingCount > 0) fn(m_pending);
    }

private:
    void closeBucket();
    void mergePairs();

    std::size_t m_capacity;
    std::vector<SeriesPoint> m_closed;  // full buckets of m_bucketWidth samples each
    SeriesPoint m_pending;              // the bucket being filled
    SeriesPoint m_newest;               // the last sample appended
    double m_pendingSum = 0.0;          // of the pending bucket's finite samples
    std::int64_t m_pendingFinite = 0;
    std::int64_t m_pendingCount = 0;
    std::int64_t m_bucketWidth = 1;
    std::int64_t m_appended = 0;
    std::uint64_t m_version = 0;
};

}  // namespace distlab::ui
