#include "views/staleness_histogram.hpp"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace distlab::ui {

namespace {
const QColor kBar(0x4e, 0x79, 0xa7);
const QColor kTheory(0xe1, 0x57, 0x59);
constexpr int kMinBins = 8;
}  // namespace

StalenessHistogram::StalenessHistogram(QWidget* parent) : QWidget(parent) { setObjectName(QStringLiteral("stalenessHistogram")); }

void StalenessHistogram::setData(const UpdateTally& tally, double theory) {
    for (int b = 0; b < UpdateTally::kBins; ++b) m_bins[static_cast<std::size_t>(b)] = tally.bin(b);
    m_count = tally.windowCount();
    m_mean = tally.windowMean();
    m_max = tally.windowMax();
    m_theory = theory;
    update();
}

void StalenessHistogram::clear() {
    m_bins.fill(0);
    m_count = 0;
    m_mean = 0.0;
    m_max = 0;
    m_theory = -1.0;
    update();
}

void StalenessHistogram::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics metrics(font());
    const QRect plot =
        rect().adjusted(metrics.horizontalAdvance(QStringLiteral("100%")) + 10, metrics.height() + 8, -10, -2 * metrics.height() - 6);
    const QColor text = palette().color(QPalette::Text);
    if (m_count == 0) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Press Play: the staleness of every applied update is counted here."));
        return;
    }
    const int theoryBin = m_theory >= 0.0 ? static_cast<int>(std::ceil(m_theory)) : 0;
    const int bins = std::clamp<int>(static_cast<int>(std::max<std::int64_t>(m_max, theoryBin)) + 2, kMinBins, UpdateTally::kBins);
    const std::int64_t tallest = *std::max_element(m_bins.begin(), m_bins.begin() + bins);
    const double top = std::max(0.05, std::ceil(double(tallest) / m_count * 10.0) / 10.0);  // share, rounded up to 10%
    const qreal binWidth = plot.width() / static_cast<qreal>(bins);
    auto xOf = [&](double staleness) { return plot.left() + (staleness + 0.5) * binWidth; };

    // Axes and grid.
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    for (int i = 0; i <= 2; ++i) {
        const qreal y = plot.bottom() - plot.height() * i / 2.0;
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        painter.drawText(QRectF(0, y - metrics.height() / 2.0, plot.left() - 4, metrics.height()), Qt::AlignRight | Qt::AlignVCenter,
                         QStringLiteral("%1%").arg(std::lround(top * 100 * i / 2.0)));
    }
    painter.setPen(text);
    const int labelEvery = std::max(1, static_cast<int>(std::ceil(metrics.horizontalAdvance(QStringLiteral("000")) / binWidth)));
    for (int b = 0; b < bins; ++b) {
        const double share = double(m_bins[static_cast<std::size_t>(b)]) / m_count;
        const qreal height = plot.height() * share / top;
        painter.fillRect(QRectF(plot.left() + b * binWidth + 1, plot.bottom() - height, binWidth - 2, height), kBar);
        if (b % labelEvery == 0) {
            const QString label = b == UpdateTally::kBins - 1 ? QStringLiteral("%1+").arg(b) : QString::number(b);
            painter.drawText(QRectF(plot.left() + b * binWidth - 10, plot.bottom() + 2, binWidth + 20, metrics.height()), Qt::AlignHCenter,
                             label);
        }
    }
    const QRectF axisTitle(plot.left(), plot.bottom() + metrics.height() + 2, plot.width(), metrics.height());
    painter.drawText(axisTitle, Qt::AlignHCenter,
                     metrics.elidedText(tr("staleness: updates applied between a worker's read and its push"), Qt::ElideRight,
                                        static_cast<int>(axisTitle.width())));
    // The measured mean (solid) and the theory (dashed), with a legend that shows both line styles.
    painter.setPen(QPen(text, 2));
    painter.drawLine(QPointF(xOf(m_mean), plot.top()), QPointF(xOf(m_mean), plot.bottom()));
    qreal x = plot.left();
    const qreal y = 2 + metrics.height() / 2.0;
    auto legendEntry = [&](const QPen& pen, const QString& label) {
        painter.setPen(pen);
        painter.drawLine(QPointF(x, y), QPointF(x + 18, y));
        painter.setPen(text);
        painter.drawText(QPointF(x + 22, 2 + metrics.ascent()), label);
        x += 22 + metrics.horizontalAdvance(label) + 14;
    };
    legendEntry(QPen(text, 2), tr("mean %1").arg(m_mean, 0, 'f', 2));
    if (m_theory >= 0.0) {
        const QPen dashed(kTheory, 2, Qt::DashLine);
        painter.setPen(dashed);
        painter.drawLine(QPointF(xOf(m_theory), plot.top()), QPointF(xOf(m_theory), plot.bottom()));
        legendEntry(dashed, tr("theory %1").arg(m_theory, 0, 'f', 0));
    }
    // The largest staleness in the window, which the last bin ("31+") cannot show.
    painter.setPen(text);
    painter.drawText(QPointF(x, 2 + metrics.ascent()), tr("max %1").arg(m_max));
}

}  // namespace distlab::ui
