#include "study/study_charts.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bridge/series_renderer.hpp"
#include "charts/line_chart.hpp"
#include "charts/smoothing_control.hpp"
#include "run_palette.hpp"
#include "study/study_controller.hpp"

namespace distlab::ui {

namespace {

constexpr double kDefaultSmoothing = 0.6;  // TensorBoard's default: per-update values are noisy
const QString kSmoothingKey = QStringLiteral("study/smoothing");
constexpr StudyMetric kOverlayMetrics[] = {StudyMetric::Loss, StudyMetric::Accuracy, StudyMetric::StepMs, StudyMetric::SamplesPerSecond};

double valueOf(const StudyCurvePoint& point, StudyMetric metric) {
    switch (metric) {
        case StudyMetric::Loss:
            return point.loss;
        case StudyMetric::Accuracy:
            return point.accuracy;
        case StudyMetric::StepMs:
            return point.stepMs;
        case StudyMetric::SamplesPerSecond:
            return point.samplesPerSecond;
        case StudyMetric::CommunicationMs:
            return point.communicationMs;
        case StudyMetric::WaitingMs:
            return point.waitingMs;
        case StudyMetric::Count:
            break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

QString StudyCharts::metricName(StudyMetric metric) {
    switch (metric) {
        case StudyMetric::Loss:
            return tr("Training loss");
        case StudyMetric::Accuracy:
            return tr("Accuracy (training batch)");
        case StudyMetric::StepMs:
            return tr("Step time (ms)");
        case StudyMetric::SamplesPerSecond:
            return tr("Samples per second");
        case StudyMetric::CommunicationMs:
            return tr("Communicating (ms per step)");
        case StudyMetric::WaitingMs:
            return tr("Waiting (ms per step)");
        case StudyMetric::Count:
            break;
    }
    return {};
}

QColor StudyCharts::variantColor(int variant) { return replicaColor(variant); }

StudyCharts::StudyCharts(StudyController& controller, QWidget* parent)
    : QWidget(parent), m_controller(controller), m_cursorX(std::numeric_limits<double>::quiet_NaN()) {
    m_layout = new QComboBox(this);
    m_layout->addItems({tr("Overlay"), tr("Small multiples")});
    m_layout->setAccessibleName(tr("Chart layout"));
    m_metric = new QComboBox(this);
    for (int m = 0; m < static_cast<int>(StudyMetric::Count); ++m) m_metric->addItem(metricName(static_cast<StudyMetric>(m)));
    m_metric->setAccessibleName(tr("Metric of the small multiples"));
    m_metric->setEnabled(false);
    m_axis = new QComboBox(this);
    m_axis->addItems({tr("Updates"), tr("Training seconds")});
    m_axis->setAccessibleName(tr("X axis"));
    m_smoothing = new SmoothingControl(QSettings().value(kSmoothingKey, kDefaultSmoothing).toDouble(), this);
    auto* controls = new QHBoxLayout();
    controls->addWidget(new QLabel(tr("Charts"), this));
    controls->addWidget(m_layout);
    controls->addWidget(m_metric);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("X axis"), this));
    controls->addWidget(m_axis);
    controls->addSpacing(16);
    controls->addWidget(m_smoothing);
    controls->addStretch(1);
    m_grid = new QGridLayout();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addLayout(m_grid, 1);
    auto changed = [this] {
        m_metric->setEnabled(m_layout->currentIndex() == 1);
        rebuild();
    };
    connect(m_layout, &QComboBox::currentIndexChanged, this, changed);
    connect(m_metric, &QComboBox::currentIndexChanged, this, changed);
    connect(m_axis, &QComboBox::currentIndexChanged, this, changed);
    connect(m_smoothing, &SmoothingControl::weightChanged, this, [this](double weight) {
        QSettings().setValue(kSmoothingKey, weight);
        m_drawn = 0;  // the same charts, every curve drawn again
        refresh();
    });
    connect(&m_controller, &StudyController::updated, this, &StudyCharts::refresh);
}

void StudyCharts::setLayoutMode(Layout layout) { m_layout->setCurrentIndex(layout == Layout::Overlay ? 0 : 1); }
StudyCharts::Layout StudyCharts::layoutMode() const { return m_layout->currentIndex() == 0 ? Layout::Overlay : Layout::SmallMultiples; }
void StudyCharts::setMetric(StudyMetric metric) { m_metric->setCurrentIndex(static_cast<int>(metric)); }
void StudyCharts::setWallTime(bool on) { m_axis->setCurrentIndex(on ? 1 : 0); }

void StudyCharts::rebuild() {
    for (LineChart* chart : m_charts) chart->deleteLater();
    m_charts.clear();
    m_chartMetric.clear();
    m_chartVariant.clear();
    const int variants = m_controller.variantCount();
    m_builtFor = m_controller.studyGeneration();
    auto add = [&](StudyMetric metric, int variant) {
        auto* chart = new LineChart(this);
        chart->setTitle(variant < 0 ? metricName(metric)
                                    : QString::fromStdString(m_controller.study().variants[static_cast<std::size_t>(variant)].label));
        chart->setEmptyText(tr("Run the study: each variant's curve appears here as it trains."));
        chart->setCursorTracking(true);
        if (metric == StudyMetric::Accuracy) chart->setFixedYRange(0.0, 1.0);
        if (metric == StudyMetric::StepMs) chart->setIgnoreSpikes(true);
        connect(chart, &LineChart::cursorMoved, this, &StudyCharts::setCursorX);
        const int index = static_cast<int>(m_charts.size());
        const int columns = variant < 0 ? 2 : (variants <= 4 ? 2 : 3);
        m_grid->addWidget(chart, index / columns, index % columns);
        m_charts.push_back(chart);
        m_chartMetric.push_back(metric);
        m_chartVariant.push_back(variant);
    };
    if (layoutMode() == Layout::Overlay) {
        for (StudyMetric metric : kOverlayMetrics) add(metric, -1);
    } else {
        for (int v = 0; v < variants; ++v) add(static_cast<StudyMetric>(m_metric->currentIndex()), v);
    }
    m_drawn = 0;
    refresh();
}

void StudyCharts::refresh() {
    if (m_builtFor != m_controller.studyGeneration()) {
        rebuild();
        return;
    }
    if (m_drawn == m_controller.version()) return;
    m_drawn = m_controller.version();
    const bool shareY = layoutMode() == Layout::SmallMultiples && !m_charts.empty() && m_chartMetric.front() != StudyMetric::Accuracy;
    for (std::size_t c = 0; c < m_charts.size(); ++c) {
        if (shareY) m_charts[c]->setFixedYRange(1.0, 0.0);  // each fits its own first, then they share the union
        fill(*m_charts[c], m_chartMetric[c], m_chartVariant[c]);
    }
    if (shareY) {
        // One y range for every small multiple, so their heights compare.
        double low = std::numeric_limits<double>::infinity(), high = -low;
        for (LineChart* chart : m_charts) {
            const auto [l, h] = chart->yRange();
            if (l < h) {
                low = std::min(low, l);
                high = std::max(high, h);
            }
        }
        if (low < high) {
            for (LineChart* chart : m_charts) {
                chart->setFixedYRange(low, high);
                chart->fitAxes();
            }
        }
    }
    setCursorX(m_cursorX);
}

void StudyCharts::fill(LineChart& chart, StudyMetric metric, int onlyVariant) {
    const bool wall = m_axis->currentIndex() == 1;
    chart.setAxisTitles(wall ? tr("training seconds") : tr("update"), metricName(metric));
    double xLow = std::numeric_limits<double>::infinity(), xHigh = -xLow;
    for (int v = 0; v < m_controller.variantCount(); ++v) {
        if (onlyVariant >= 0 && v != onlyVariant) continue;
        const auto& points = m_controller.curves(v).steps.points();
        QList<QPointF> line;
        line.reserve(static_cast<qsizetype>(points.size()));
        // The Learning view's smoothing, weighted per update: a kept point stands for the updates
        // since the one kept before it, so the curve keeps its look when the runner thins it.
        DebiasedEma ema(m_smoothing->weight());
        std::int64_t previousStep = -1;
        for (const StudyCurvePoint& point : points) {
            double y = valueOf(point, metric);
            if (!std::isfinite(y)) continue;
            y = ema.add(y, previousStep < 0 ? 1 : std::max<std::int64_t>(1, point.step - previousStep));
            previousStep = point.step;
            const double x = wall ? point.seconds : static_cast<double>(point.step);
            line.append(QPointF(x, y));
        }
        if (!line.isEmpty()) {  // x grows along a curve
            xLow = std::min(xLow, line.front().x());
            xHigh = std::max(xHigh, line.back().x());
        }
        const QString label = QString::fromStdString(m_controller.study().variants[static_cast<std::size_t>(v)].label);
        chart.setSeries(label, line, variantColor(v), v == m_controller.study().baseline() ? 2.5 : 1.8);
    }
    // While variants train the range keeps headroom (it moves now and then, not every frame); once
    // they have ended it fits the data.
    if (xLow < xHigh) {
        if (m_controller.isRunning())
            chart.stableXRange(xLow, xHigh);
        else
            chart.setXRange(xLow, xHigh);
    }
    chart.fitAxes();
}

QString StudyCharts::cursorText(StudyMetric metric, int onlyVariant, double x) const {
    const bool wall = m_axis->currentIndex() == 1;
    QStringList lines;
    lines.append(wall ? tr("%1 s").arg(x, 0, 'f', 2) : tr("update %1").arg(std::llround(x)));
    for (int v = 0; v < m_controller.variantCount(); ++v) {
        if (onlyVariant >= 0 && v != onlyVariant) continue;
        const auto& points = m_controller.curves(v).steps.points();
        // The last kept update at or before x: a real update the cursor can name.
        const StudyCurvePoint* at = nullptr;
        for (const StudyCurvePoint& point : points) {
            if ((wall ? point.seconds : static_cast<double>(point.step)) > x) break;
            at = &point;
        }
        if (at == nullptr) continue;
        const double value = valueOf(*at, metric);
        if (!std::isfinite(value)) continue;
        lines.append(QStringLiteral("%1: %2").arg(QString::fromStdString(m_controller.study().variants[static_cast<std::size_t>(v)].label),
                                                  QString::number(value, 'g', 4)));
    }
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

void StudyCharts::setCursorX(double x) {
    m_cursorX = x;
    for (std::size_t c = 0; c < m_charts.size(); ++c)
        m_charts[c]->setCursor(x, std::isnan(x) ? QString() : cursorText(m_chartMetric[c], m_chartVariant[c], x));
}

}  // namespace distlab::ui
