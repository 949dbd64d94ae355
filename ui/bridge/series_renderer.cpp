#include "bridge/series_renderer.hpp"

#include <algorithm>
#include <cmath>

namespace distlab::ui {

namespace {

// Collects points in x order and emits, per pixel column, the lowest and the highest (in x order).
class ColumnReducer {
public:
    ColumnReducer(const RenderWindow& window, QList<QPointF>& out) : m_window(window), m_out(out) {
        m_out.clear();
        const double span = window.xMax - window.xMin;
        m_scale = span > 0.0 ? std::max(1, window.columns) / span : 0.0;
    }

    void add(double x, double low, double high) {
        if (!std::isfinite(x) || x < m_window.xMin || x > m_window.xMax) return;
        if (!std::isfinite(low) || !std::isfinite(high)) return;
        const int column = std::min(std::max(1, m_window.columns) - 1, static_cast<int>((x - m_window.xMin) * m_scale));
        if (column != m_column) {
            flush();
            m_column = column;
            m_min = QPointF(x, low);
            m_max = QPointF(x, high);
            return;
        }
        if (low < m_min.y()) m_min = QPointF(x, low);
        if (high > m_max.y()) m_max = QPointF(x, high);
    }

    void flush() {
        if (m_column < 0) return;
        if (m_min == m_max) {
            m_out.append(m_min);
        } else if (m_max.x() < m_min.x()) {
            m_out.append(m_max);
            m_out.append(m_min);
        } else {
            m_out.append(m_min);
            m_out.append(m_max);
        }
        m_column = -1;
    }

private:
    const RenderWindow& m_window;
    QList<QPointF>& m_out;
    double m_scale = 0.0;
    int m_column = -1;
    QPointF m_min;
    QPointF m_max;
};

}  // namespace

double DebiasedEma::add(double value, std::int64_t count) {
    if (!std::isfinite(value)) return value;
    if (m_weight <= 0.0) return value;
    if (count != m_count) {
        m_count = count;
        m_countWeight = count == 1 ? m_weight : std::pow(m_weight, static_cast<double>(count));
    }
    const double weight = m_countWeight;
    m_last = m_last * weight + (1.0 - weight) * value;
    m_weightPower *= weight;
    const double debias = 1.0 - m_weightPower;
    return debias > 0.0 ? m_last / debias : value;
}

void renderMinMax(const DecimatedSeries& series, const RenderWindow& window, QList<QPointF>& out) {
    ColumnReducer reducer(window, out);
    series.forEach([&](const SeriesPoint& point) { reducer.add(point.x(window.axis), point.low, point.high); });
    reducer.flush();
}

void renderSmoothed(const DecimatedSeries& series, const RenderWindow& window, double smoothing, QList<QPointF>& out) {
    if (smoothing <= 0.0) {
        renderMinMax(series, window, out);
        return;
    }
    ColumnReducer reducer(window, out);
    DebiasedEma ema(std::min(smoothing, 0.999));
    series.forEach([&](const SeriesPoint& point) {
        const double value = ema.add(point.mean, point.samples);
        reducer.add(point.x(window.axis), value, value);
    });
    reducer.flush();
}

void extendRange(const QList<QPointF>& points, double& low, double& high) {
    for (const QPointF& point : points) {
        if (!std::isfinite(point.y())) continue;
        low = std::min(low, point.y());
        high = std::max(high, point.y());
    }
}

}  // namespace distlab::ui
