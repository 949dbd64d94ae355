#include "views/chart_feeder.hpp"

#include <QStringList>

#include <algorithm>
#include <limits>
#include <thread>
#include <tuple>

#include "bridge/series_renderer.hpp"
#include "charts/line_chart.hpp"

namespace distlab::ui {

std::pair<double, double> sharedXRange(LineChart& owner, const std::vector<const DecimatedSeries*>& series, XAxis axis) {
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (const DecimatedSeries* one : series) {
        if (one == nullptr || one->empty()) continue;
        low = std::min(low, one->first().x(axis));
        high = std::max(high, one->last().x(axis));
    }
    if (!(low <= high)) return {0.0, 1.0};
    return owner.stableXRange(low, high);
}

qsizetype feedChart(LineChart& chart, const std::vector<Curve>& curves, XAxis axis, int pointBudget,
                    const std::pair<double, double>* xRange) {
    RenderWindow window;
    window.axis = axis;
    window.xMin = std::numeric_limits<double>::infinity();
    window.xMax = -window.xMin;
    for (const Curve& curve : curves) {
        if (curve.series == nullptr || curve.series->empty()) continue;
        window.xMin = std::min(window.xMin, curve.series->first().x(axis));
        window.xMax = std::max(window.xMax, curve.series->last().x(axis));
    }
    if (xRange != nullptr) {
        std::tie(window.xMin, window.xMax) = *xRange;
        chart.setXRange(window.xMin, window.xMax);
    } else if (!(window.xMin <= window.xMax)) {
        window.xMin = 0.0;
        window.xMax = 1.0;
    } else {
        std::tie(window.xMin, window.xMax) = chart.stableXRange(window.xMin, window.xMax);
    }
    // At most two points per pixel column, and within the chart's budget for all its curves.
    const int perCurve = pointBudget / std::max<int>(1, static_cast<int>(curves.size()));
    window.columns = std::max(16, std::min(chart.plotColumns(), perCurve / 2));
    // Recreate the series only when the set of curves changes; otherwise replace their points.
    QStringList names;
    for (const Curve& curve : curves) names.append(curve.name);
    if (chart.seriesNames() != names) chart.removeAllSeries();
    qsizetype drawn = 0;
    QList<QPointF> points;
    for (const Curve& curve : curves) {
        points = QList<QPointF>();  // the chart keeps the previous list (implicitly shared)
        if (curve.series != nullptr) renderSmoothed(*curve.series, window, curve.smoothing, points);
        drawn += points.size();
        chart.setSeries(curve.name, points, curve.color, curve.width, curve.style);
        chart.setSeriesInLegend(curve.name, curve.inLegend);
    }
    chart.fitAxes();
    return drawn;
}

std::int64_t chartPeriodMs(const RunConfig& run) {
    const StrategyConfig& strategy = run.strategy;
    const std::int64_t replicaThreads =
        strategy.replicaCount() * (strategy.type == StrategyKind::ParameterServer ? strategy.replicasPerWorker : 1);
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    return replicaThreads < cores ? kChartPeriodMs : kSharedCoresChartPeriodMs;
}

ChartTurns::ChartTurns(int charts)
    : m_drawn(static_cast<std::size_t>(charts), 0), m_fedMs(static_cast<std::size_t>(charts), -kSharedCoresChartPeriodMs) {
    m_clock.start();
}

int ChartTurns::next(std::uint64_t version, std::int64_t periodMs) {
    const std::int64_t now = m_clock.elapsed();
    int chosen = -1;
    for (std::size_t chart = 0; chart < m_drawn.size(); ++chart) {
        if (m_drawn[chart] == version || now - m_fedMs[chart] < periodMs) continue;
        if (chosen < 0 || m_fedMs[chart] < m_fedMs[static_cast<std::size_t>(chosen)]) chosen = static_cast<int>(chart);
    }
    if (chosen < 0) return -1;
    m_drawn[static_cast<std::size_t>(chosen)] = version;
    m_fedMs[static_cast<std::size_t>(chosen)] = now;
    return chosen;
}

void ChartTurns::fedAll(std::uint64_t version) {
    std::fill(m_drawn.begin(), m_drawn.end(), version);
    std::fill(m_fedMs.begin(), m_fedMs.end(), m_clock.elapsed());
}

}  // namespace distlab::ui
