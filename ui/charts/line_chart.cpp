#include "charts/line_chart.hpp"

#include <QEvent>
#include <QFontMetricsF>
#include <QLabel>

#include <algorithm>
#include <cmath>
#include <limits>

#include "charts/line_chart_impl.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

LineChart::LineChart(QWidget* parent) : QWidget(parent), m_impl(std::make_unique<Impl>()) {
    setAttribute(Qt::WA_OpaquePaintEvent);  // every pixel is painted: nothing below needs drawing
    m_emptyLabel = new QLabel(this);
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->setAttribute(Qt::WA_TransparentForMouseEvents);
    setMinimumSize(240, 180);
    applyTheme();
    updateEmptyLabel();
}

LineChart::~LineChart() = default;

void LineChart::applyTheme() {
    Impl& d = *m_impl;
    const bool dark = darkPalette();
    d.background = dark ? QColor(0x2e, 0x30, 0x3a) : QColor(Qt::white);
    d.text = dark ? QColor(0xd6, 0xd6, 0xd6) : QColor(0x40, 0x40, 0x40);
    d.grid = dark ? QColor(0x46, 0x48, 0x54) : QColor(0xe4, 0xe4, 0xe4);
    d.axisLine = dark ? QColor(0x86, 0x88, 0x90) : QColor(0x8c, 0x8c, 0x8c);
    d.smallFont = font();
    d.smallFont.setPointSizeF(std::max(7.0, d.smallFont.pointSizeF() * 0.85));
    d.titleFont = font();
    d.titleFont.setBold(true);
    d.layoutDirty = true;
    d.frameDirty = true;
    m_emptyLabel->setStyleSheet(QStringLiteral("QLabel { color: palette(mid); font-size: 11pt; padding: 24px; }"));
    update();
}

void LineChart::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) applyTheme();
}

// Only what changed is redrawn: the frame when an axis, a title or the legend changes, the curves
// when their points do.
void LineChart::setTitle(const QString& title) {
    if (title == m_impl->title) return;
    m_impl->title = title;
    m_impl->layoutDirty = true;
    update();
}

void LineChart::setAxisTitles(const QString& xTitle, const QString& yTitle) {
    if (xTitle == m_impl->xTitle && yTitle == m_impl->yTitle) return;
    m_impl->xTitle = xTitle;
    m_impl->yTitle = yTitle;
    m_impl->layoutDirty = true;
    update();
}

void LineChart::setEmptyText(const QString& text) {
    m_emptyLabel->setText(text);
    updateEmptyLabel();
}

void LineChart::setSeries(const QString& name, const QList<QPointF>& points, const QColor& color, qreal width, Qt::PenStyle style) {
    Impl& d = *m_impl;
    auto found = d.index.constFind(name);
    if (found == d.index.constEnd()) {
        found = d.index.insert(name, static_cast<int>(d.series.size()));
        d.series.push_back(Impl::Series{});
        d.series.back().name = name;
        d.layoutDirty = true;
    }
    Impl::Series& series = d.series[static_cast<std::size_t>(*found)];
    m_pointsReceived += points.size();
    if (series.color != color || series.width != width || series.style != style) {
        series.color = color;
        series.width = width;
        series.style = style;
        d.frameDirty = d.frameDirty || series.inLegend;
        updateCurves();
    }
    if (series.points == points) return;  // nothing new to draw
    // Curves change at their newest end while a run grows: repaint from the segment into the first
    // point that differs, not the whole plot.
    const qsizetype common = std::min(series.points.size(), points.size());
    qsizetype first = 0;
    while (first < common && series.points[first] == points[first]) ++first;
    const double changedFrom = first == 0 ? -std::numeric_limits<double>::infinity() : points[first - 1].x();
    series.hasPoints = !points.isEmpty();
    series.xLow = series.yLow = std::numeric_limits<double>::infinity();
    series.xHigh = series.yHigh = -series.xLow;
    for (const QPointF& point : points) {
        series.xLow = std::min(series.xLow, point.x());
        series.xHigh = std::max(series.xHigh, point.x());
        series.yLow = std::min(series.yLow, point.y());
        series.yHigh = std::max(series.yHigh, point.y());
    }
    series.points = points;
    updateCurves(changedFrom, series.width);
    updateEmptyLabel();
}

void LineChart::setSeriesInLegend(const QString& name, bool shown) {
    auto found = m_impl->index.constFind(name);
    if (found == m_impl->index.constEnd()) return;
    Impl::Series& series = m_impl->series[static_cast<std::size_t>(*found)];
    if (series.inLegend == shown) return;
    series.inLegend = shown;
    m_impl->layoutDirty = true;
    update();
}

void LineChart::removeAllSeries() {
    Impl& d = *m_impl;
    if (d.series.empty() && d.xLow == 0.0 && d.xHigh == 0.0 && d.yLow == 0.0 && d.yHigh == 0.0) return;
    d.series.clear();
    d.index.clear();
    d.xLow = d.xHigh = d.yLow = d.yHigh = 0.0;
    d.layoutDirty = true;
    update();
    updateEmptyLabel();
}

int LineChart::seriesCount() const { return static_cast<int>(m_impl->series.size()); }

QStringList LineChart::seriesNames() const {
    QStringList names;
    for (const Impl::Series& series : m_impl->series) names.append(series.name);
    return names;
}

QList<QPointF> LineChart::seriesPoints(const QString& name) const {
    auto found = m_impl->index.constFind(name);
    return found == m_impl->index.constEnd() ? QList<QPointF>() : m_impl->series[static_cast<std::size_t>(*found)].points;
}

void LineChart::setFixedYRange(double low, double high) {
    m_impl->fixedLow = low;
    m_impl->fixedHigh = high;
}

void LineChart::fitAxes() {
    Impl& d = *m_impl;
    double xLow = std::numeric_limits<double>::infinity();
    double xHigh = -xLow;
    double yLow = xLow;
    double yHigh = -xLow;
    for (const Impl::Series& series : d.series) {
        if (!series.hasPoints) continue;
        xLow = std::min(xLow, series.xLow);
        xHigh = std::max(xHigh, series.xHigh);
        yLow = std::min(yLow, series.yLow);
        yHigh = std::max(yHigh, series.yHigh);
    }
    if (!std::isfinite(xLow)) return;
    d.cutPeak = std::numeric_limits<double>::quiet_NaN();
    if (d.ignoreSpikes && d.fixedLow > d.fixedHigh) {
        // The 98th percentile of every point: a spike or two (a page fault, a scheduler tick) may
        // not set the scale of a chart whose steps take a few microseconds.
        d.scratch.clear();
        for (const Impl::Series& series : d.series)
            for (const QPointF& point : series.points) d.scratch.push_back(point.y());
        if (d.scratch.size() >= 20) {
            const auto k = static_cast<std::ptrdiff_t>(static_cast<double>(d.scratch.size() - 1) * 0.98);
            std::nth_element(d.scratch.begin(), d.scratch.begin() + k, d.scratch.end());
            const double cap = 2.0 * d.scratch[static_cast<std::size_t>(k)];
            if (cap > yLow && yHigh > cap) {
                d.cutPeak = yHigh;
                yHigh = cap;
            }
        }
    }
    double step = 0.25;
    if (d.fixedLow <= d.fixedHigh) {
        yLow = d.fixedLow;
        yHigh = d.fixedHigh;
        step = (yHigh - yLow) / 4.0;
    } else {
        // Keep the current range while the data stays inside it and fills a fair part of it.
        const double span = d.yHigh - d.yLow;
        const bool inside = yLow >= d.yLow && yHigh <= d.yHigh && span > 0.0;
        // ... but not a range that still shows a spike this fit cut off (set before there were
        // enough points to tell it from the rest).
        const bool showsCutPeak = std::isfinite(d.cutPeak) && d.yHigh >= d.cutPeak;
        if (inside && yHigh - yLow >= 0.4 * span && !showsCutPeak) return;
        step = ChartAxis::niceRange(yLow, yHigh);
    }
    if (yLow != d.yLow || yHigh != d.yHigh) {
        d.y.set(yLow, yHigh, step);
        d.layoutDirty = true;  // the labels' width may change
        update();
    }
    d.yLow = yLow;
    d.yHigh = yHigh;
}

std::pair<double, double> LineChart::stableXRange(double dataLow, double dataHigh) {
    Impl& d = *m_impl;
    if (!(dataHigh > dataLow)) dataHigh = dataLow + 1.0;
    const double span = d.xHigh - d.xLow;
    const bool keep =
        span > 0.0 && dataLow >= d.xLow && dataLow - d.xLow <= 0.1 * span && dataHigh <= d.xHigh && dataHigh - dataLow >= 0.6 * span;
    if (!keep) {
        // A quarter of headroom, on round numbers.
        double low = dataLow;
        double high = dataLow + (dataHigh - dataLow) * 1.25;
        const double step = ChartAxis::niceRange(low, high);
        d.xLow = low;
        d.xHigh = high;
        d.x.set(low, high, step);
        d.layoutDirty = true;
        update();
    }
    return {d.xLow, d.xHigh};
}

void LineChart::setXRange(double low, double high) {
    Impl& d = *m_impl;
    if (!(high > low)) high = low + 1.0;
    if (low == d.xLow && high == d.xHigh) return;
    double niceLow = low;
    double niceHigh = high;
    const double step = ChartAxis::niceRange(niceLow, niceHigh);
    d.xLow = low;
    d.xHigh = high;
    d.x.set(low, high, step);
    d.layoutDirty = true;
    update();
}

std::pair<double, double> LineChart::xRange() const { return {m_impl->xLow, m_impl->xHigh}; }

std::pair<double, double> LineChart::yRange() const { return {m_impl->yLow, m_impl->yHigh}; }

void LineChart::setIgnoreSpikes(bool on) { m_impl->ignoreSpikes = on; }

double LineChart::cutPeak() const { return m_impl->cutPeak; }

QString LineChart::title() const { return m_impl->title; }

bool LineChart::titleFits() const {
    if (m_impl->title.isEmpty()) return true;
    return QFontMetricsF(m_impl->titleFont).horizontalAdvance(m_impl->title) <= width() - 2.0 * kChartMargin;
}

int LineChart::plotColumns() const {
    layoutChart();
    const int width = static_cast<int>(m_impl->plot.width());
    return width > 16 ? width : std::max(200, this->width() - 80);
}

void LineChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    m_emptyLabel->setGeometry(rect());
    m_impl->layoutDirty = true;
}

void LineChart::updateCurves(double fromX, qreal width) {
    const Impl& d = *m_impl;
    if (d.layoutDirty || d.frameDirty || d.layoutSize != size()) {
        update();
        return;
    }
    QRect area = curveRect();
    if (std::isfinite(fromX) && d.x.high > d.x.low) {
        // Room for the width and the antialiased fringe of a steep segment ending at fromX.
        const double px = d.plot.left() + (fromX - d.x.low) * d.plot.width() / (d.x.high - d.x.low) - width - 2.0;
        if (px > area.left()) area.setLeft(static_cast<int>(std::min<double>(area.right(), std::floor(px))));
    }
    update(area);
}

void LineChart::updateEmptyLabel() {
    bool hasPoints = false;
    for (const Impl::Series& series : m_impl->series) hasPoints = hasPoints || series.hasPoints;
    const bool showLabel = !hasPoints && !m_emptyLabel->text().isEmpty();
    if (hasPoints != m_impl->hasPoints) {
        m_impl->hasPoints = hasPoints;
        m_impl->layoutDirty = true;  // axes and legend come and go with the data
        update();
    }
    if (m_emptyLabel->isHidden() == showLabel) m_emptyLabel->setVisible(showLabel);
}

void LineChart::setCursor(double x, const QString& text) {
    Impl& d = *m_impl;
    if ((std::isnan(x) && std::isnan(d.cursorX)) || (x == d.cursorX && text == d.cursorText)) return;
    d.cursorX = x;
    d.cursorText = text;
    update(curveRect());
}

double LineChart::cursorX() const { return m_impl->cursorX; }

void LineChart::setCursorTracking(bool on) {
    m_impl->cursorTracking = on;
    setMouseTracking(on);
}

}  // namespace distlab::ui
