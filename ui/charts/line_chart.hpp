#pragma once
// The one line-chart widget of the app, painted with QPainter (no Qt Charts: its scene, per-update
// stroking of every series and translucent fills cost the engine a core on small machines).
// Cheap by construction: the axes, labels and legend are cached in a pixmap redrawn only when they
// change; new points repaint only the columns from the first point that changed; curves are drawn
// in opaque colours (translucent ones pre-mixed with the background, so the raster engine never
// hands fills to its worker threads), thin ones as one polyline and wide ones as separate segments
// (never a wide stroked path), and noisy ones (a band of vertical strokes) without antialiasing.
// An empty chart shows a sentence saying what will appear. GUI thread only.
#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <utility>

class QLabel;
class QPainter;

namespace distlab::ui {

class LineChart : public QWidget {
    Q_OBJECT

public:
    explicit LineChart(QWidget* parent = nullptr);
    ~LineChart() override;

    void setTitle(const QString& title);
    void setAxisTitles(const QString& xTitle, const QString& yTitle);
    /// Shown over the chart while every series is empty ("Press Play to start training: ...").
    void setEmptyText(const QString& text);
    /// Creates series `name` on first use (legend order = first-use order), then replaces its points.
    void setSeries(const QString& name, const QList<QPointF>& points, const QColor& color, qreal width = 2.0,
                   Qt::PenStyle style = Qt::SolidLine);
    /// Hides a series' legend entry (e.g. the faint raw curve under a smoothed one).
    void setSeriesInLegend(const QString& name, bool shown);
    void removeAllSeries();
    /// The x range to draw data spanning [dataLow, dataHigh] in, and sets the x axis to it. The range
    /// keeps headroom on the right so that a growing run changes it (and re-lays out every series)
    /// only now and then, not every frame.
    std::pair<double, double> stableXRange(double dataLow, double dataHigh);
    /// Fits the y axis to the points given (nice round bounds, changed only when the data leaves it
    /// or fills too little of it); call after the setSeries of a frame.
    void fitAxes();
    /// Fixes the y range instead of fitting it (e.g. accuracy in [0, 1]); low > high: fit again.
    void setFixedYRange(double low, double high);
    /// Sets the x axis to [low, high] as given (a range shared with another chart; see stableXRange).
    void setXRange(double low, double high);
    /// The x and y axis ranges as last set ({0, 0}: never).
    std::pair<double, double> xRange() const;
    std::pair<double, double> yRange() const;
    /// Fits the y axis to the bulk of the points instead of all of them: its top is at most twice
    /// the 98th percentile, so a rare spike is cut at the top instead of flattening every other point.
    void setIgnoreSpikes(bool on);
    /// The highest y value of the last fit when it was cut off the top (NaN when nothing was).
    double cutPeak() const;
    QString title() const;
    /// The title is drawn whole (not elided) at the chart's current width.
    bool titleFits() const;
    /// Plot area width in pixels: the number of columns a renderer should produce.
    int plotColumns() const;
    /// Points handed to the chart so far (for tests).
    std::int64_t pointsReceived() const { return m_pointsReceived; }
    int seriesCount() const;
    /// Names of the series, in legend order.
    QStringList seriesNames() const;
    /// The points of series `name` as last set (empty when there is none).
    QList<QPointF> seriesPoints(const QString& name) const;
    /// A vertical cursor at data x `x` with `text` beside it (charts that move together: a study's);
    /// NaN removes it.
    void setCursor(double x, const QString& text = {});
    double cursorX() const;
    /// Emits cursorMoved for the pointer's x over the plot (NaN when it leaves). Off by default.
    void setCursorTracking(bool on);

signals:
    void cursorMoved(double x);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    struct Impl;
    void updateEmptyLabel();
    void applyTheme();
    void layoutChart() const;
    void paintFrame();
    void paintGrid(QPainter& painter) const;
    void paintCurves(QPainter& painter, const QRect& dirty);
    void paintCursor(QPainter& painter) const;
    /// Whole pixels inside the axes.
    QRect plotInterior() const;
    /// Where curves are drawn: a change of points repaints only this.
    QRect curveRect() const;
    /// Repaints the curves right of data x `fromX` (-inf: all of them) for a curve `width` wide, or
    /// everything when the frame must be redrawn anyway.
    void updateCurves(double fromX = -1e300, qreal width = 0.0);
    std::unique_ptr<Impl> m_impl;
    QLabel* m_emptyLabel = nullptr;
    std::int64_t m_pointsReceived = 0;
};

}  // namespace distlab::ui
