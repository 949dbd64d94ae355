#pragma once
// A bounded time series: full resolution for the recent tail, min/max buckets beyond, so memory
// stays flat over any number of steps (under 300 KB per series whatever the run length).
// GUI thread only (no locking).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace distlab::ui {

/// Which x coordinate a view plots.
enum class XAxis { Step, WallSeconds };

/// One held point: a raw sample (low == high) or a bucket of consecutive samples (their min and max).
struct SeriesPoint {
    double step = 0.0;
    double wallSeconds = 0.0;
    float low = 0.0f;
    float high = 0.0f;
    std::int64_t samples = 1;  ///< raw samples this point stands for
    double x(XAxis axis) const { return axis == XAxis::Step ? step : wallSeconds; }
    float mid() const { return 0.5f * (low + high); }
};

class DecimatedSeries {
public:
    /// tailCapacity raw points stay at full resolution; at most olderCapacity buckets hold the rest.
    explicit DecimatedSeries(int tailCapacity = 4096, int olderCapacity = 4096);

    /// Appends one sample (x increasing). Amortised O(1); allocates only while growing to capacity.
    void append(double step, double wallSeconds, float value);
    void clear();

    bool empty() const { return heldCount() == 0; }
    /// Points held now (buckets + raw tail); bounded by about tailCapacity * 2 + olderCapacity + 1.
    std::size_t heldCount() const;
    /// Samples appended since the last clear().
    std::int64_t appendedCount() const { return m_appended; }
    /// Changes on every append or clear; lets a view skip redrawing unchanged data.
    std::uint64_t version() const { return m_version; }
    /// Raw samples per bucket in the decimated part (grows by doubling on long runs).
    std::int64_t bucketWidth() const { return m_bucketWidth; }
    const SeriesPoint& last() const;
    const SeriesPoint& first() const;

    /// Calls fn(const SeriesPoint&) for every held point in x order.
    template <typename Fn>
    void forEach(Fn&& fn) const {
        for (const SeriesPoint& point : m_older) fn(point);
        if (m_pendingCount > 0) fn(m_pending);
        const std::size_t size = m_tail.size();
        const std::size_t firstPart = std::min(m_tailCount, size - m_tailHead);
        for (std::size_t i = 0; i < firstPart; ++i) fn(pointOf(m_tail[m_tailHead + i]));
        for (std::size_t i = 0; i < m_tailCount - firstPart; ++i) fn(pointOf(m_tail[i]));
    }

private:
    /// A raw sample as held in the tail: 16 bytes instead of a SeriesPoint's 40, because every
    /// series takes one per training step and the tails are larger than the caches (appending
    /// and folding cost memory traffic, not arithmetic).
    struct RawSample {
        double step;
        float wall;  ///< seconds after m_wallOrigin
        float value;
    };
    SeriesPoint pointOf(const RawSample& raw) const {
        return SeriesPoint{raw.step, m_wallOrigin + static_cast<double>(raw.wall), raw.value, raw.value, 1};
    }
    void foldOldestTail();
    void closeBucket();
    void mergeOlderPairs();
    const RawSample& tailAt(std::size_t index) const;

    int m_tailCapacity;
    int m_olderCapacity;
    std::vector<SeriesPoint> m_older;  // buckets of m_bucketWidth raw samples each
    SeriesPoint m_pending;             // the bucket being filled
    std::int64_t m_pendingCount = 0;
    std::int64_t m_bucketWidth = 8;
    // Raw samples in a ring of 2 * tailCapacity slots (folding the oldest half moves nothing).
    std::vector<RawSample> m_tail;
    std::size_t m_tailHead = 0;   // slot of the oldest raw sample
    std::size_t m_tailCount = 0;  // raw samples held
    double m_wallOrigin = 0.0;    // wall time of the first sample since the last clear()
    bool m_hasOrigin = false;
    mutable SeriesPoint m_firstRaw;  // first() and last() of a raw sample, as a SeriesPoint
    mutable SeriesPoint m_lastRaw;
    std::int64_t m_appended = 0;
    std::uint64_t m_version = 0;
};

}  // namespace distlab::ui
