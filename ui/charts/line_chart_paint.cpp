// LineChart: layout and painting (the data and the axes' ranges are in line_chart.cpp).
#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

#include "charts/line_chart.hpp"
#include "charts/line_chart_impl.hpp"

namespace distlab::ui {

namespace {
constexpr qreal kMargin = kChartMargin;
constexpr qreal kLegendMarker = 16.0;
constexpr qreal kLegendGap = 14.0;
constexpr qreal kThinWidth = 1.25;     // up to this width a curve is one polyline (the raster engine's fast path)
constexpr double kFarOutside = 1e5;    // pixels: keeps far-off points finite for the rasterizer
constexpr double kSmoothTravel = 6.0;  // plot heights of up-and-down travel below which a curve is antialiased

// The colour `color` shows over `background`, made opaque. Opaque solid fills stay on the GUI
// thread; translucent ones are split over the raster engine's worker threads, and waking those
// costs more than the fill and competes with training for the cores.
QColor opaqueOver(const QColor& color, const QColor& background) {
    if (color.alpha() == 255) return color;
    const double a = color.alphaF();
    auto mix = [a](int over, int under) { return static_cast<int>(std::lround(over * a + under * (1.0 - a))); };
    return QColor(mix(color.red(), background.red()), mix(color.green(), background.green()), mix(color.blue(), background.blue()));
}
}  // namespace

void LineChart::layoutChart() const {
    Impl& d = *m_impl;
    if (!d.layoutDirty && d.layoutSize == size()) return;
    d.layoutDirty = false;
    d.frameDirty = true;
    d.layoutSize = size();
    const QFontMetricsF titleMetrics(d.titleFont);
    const QFontMetricsF small(d.smallFont);
    QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    d.titleRect = QRectF();
    if (!d.title.isEmpty()) {
        d.titleRect = QRectF(area.left(), area.top(), area.width(), titleMetrics.height() + 2.0);
        area.setTop(d.titleRect.bottom() + 4.0);
    }
    d.legend.clear();
    d.yLabelWidth = 0.0;
    if (!d.hasPoints) {
        d.plot = area;
        return;
    }
    // Legend: entries in rows, each row centred, at the bottom.
    const qreal rowHeight = small.height() + 4.0;
    std::vector<std::vector<Impl::LegendEntry>> rows(1);
    qreal rowWidth = 0.0;
    for (int i = 0; i < static_cast<int>(d.series.size()); ++i) {
        const Impl::Series& series = d.series[static_cast<std::size_t>(i)];
        if (!series.inLegend) continue;
        const qreal width = kLegendMarker + 4.0 + small.horizontalAdvance(series.name);
        if (!rows.back().empty() && rowWidth + kLegendGap + width > area.width()) {
            rows.emplace_back();
            rowWidth = 0.0;
        }
        rowWidth += (rows.back().empty() ? 0.0 : kLegendGap) + width;
        rows.back().push_back({i, QRectF(0, 0, width, rowHeight)});
    }
    if (rows.back().empty()) rows.pop_back();
    const qreal legendTop = area.bottom() - rowHeight * static_cast<qreal>(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        qreal width = 0.0;
        for (const auto& entry : rows[r]) width += entry.rect.width();
        width += kLegendGap * static_cast<qreal>(rows[r].size() - 1);
        qreal left = area.left() + (area.width() - width) / 2.0;
        for (auto entry : rows[r]) {
            entry.rect.moveTo(left, legendTop + rowHeight * static_cast<qreal>(r));
            left += entry.rect.width() + kLegendGap;
            d.legend.push_back(entry);
        }
    }
    if (!rows.empty()) area.setBottom(legendTop - 2.0);
    // Axis titles and tick labels around the plot.
    if (!d.xTitle.isEmpty()) area.setBottom(area.bottom() - small.height() - 2.0);
    area.setBottom(area.bottom() - small.height() - 4.0);  // x tick labels
    if (!d.yTitle.isEmpty()) area.setLeft(area.left() + small.height() + 4.0);
    d.xTicks = d.x.ticks();
    d.yTicks = d.y.ticks();
    for (double tick : d.yTicks) d.yLabelWidth = std::max(d.yLabelWidth, small.horizontalAdvance(d.y.label(tick)));
    area.setLeft(area.left() + d.yLabelWidth + 6.0);
    // Room for the last x label to stick out to the right.
    area.setRight(area.right() - small.horizontalAdvance(d.x.label(d.x.high)) / 2.0);
    d.plot = area.height() > 10.0 && area.width() > 10.0 ? area : QRectF(rect()).adjusted(40, 20, -10, -30);
}

void LineChart::paintFrame() {
    Impl& d = *m_impl;
    d.frameDirty = false;
    const qreal ratio = devicePixelRatioF();
    const QSize pixels = (QSizeF(size()) * ratio).toSize();
    if (d.frame.size() != pixels) d.frame = QPixmap(pixels);
    d.frame.setDevicePixelRatio(ratio);
    d.frame.fill(d.background);
    QPainter painter(&d.frame);
    if (!d.title.isEmpty()) {
        painter.setFont(d.titleFont);
        painter.setPen(d.text);
        painter.drawText(d.titleRect, Qt::AlignCenter, QFontMetricsF(d.titleFont).elidedText(d.title, Qt::ElideRight, d.titleRect.width()));
    }
    if (!d.hasPoints) return;
    const QRectF& plot = d.plot;
    const QFontMetricsF small(d.smallFont);
    painter.setFont(d.smallFont);
    paintGrid(painter);
    const std::vector<double>& xTicks = d.xTicks;
    const std::vector<double>& yTicks = d.yTicks;
    painter.setPen(QPen(d.axisLine, 0));
    painter.drawLine(plot.bottomLeft(), plot.bottomRight());
    painter.drawLine(plot.bottomLeft(), plot.topLeft());
    painter.setPen(d.text);
    const qreal labelHeight = small.height();
    for (double tick : xTicks) {
        const qreal px = plot.left() + d.x.fraction(tick) * plot.width();
        painter.drawText(QRectF(px - 60.0, plot.bottom() + 3.0, 120.0, labelHeight), Qt::AlignHCenter | Qt::AlignTop, d.x.label(tick));
    }
    for (double tick : yTicks) {
        const qreal py = plot.bottom() - d.y.fraction(tick) * plot.height();
        painter.drawText(QRectF(plot.left() - d.yLabelWidth - 6.0, py - labelHeight / 2.0, d.yLabelWidth + 2.0, labelHeight),
                         Qt::AlignRight | Qt::AlignVCenter, d.y.label(tick));
    }
    if (!d.xTitle.isEmpty()) {
        painter.drawText(QRectF(plot.left(), plot.bottom() + labelHeight + 5.0, plot.width(), labelHeight), Qt::AlignCenter,
                         small.elidedText(d.xTitle, Qt::ElideRight, plot.width()));
    }
    if (!d.yTitle.isEmpty()) {
        painter.save();
        painter.translate(plot.left() - d.yLabelWidth - 8.0 - labelHeight, plot.center().y());
        painter.rotate(-90.0);
        painter.drawText(QRectF(-plot.height() / 2.0, 0.0, plot.height(), labelHeight), Qt::AlignCenter,
                         small.elidedText(d.yTitle, Qt::ElideRight, plot.height()));
        painter.restore();
    }
    for (const Impl::LegendEntry& entry : d.legend) {
        const Impl::Series& series = d.series[static_cast<std::size_t>(entry.series)];
        const QRectF marker(entry.rect.left(), entry.rect.center().y() - 2.0, kLegendMarker, 4.0);
        painter.fillRect(marker, opaqueOver(series.color, d.background));
        painter.setPen(d.text);
        painter.drawText(entry.rect.adjusted(kLegendMarker + 4.0, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, series.name);
    }
}

void LineChart::paintGrid(QPainter& painter) const {
    // Crisp one-pixel lines on whole pixels: no antialiasing needed.
    const Impl& d = *m_impl;
    const QRectF& plot = d.plot;
    painter.setPen(QPen(d.grid, 0));
    for (double tick : d.xTicks) {
        const qreal px = std::round(plot.left() + d.x.fraction(tick) * plot.width());
        painter.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
    }
    for (double tick : d.yTicks) {
        const qreal py = std::round(plot.bottom() - d.y.fraction(tick) * plot.height());
        painter.drawLine(QPointF(plot.left(), py), QPointF(plot.right(), py));
    }
}

void LineChart::paintCurves(QPainter& painter, const QRect& dirty) {
    Impl& d = *m_impl;
    const QRectF& plot = d.plot;
    const double xScale = d.x.high > d.x.low ? plot.width() / (d.x.high - d.x.low) : 0.0;
    const double yScale = d.y.high > d.y.low ? plot.height() / (d.y.high - d.y.low) : 0.0;
    painter.setClipRect(curveRect());
    for (Impl::Series& series : d.series) {
        const qsizetype count = series.points.size();
        if (count == 0) continue;
        // Pixel coordinates, and how far the pen travels up and down on the way.
        d.polyline.resize(count);
        double travel = 0.0;
        for (qsizetype i = 0; i < count; ++i) {
            const QPointF& point = series.points[i];
            const double px = plot.left() + (point.x() - d.x.low) * xScale;
            const double py = plot.bottom() - (point.y() - d.y.low) * yScale;
            d.polyline[i] = QPointF(std::clamp(px, -kFarOutside, kFarOutside), std::clamp(py, -kFarOutside, kFarOutside));
            if (i > 0) travel += std::abs(d.polyline[i].y() - d.polyline[i - 1].y());
        }
        // A noisy curve drawn at two points per pixel column is a band of vertical strokes: its cost
        // follows that travel and antialiasing shows nothing there, so only calmer curves get it.
        const bool antialiased = travel <= kSmoothTravel * plot.height();
        painter.setRenderHint(QPainter::Antialiasing, antialiased);
        if (antialiased != series.antialiased) {
            series.antialiased = antialiased;
            if (dirty != rect()) update();  // the rest of the curve was drawn the other way
        }
        // Only the points whose segments reach into the dirty columns (x is sorted).
        const double left = dirty.left() - series.width - 2.0;
        const double right = dirty.right() + series.width + 2.0;
        const QPointF* begin = d.polyline.constData();
        const QPointF* end = begin + count;
        const QPointF* from = std::partition_point(begin, end, [left](const QPointF& p) { return p.x() < left; });
        const QPointF* to = std::partition_point(from, end, [right](const QPointF& p) { return p.x() <= right; });
        if (from != begin) --from;
        if (to != end) ++to;
        const auto shown = static_cast<int>(to - from);
        if (shown <= 0) continue;
        QPen pen(opaqueOver(series.color, d.background), series.width, series.style);
        pen.setCapStyle(Qt::FlatCap);
        if (series.style != Qt::SolidLine || series.width <= kThinWidth || shown == 1) {
            // One polyline: the fast path for thin solid pens; dashed pens need it for a continuous
            // pattern (and then the whole curve, so the dashes do not move).
            if (series.style == Qt::SolidLine && series.width <= kThinWidth) pen.setWidthF(1.0);
            if (series.style != Qt::SolidLine) {
                from = begin;
                to = end;
            }
            painter.setPen(pen);
            if (to - from == 1)
                painter.drawPoint(*from);
            else
                painter.drawPolyline(from, static_cast<int>(to - from));
            continue;
        }
        // Wide solid curves as separate segments: each is rasterized directly, whereas a wide
        // polyline is stroked as one outline with a join at every point (two orders slower).
        d.segments.resize(static_cast<std::size_t>(shown - 1));
        for (int i = 1; i < shown; ++i) d.segments[static_cast<std::size_t>(i - 1)] = QLineF(from[i - 1], from[i]);
        painter.setPen(pen);
        painter.drawLines(d.segments.data(), static_cast<int>(d.segments.size()));
    }
}

QRect LineChart::curveRect() const {
    // The plot, and a little room for a wide line drawn along its top or right edge.
    return m_impl->plot.adjusted(0.0, -3.0, 3.0, 3.0).toAlignedRect();
}

void LineChart::paintEvent(QPaintEvent* event) {
    layoutChart();
    Impl& d = *m_impl;
    if (d.frameDirty || d.frame.isNull()) paintFrame();
    QPainter painter(this);
    const QRect dirty = event->rect();
    // Inside the axes the plot is refilled and its grid redrawn (a fill is half the memory traffic
    // of a copy, and new points repaint only the plot); around it the cached frame is copied,
    // strip by strip, as rectangles (a region clip would split the copy into per-row spans).
    const QRect inner = d.hasPoints ? (plotInterior() & dirty) : QRect();
    const qreal ratio = d.frame.devicePixelRatio();
    auto copy = [&](const QRect& part) {
        if (part.isEmpty()) return;
        painter.drawPixmap(part, d.frame, QRectF(QPointF(part.topLeft()) * ratio, QSizeF(part.size()) * ratio));
    };
    if (inner.isEmpty()) {
        copy(dirty);
    } else {
        copy(QRect(QPoint(dirty.left(), dirty.top()), QPoint(dirty.right(), inner.top() - 1)));
        copy(QRect(QPoint(dirty.left(), inner.bottom() + 1), QPoint(dirty.right(), dirty.bottom())));
        copy(QRect(QPoint(dirty.left(), inner.top()), QPoint(inner.left() - 1, inner.bottom())));
        copy(QRect(QPoint(inner.right() + 1, inner.top()), QPoint(dirty.right(), inner.bottom())));
        painter.fillRect(inner, d.background);
        painter.save();
        painter.setClipRect(inner);
        paintGrid(painter);
        painter.restore();
    }
    if (d.hasPoints) paintCurves(painter, dirty);
    if (!std::isnan(d.cursorX)) paintCursor(painter);
}

void LineChart::paintCursor(QPainter& painter) const {
    const Impl& d = *m_impl;
    if (!(d.x.high > d.x.low) || d.cursorX < d.x.low || d.cursorX > d.x.high) return;
    const QRectF& plot = d.plot;
    const qreal px = std::round(plot.left() + (d.cursorX - d.x.low) / (d.x.high - d.x.low) * plot.width()) + 0.5;
    painter.save();
    painter.setPen(QPen(d.text, 1.0, Qt::DashLine));
    painter.drawLine(QPointF(px, plot.top()), QPointF(px, plot.bottom()));
    if (!d.cursorText.isEmpty()) {
        // The values at the cursor, in a box on the side of the line with room for it.
        painter.setFont(d.smallFont);
        const QFontMetricsF metrics(d.smallFont);
        const QStringList lines = d.cursorText.split(QLatin1Char('\n'));
        qreal width = 0.0;
        for (const QString& line : lines) width = std::max(width, metrics.horizontalAdvance(line));
        const QSizeF size(width + 8.0, metrics.height() * lines.size() + 4.0);
        const qreal left = px + 6.0 + size.width() <= plot.right() ? px + 6.0 : px - 6.0 - size.width();
        const QRectF box(QPointF(left, plot.top() + 4.0), size);
        QColor fill = d.background;
        fill.setAlpha(225);
        painter.setPen(QPen(d.grid, 1.0));
        painter.setBrush(fill);
        painter.drawRect(box);
        painter.setPen(d.text);
        painter.drawText(box.adjusted(4.0, 2.0, -4.0, -2.0), Qt::AlignLeft | Qt::AlignTop, d.cursorText);
    }
    painter.restore();
}

void LineChart::mouseMoveEvent(QMouseEvent* event) {
    QWidget::mouseMoveEvent(event);
    const Impl& d = *m_impl;
    if (!d.cursorTracking) return;
    const QRectF& plot = d.plot;
    const qreal px = event->position().x();
    if (!d.hasPoints || px < plot.left() || px > plot.right() || !(d.x.high > d.x.low)) {
        emit cursorMoved(std::numeric_limits<double>::quiet_NaN());
        return;
    }
    emit cursorMoved(d.x.low + (px - plot.left()) / plot.width() * (d.x.high - d.x.low));
}

void LineChart::leaveEvent(QEvent* event) {
    QWidget::leaveEvent(event);
    if (m_impl->cursorTracking) emit cursorMoved(std::numeric_limits<double>::quiet_NaN());
}

QRect LineChart::plotInterior() const {
    // Whole pixels strictly inside the plot: the axis lines on its edges stay in the copied frame.
    const QRectF& plot = m_impl->plot;
    return QRect(QPoint(static_cast<int>(std::ceil(plot.left())) + 1, static_cast<int>(std::ceil(plot.top())) + 1),
                 QPoint(static_cast<int>(std::floor(plot.right())) - 1, static_cast<int>(std::floor(plot.bottom())) - 1));
}

}  // namespace distlab::ui
