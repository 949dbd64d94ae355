#include "views/boundary_view.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

#include "bridge/session_controller.hpp"
#include "panels/explanations.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

namespace {
const QColor kNegative(0xf5, 0x93, 0x22);  // Playground's orange (class 0)
const QColor kPositive(0x08, 0x77, 0xbd);  // Playground's blue (class 1)
constexpr qint64 kRebuildPeriodMs = 200;   // five heat maps a second: the boundary moves slowly
constexpr int kLayerMargin = 8;            // pixels round the plot in the points layer (a dot's radius and pen)
}  // namespace

BoundaryView::BoundaryView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.boundary"));
    setMinimumSize(240, 240);
    setAttribute(Qt::WA_OpaquePaintEvent);  // paintEvent fills every pixel
    connect(&controller, &SessionController::pointsChanged, this, [this] {
        m_pointsDirty = true;
        m_layerDirty = true;
        refreshIfVisible();
    });
    connect(&controller, &SessionController::runReplaced, this, [this] {
        m_snapshot.reset();
        m_image = QImage();
        m_scaledImage = QImage();
        m_layerDirty = true;
        m_drawnStep = -1;
        update();
    });
}

bool BoundaryView::refresh() {
    auto snapshot = controller().snapshot();
    const bool changed = snapshot != m_snapshot || m_pointsDirty || invalid();
    if (!changed) return false;
    // While training runs, at most one new heat map per kRebuildPeriodMs (a later tick takes the
    // newest snapshot then).
    if (!m_pointsDirty && !invalid() && m_snapshot && m_rebuilt.isValid() && m_rebuilt.elapsed() < kRebuildPeriodMs) return false;
    m_rebuilt.start();
    m_snapshot = snapshot;
    m_pointsDirty = false;
    if (m_snapshot && m_snapshot->gridResolution > 0) {
        rebuildImage(*m_snapshot);
        m_drawnStep = m_snapshot->step;
    } else {
        m_image = QImage();
    }
    m_scaledImage = QImage();
    update();
    return !m_image.isNull();
}

QColor BoundaryView::colorOf(double value) const {
    // Map to [-1, 1]: orange below the middle, white-ish at the middle, blue above.
    const double middle = 0.5 * (m_valueLow + m_valueHigh);
    const double half = std::max(1e-9, 0.5 * (m_valueHigh - m_valueLow));
    const double t = std::clamp((value - middle) / half, -1.0, 1.0);
    const QColor neutral = palette().base().color();
    return t < 0 ? mixColors(neutral, kNegative, -t) : mixColors(neutral, kPositive, t);
}

void BoundaryView::rebuildImage(const ModelSnapshot& snapshot) {
    const DataPoints& points = controller().points();
    if (points.classification) {
        m_valueLow = 0.0;
        m_valueHigh = 1.0;
    } else {
        // Regression: a symmetric scale around 0 covering the targets and the grid.
        double extent = 1e-6;
        for (float value : points.trainValue) extent = std::max(extent, static_cast<double>(std::abs(value)));
        for (float value : snapshot.grid)
            if (std::isfinite(value)) extent = std::max(extent, static_cast<double>(std::abs(value)));
        m_valueLow = -extent;
        m_valueHigh = extent;
    }
    const int resolution = snapshot.gridResolution;
    m_image = QImage(resolution, resolution, QImage::Format_RGB32);
    for (int row = 0; row < resolution; ++row) {
        // Row 0 of the grid is at gridMinY: the bottom of the picture.
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(resolution - 1 - row));
        for (int col = 0; col < resolution; ++col) {
            const float value = snapshot.grid[static_cast<std::size_t>(row * resolution + col)];
            QColor color = colorOf(std::isfinite(value) ? value : 0.5 * (m_valueLow + m_valueHigh));
            // Paler than the points, so they stand out (as in Playground).
            line[col] = mixColors(palette().base().color(), color, 0.5).rgb();
        }
    }
}

QRectF BoundaryView::plotRect() const {
    // On whole pixels, so the prepared layers are copied without resampling.
    const double side = std::round(std::max(40.0, std::min(width() - 80.0, height() - 70.0)));
    return QRectF(std::round((width() - side) / 2.0 + 10.0), 34.0, side, side);
}

QPointF BoundaryView::toScreen(const QRectF& plot, const QPointF& point) const {
    const double fx = (point.x() - m_snapshot->gridMinX) / std::max(1e-12, m_snapshot->gridMaxX - m_snapshot->gridMinX);
    const double fy = (point.y() - m_snapshot->gridMinY) / std::max(1e-12, m_snapshot->gridMaxY - m_snapshot->gridMinY);
    return QPointF(plot.left() + fx * plot.width(), plot.bottom() - fy * plot.height());
}

void BoundaryView::prepareLayers(const QRectF& plot) {
    const QSize size = plot.size().toSize();
    if (m_scaledImage.size() != size) m_scaledImage = m_image.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    const LayerKey key{size,       m_snapshot->gridMinX, m_snapshot->gridMaxX,          m_snapshot->gridMinY, m_snapshot->gridMaxY,
                       m_valueLow, m_valueHigh,          palette().base().color().rgb()};
    if (!m_layerDirty && key == m_layerKey) return;
    m_layerDirty = false;
    m_layerKey = key;
    // The dots may reach past the plot's edges: the layer has a margin all round.
    m_pointsLayer = QImage(size + QSize(2 * kLayerMargin, 2 * kLayerMargin), QImage::Format_ARGB32_Premultiplied);
    m_pointsLayer.fill(Qt::transparent);
    QPainter painter(&m_pointsLayer);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.translate(kLayerMargin - plot.left(), kLayerMargin - plot.top());
    const DataPoints& points = controller().points();
    auto pointColor = [&](float value) {
        if (!points.classification) return colorOf(value);
        if (value == 0.0f) return kNegative.darker(110);
        if (value == 1.0f) return kPositive.darker(110);
        return QColor::fromHsv((static_cast<int>(value) * 67) % 360, 200, 200);
    };
    const QColor outline = palette().base().color().lightness() > 128 ? Qt::white : Qt::black;
    const auto at = [](const std::vector<float>& xy, std::size_t i) { return QPointF(xy[2 * i], xy[2 * i + 1]); };
    for (std::size_t i = 0; i < points.trainValue.size(); ++i) {
        painter.setPen(QPen(outline, 1.0));
        painter.setBrush(pointColor(points.trainValue[i]));
        painter.drawEllipse(toScreen(plot, at(points.train, i)), 3.5, 3.5);
    }
    painter.setBrush(Qt::NoBrush);
    for (std::size_t i = 0; i < points.testValue.size(); ++i) {
        painter.setPen(QPen(pointColor(points.testValue[i]), 1.6));
        painter.drawEllipse(toScreen(plot, at(points.test, i)), 3.5, 3.5);
    }
}

void BoundaryView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    painter.setPen(palette().text().color());
    if (m_image.isNull() || !m_snapshot) {
        QString text =
            tr("The decision boundary appears here for 2-D data: the model's output over the plane, with "
               "the training and test points on top.");
        if (m_snapshot && !m_snapshot->layerWidths.empty() && m_snapshot->layerWidths.front() != 2) {
            text = tr("The decision boundary needs 2-D data; this run's data has %1 features per sample. "
                      "Choose a synthetic set in the Data panel to see one.")
                       .arg(m_snapshot->layerWidths.front());
        } else if (!controller().hasRun() || controller().isLoading()) {
            text = tr("Loading the run: the decision boundary appears here for 2-D data.");
        }
        painter.drawText(rect().adjusted(24, 24, -24, -24), Qt::AlignCenter | Qt::TextWordWrap, text);
        return;
    }
    const QRectF plot = plotRect();
    prepareLayers(plot);
    painter.drawImage(plot.topLeft(), m_scaledImage);
    painter.drawImage(plot.topLeft() - QPointF(kLayerMargin, kLayerMargin), m_pointsLayer);
    const DataPoints& points = controller().points();
    painter.setPen(palette().text().color());
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot);
    const auto& s = *m_snapshot;
    painter.drawText(QRectF(plot.left(), 4, plot.width(), 24), Qt::AlignCenter,
                     points.classification ? tr("P(class 1) at step %1 — filled: training points, rings: test points").arg(s.step)
                                           : tr("Model output at step %1 — filled: training points, rings: test points").arg(s.step));
    painter.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 18), Qt::AlignLeft, QString::number(s.gridMinX, 'g', 3));
    painter.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 18), Qt::AlignRight, QString::number(s.gridMaxX, 'g', 3));
    painter.drawText(QRectF(plot.left(), plot.bottom() + 2, plot.width(), 18), Qt::AlignHCenter, tr("feature x₁"));
    painter.drawText(QRectF(plot.left() - 74, plot.top(), 70, 18), Qt::AlignRight, QString::number(s.gridMaxY, 'g', 3));
    painter.drawText(QRectF(plot.left() - 74, plot.bottom() - 18, 70, 18), Qt::AlignRight, QString::number(s.gridMinY, 'g', 3));
    painter.drawText(QRectF(plot.left() - 74, plot.center().y() - 9, 70, 18), Qt::AlignRight, tr("x₂"));
}

}  // namespace distlab::ui
