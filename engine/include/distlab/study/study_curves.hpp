#pragma once
// A variant's per-step curves, bounded in memory whatever the run's length, for the study's
// overlays (loss, accuracy, step time, throughput of up to six variants on one chart). Points are
// kept, not averaged: every k-th update, k doubling whenever the buffer fills, so a curve always
// spans the whole run with between capacity/2 and capacity points, and each point is a real
// update a cursor can name. (The app's live views keep min/max buckets instead, RunHistory.)
#include <cstdint>
#include <limits>
#include <vector>

#include "distlab/telemetry/step_report.hpp"
#include "distlab/telemetry/phase_split.hpp"

namespace distlab {

struct StudyCurvePoint {
    std::int64_t step = 0;
    double seconds = 0.0;                                        ///< training seconds up to this update
    double loss = 0.0;                                           ///< the update's training loss
    double accuracy = std::numeric_limits<double>::quiet_NaN();  ///< the batch's (NaN for regression)
    double stepMs = 0.0;                                         ///< stepDurationNs, milliseconds
    double samplesPerSecond = 0.0;                               ///< the update's samples (StepReport::samples) / stepMs
    // The update's phase split (splitStep, milliseconds), for a time-split overlay; waitingMs is
    // waiting plus idle, as in the summary's shares.
    double computeMs = 0.0;
    double communicationMs = 0.0;
    double waitingMs = 0.0;
    double optimizerMs = 0.0;
};

struct StudyEvalPoint {
    std::int64_t step = 0;
    double seconds = 0.0;
    double testLoss = 0.0;
    double testAccuracy = std::numeric_limits<double>::quiet_NaN();
};

/// Keeps every stride-th value added; when `capacity` are kept, drops every other one and doubles
/// the stride. Not thread-safe.
template <typename T>
class ThinnedSeries {
public:
    explicit ThinnedSeries(std::size_t capacity = 2048) : m_capacity(capacity < 2 ? 2 : capacity) { m_points.reserve(m_capacity); }
    void add(const T& point) {
        if (m_seen++ % m_stride != 0) return;
        if (m_points.size() == m_capacity) {
            for (std::size_t i = 0; 2 * i < m_points.size(); ++i) m_points[i] = m_points[2 * i];
            m_points.resize((m_capacity + 1) / 2);
            m_stride *= 2;
            if ((m_seen - 1) % m_stride != 0) return;  // this one falls between the new stride's points
        }
        m_points.push_back(point);
    }
    const std::vector<T>& points() const { return m_points; }
    std::size_t capacity() const { return m_capacity; }

private:
    std::size_t m_capacity;
    std::vector<T> m_points;
    std::uint64_t m_stride = 1;
    std::uint64_t m_seen = 0;
};

/// One lane of an update's timeline: the replica (or parameter-server worker) it belongs to, its
/// timestamps (stepTimes, the phase split's input; nanoseconds on the variant's trainer clock) and
/// the bytes it sent in the reduction.
struct StudyTimelineLane {
    int replica = 0;
    StepTimes times;
    std::int64_t bytesSent = 0;
};

/// One update's timeline, for a timeline drawn per variant. Lanes that did not take part in the
/// update (an async parameter server applies one worker's gradient) are left out; `replica` says
/// which lane each kept one is.
struct StudyTimelineStep {
    std::int64_t step = 0;
    std::int64_t startNs = 0;  ///< the update's start and end on the trainer clock
    std::int64_t endNs = 0;
    std::vector<StudyTimelineLane> lanes;
};

/// The last `capacity` updates' timelines, oldest first. Reuses its buffers: no allocation once
/// every slot has held its widest update. Not thread-safe.
class RecentTimelines {
public:
    explicit RecentTimelines(std::size_t capacity = 32) : m_slots(capacity < 1 ? 1 : capacity) {}
    /// Keeps `report`'s timeline, dropping the oldest when full.
    void add(const StepReport& report);
    /// The kept updates, oldest first.
    std::vector<StudyTimelineStep> ordered() const;

private:
    std::vector<StudyTimelineStep> m_slots;
    std::size_t m_next = 0;   ///< the slot the next update goes to
    std::size_t m_count = 0;  ///< slots in use
};

/// Both curves of one variant, and its latest timelines.
struct StudyCurves {
    ThinnedSeries<StudyCurvePoint> steps;
    ThinnedSeries<StudyEvalPoint> evaluations{512};
    RecentTimelines timelines;
};

}  // namespace distlab
