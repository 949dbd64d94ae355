#pragma once
// Hands several DecimatedSeries to one LineChart for a frame: one shared x range, at most two
// points per pixel column per curve, optional smoothing. GUI thread.
#include <QColor>
#include <QElapsedTimer>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <distlab/config/run_config.hpp>

#include "bridge/decimated_series.hpp"

namespace distlab::ui {

class LineChart;

struct Curve {
    const DecimatedSeries* series = nullptr;
    QString name;
    QColor color;
    qreal width = 2.0;
    Qt::PenStyle style = Qt::SolidLine;
    double smoothing = 0.0;  ///< TensorBoard's EMA weight, 0 for none
    bool inLegend = true;
};

/// Points one chart may receive per frame in all (Qt Charts lays out every point it gets: about
/// half a microsecond each here), so a frame stays within its budget whatever the curve count.
inline constexpr int kChartPointBudget = 3000;

/// Draws every curve over the x range all of them cover (or over `xRange` when given: a range
/// shared by several charts, see sharedXRange); returns the points drawn in all.
qsizetype feedChart(LineChart& chart, const std::vector<Curve>& curves, XAxis axis, int pointBudget = kChartPointBudget,
                    const std::pair<double, double>* xRange = nullptr);
/// The x range that charts drawing `series` side by side share (so their axes end at the same
/// step): `owner`'s stable range over all of them; {0, 1} when all are empty.
std::pair<double, double> sharedXRange(LineChart& owner, const std::vector<const DecimatedSeries*>& series, XAxis axis);

/// Shortest time between two feeds of one chart while its data keeps changing: about 11 Hz when
/// the GUI has a core to itself, 5 Hz when it shares the cores with the replicas (every
/// millisecond the GUI thread takes from a busy replica stalls all its peers at the next
/// all-reduce, so there the GUI gives way: measured in tests/bench/gui_overhead.py).
inline constexpr std::int64_t kChartPeriodMs = 90;
inline constexpr std::int64_t kSharedCoresChartPeriodMs = 200;
/// The period for `run` on this machine (its replica threads against the cores).
std::int64_t chartPeriodMs(const RunConfig& run);

/// The charts of one view take turns while training runs: at most one chart is fed per frame, and
/// each at most once per period (live to the eye, a fraction of the cost of every frame), which
/// bounds a frame's cost whatever the view. Every chart catches up with the data once it stops
/// changing (pause, end of run). GUI thread.
class ChartTurns {
public:
    explicit ChartTurns(int charts);
    /// The chart to feed this frame for data at `version`: among those behind it and not fed for
    /// `periodMs`, the one fed longest ago; -1 when none. Marks that chart as showing `version`.
    int next(std::uint64_t version, std::int64_t periodMs);
    /// Every chart was fed with data at `version` (a new run, or a setting that changes every curve).
    void fedAll(std::uint64_t version);

private:
    std::vector<std::uint64_t> m_drawn;
    std::vector<std::int64_t> m_fedMs;  // when each chart was last fed (m_clock's milliseconds)
    QElapsedTimer m_clock;
};

}  // namespace distlab::ui
