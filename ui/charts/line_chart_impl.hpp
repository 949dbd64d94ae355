#pragma once
// LineChart's state, shared by line_chart.cpp (data and axes) and line_chart_paint.cpp (layout and
// painting). Private to ui/charts/. GUI thread only.
#include <QColor>
#include <QFont>
#include <QHash>
#include <QLineF>
#include <QList>
#include <QPixmap>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <limits>
#include <vector>

#include "charts/chart_axis.hpp"
#include "charts/line_chart.hpp"

namespace distlab::ui {

/// Space around the chart's frame, pixels.
inline constexpr qreal kChartMargin = 6.0;

struct LineChart::Impl {
    struct Series {
        QString name;
        QList<QPointF> points;
        QColor color;
        qreal width = 2.0;
        Qt::PenStyle style = Qt::SolidLine;
        bool inLegend = true;
        double xLow = 0.0, xHigh = 0.0, yLow = 0.0, yHigh = 0.0;
        bool hasPoints = false;
        bool antialiased = true;  // as last painted
    };
    struct LegendEntry {
        int series = 0;
        QRectF rect;
    };

    std::vector<Series> series;  // legend and drawing order
    QHash<QString, int> index;
    QString title;
    QString xTitle;
    QString yTitle;
    ChartAxis x;
    ChartAxis y;
    double xLow = 0.0, xHigh = 0.0, yLow = 0.0, yHigh = 0.0;  // as last set (0, 0: never)
    double fixedLow = 1.0;
    double fixedHigh = 0.0;
    bool hasPoints = false;
    bool ignoreSpikes = false;
    double cutPeak = std::numeric_limits<double>::quiet_NaN();  // NaN when the last fit cut nothing
    std::vector<double> scratch;

    // Look.
    QColor background;
    QColor text;
    QColor grid;
    QColor axisLine;
    QFont titleFont;
    QFont smallFont;

    // Layout, recomputed when a title, the y labels, the legend or the size changes.
    bool layoutDirty = true;
    QSize layoutSize;
    QRectF plot;
    QRectF titleRect;
    qreal yLabelWidth = 0.0;
    std::vector<double> xTicks;
    std::vector<double> yTicks;
    std::vector<LegendEntry> legend;

    // The cached frame (background, title, grid, labels, legend) and reused curve buffers.
    bool frameDirty = true;
    QPixmap frame;
    QPolygonF polyline;
    std::vector<QLineF> segments;

    // The cursor (NaN: none) and whether the pointer moves it.
    double cursorX = std::numeric_limits<double>::quiet_NaN();
    QString cursorText;
    bool cursorTracking = false;
};

}  // namespace distlab::ui
