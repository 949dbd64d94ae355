#include "views/buffer_strips.hpp"

#include <QPainter>

#include <algorithm>
#include <bit>

#include "bridge/all_reduce_capture.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

namespace {
constexpr int kLabelWidth = 64;
constexpr int kTopHeight = 18;  // pack labels and element markers
constexpr int kStripsLegendHeight = 24;
constexpr int kBandHeight = 4;  // the contributors' colours under each chunk
constexpr int kRowGap = 6;
}  // namespace

BufferStrips::BufferStrips(QWidget* parent) : QWidget(parent) {
    setMinimumSize(200, 120);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

QColor BufferStrips::contributionColor(int count, int ranks) {
    // Partial sums from pale (the replica's own gradient) to deep blue; the complete sum is green.
    if (ranks > 1 && count >= ranks) return QColor::fromRgb(0x2ca25f);
    const double t = ranks > 2 ? std::clamp(static_cast<double>(count - 1) / (ranks - 2), 0.0, 1.0) : 0.0;
    return mixColors(QColor::fromRgb(0xe6eef5), QColor::fromRgb(0x3b6fa8), t);
}

void BufferStrips::setCaptureFrame(const AllReduceCapture* capture, int frame) {
    m_capture = capture;
    m_frame = frame;
    update();
}

void BufferStrips::setMarkers(std::vector<std::int64_t> elements) {
    m_markers = std::move(elements);
    update();
}

void BufferStrips::setEmptyText(const QString& text) {
    m_emptyText = text;
    update();
}

void BufferStrips::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    m_chunksPainted = 0;
    if (m_capture == nullptr || m_capture->empty() || m_capture->elements() <= 0) {
        painter.setPen(palette().placeholderText().color());
        painter.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const AllReduceCapture& capture = *m_capture;
    const int ranks = capture.ranks();
    const QColor ink = palette().text().color();
    const double left = kLabelWidth, right = width() - 8.0;
    const double scale = (right - left) / static_cast<double>(capture.elements());
    auto xOf = [&](std::int64_t element) { return left + static_cast<double>(element) * scale; };
    const int rowHeight = std::clamp((height() - kTopHeight - kStripsLegendHeight) / ranks - kRowGap, 12, 44);
    auto rowTop = [&](int rank) { return kTopHeight + rank * (rowHeight + kRowGap); };
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);

    // What changed at this step, per receiving rank: the chunks and who sent them.
    const auto transfers = capture.transfers(m_frame);
    for (int r = 0; r < ranks; ++r) {
        const int top = rowTop(r);
        painter.fillRect(QRectF(6, top + rowHeight / 2.0 - 5, 10, 10), replicaColor(r));
        painter.setPen(ink);
        painter.drawText(QRectF(20, top, kLabelWidth - 22, rowHeight), Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("cpu:%1").arg(r));
        for (int s = 0; s < capture.segmentCount(); ++s) {
            const std::uint64_t holders = capture.contributors(m_frame, r, s);
            const int count = std::popcount(holders);
            const double x0 = xOf(capture.segmentBegin(s)), x1 = xOf(capture.segmentEnd(s));
            const QRectF chunk(x0, top, std::max(1.0, x1 - x0), rowHeight - kBandHeight);
            const QColor fill = contributionColor(count, ranks);
            painter.fillRect(chunk, fill);
            // The band: one slice per replica whose contribution the chunk holds.
            if (x1 - x0 >= count * 2.0) {
                double x = x0;
                const double slice = (x1 - x0) / std::max(1, count);
                for (int h = 0; h < ranks; ++h) {
                    if ((holders >> h & 1U) == 0) continue;
                    painter.fillRect(QRectF(x, top + rowHeight - kBandHeight, slice, kBandHeight), replicaColor(h));
                    x += slice;
                }
            }
            if (x1 - x0 > 30 && rowHeight >= 14) {
                painter.setPen(fill.lightness() < 140 ? Qt::white : Qt::black);
                painter.drawText(chunk, Qt::AlignCenter, QStringLiteral("%1/%2").arg(count).arg(ranks));
            }
            ++m_chunksPainted;
        }
        painter.setPen(QPen(palette().mid().color(), 1.0));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(QRectF(left, top, right - left, rowHeight));
        for (const CapturedTransfer& t : transfers) {
            if (t.to != r) continue;
            painter.setPen(QPen(replicaColor(t.from), 2.5));
            painter.drawRect(QRectF(xOf(t.begin) + 1, top + 1, std::max(2.0, xOf(t.end) - xOf(t.begin) - 2), rowHeight - 2));
        }
    }
    const int bottom = rowTop(ranks) - kRowGap;

    // Packs: dashed boundaries and their names; the listed elements as ticks a, b, c ...
    painter.setPen(ink);
    const auto packs = capture.packs();
    for (std::size_t p = 0; p < packs.size(); ++p) {
        const double x0 = xOf(packs[p].begin), x1 = xOf(packs[p].end);
        if (packs.size() > 1 && x1 - x0 > 40) painter.drawText(QRectF(x0, 0, x1 - x0, kTopHeight), Qt::AlignCenter, tr("pack %1").arg(p));
        if (p > 0) {
            painter.setPen(QPen(ink, 1.2, Qt::DashLine));
            painter.drawLine(QPointF(x0, kTopHeight - 4), QPointF(x0, bottom + 2));
            painter.setPen(ink);
        }
    }
    for (std::size_t m = 0; m < m_markers.size(); ++m) {
        const double x = xOf(m_markers[m]) + std::max(1.0, scale) / 2;
        painter.setPen(QPen(ink, 1.0));
        painter.drawLine(QPointF(x, kTopHeight - 5), QPointF(x, bottom));
        painter.drawText(QPointF(x + 2, kTopHeight - 5), QString(QChar(u'a' + static_cast<char16_t>(m))));
    }

    // Legend: the colour of 1 … N contributions.
    double x = 8;
    const double y = height() - kStripsLegendHeight + 5;
    painter.setPen(ink);
    painter.drawText(QPointF(x, y + 11), tr("contributions held:"));
    x += QFontMetricsF(small).horizontalAdvance(tr("contributions held:")) + 8;
    for (int count = 1; count <= ranks; ++count) {
        const QColor fill = contributionColor(count, ranks);
        painter.fillRect(QRectF(x, y, 26, 14), fill);
        painter.setPen(fill.lightness() < 140 ? Qt::white : Qt::black);
        painter.drawText(QRectF(x, y, 26, 14), Qt::AlignCenter, QString::number(count));
        x += 28;
    }
    painter.setPen(ink);
    painter.drawText(QPointF(x + 6, y + 11), tr("(%1 = the full sum)").arg(ranks));
}

}  // namespace distlab::ui
