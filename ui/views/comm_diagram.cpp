#include "views/comm_diagram.hpp"

#include <QLineF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numbers>

#include "bridge/all_reduce_capture.hpp"
#include "run_palette.hpp"

namespace distlab::ui {

namespace {
constexpr int kDiagramLegendHeight = 36;  // one or two lines
constexpr double kArrowOffset = 5.0;      // arrows of opposite directions run side by side

int floorLog2(int value) { return value <= 1 ? 0 : std::bit_width(static_cast<unsigned>(value)) - 1; }

struct Link {
    int transfers = 0;
    TransferKind kind = TransferKind::Copy;
    std::int64_t begin = 0;
    std::int64_t end = 0;
};

void drawLabel(QPainter& painter, QPointF centre, const QString& text, const QColor& border, const QColor& ink) {
    const QFontMetricsF metrics(painter.font());
    QRectF box(0, 0, metrics.horizontalAdvance(text) + 8, metrics.height() + 2);
    box.moveCenter(centre);
    QColor fill = painter.background().color();
    fill.setAlpha(225);
    painter.setPen(QPen(border, 1.0));
    painter.setBrush(fill);
    painter.drawRoundedRect(box, 3, 3);
    painter.setPen(ink);
    painter.drawText(box, Qt::AlignCenter, text);
}
}  // namespace

CommDiagram::CommDiagram(QWidget* parent) : QWidget(parent) {
    setMinimumSize(160, 160);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void CommDiagram::setCaptureFrame(const AllReduceCapture* capture, int frame) {
    m_capture = capture;
    m_frame = frame;
    update();
}

void CommDiagram::setEmptyText(const QString& text) {
    m_emptyText = text;
    update();
}

double CommDiagram::nodeRadius(int ranks) const {
    const double side = std::min(width(), height() - kDiagramLegendHeight);
    return std::clamp(side / (ranks > 4 ? 10.0 : 7.5), 13.0, 30.0);
}

QPointF CommDiagram::nodeCentre(int rank, int ranks) const {
    const double radius = nodeRadius(ranks);
    const QRectF area = QRectF(rect()).adjusted(radius + 8, radius + 8, -radius - 8, -radius - 8 - kDiagramLegendHeight);
    const CrossDeviceOps algorithm = m_capture != nullptr ? m_capture->algorithm() : CrossDeviceOps::Ring;
    if (algorithm == CrossDeviceOps::Tree) {
        // The binary heap the tree algorithm uses: rank r's children are 2r + 1 and 2r + 2.
        const int levels = floorLog2(ranks) + 1;
        const int depth = floorLog2(rank + 1);
        const int first = (1 << depth) - 1;
        const double y = levels == 1 ? area.center().y() : area.top() + area.height() * depth / (levels - 1);
        const double x = area.left() + area.width() * (rank - first + 0.5) / (1 << depth);
        return {x, y};
    }
    const bool star = algorithm == CrossDeviceOps::ReductionToOneDevice;
    if (star && rank == 0) return area.center();
    const int onCircle = star ? ranks - 1 : ranks;
    const int index = star ? rank - 1 : rank;
    const double angle = -std::numbers::pi / 2 + 2 * std::numbers::pi * index / std::max(1, onCircle);
    const double r = std::min(area.width(), area.height()) / 2;
    return area.center() + QPointF(r * std::cos(angle), r * std::sin(angle));
}

void CommDiagram::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().base());
    painter.setBackground(palette().base());
    m_arrowsPainted = 0;
    if (m_capture == nullptr || m_capture->empty()) {
        painter.setPen(palette().placeholderText().color());
        painter.drawText(rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, m_emptyText);
        return;
    }
    const int ranks = m_capture->ranks();
    const double radius = nodeRadius(ranks);

    // One arrow per link used in this frame (a link with several chunks says how many).
    std::map<std::pair<int, int>, Link> links;
    std::vector<bool> involved(static_cast<std::size_t>(ranks), false);
    for (const CapturedTransfer& t : m_capture->transfers(m_frame)) {
        Link& link = links[{t.from, t.to}];
        if (link.transfers++ == 0) {
            link.kind = t.kind;
            link.begin = t.begin;
            link.end = t.end;
        }
        involved[static_cast<std::size_t>(t.from)] = involved[static_cast<std::size_t>(t.to)] = true;
    }
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    for (const auto& [ends, link] : links) {
        const QPointF a = nodeCentre(ends.first, ranks), b = nodeCentre(ends.second, ranks);
        const QLineF line(a, b);
        if (line.length() < 2 * radius + 4) continue;
        const QPointF unit = (b - a) / line.length();
        const QPointF normal(-unit.y(), unit.x());
        const QPointF start = a + unit * (radius + 2) + normal * kArrowOffset;
        const QPointF tip = b - unit * (radius + 3) + normal * kArrowOffset;
        const QColor color = replicaColor(ends.first);
        QPen pen(color, 2.6, link.kind == TransferKind::Copy ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap);
        painter.setPen(pen);
        painter.drawLine(start, tip - unit * 9);
        QPainterPath head;
        head.moveTo(tip);
        head.lineTo(tip - unit * 12 + normal * 6);
        head.lineTo(tip - unit * 12 - normal * 6);
        head.closeSubpath();
        painter.fillPath(head, color);
        QString label = QStringLiteral("%1 [%2, %3)")
                            .arg(link.kind == TransferKind::Reduce ? QStringLiteral("+") : QStringLiteral("copy"))
                            .arg(link.begin)
                            .arg(link.end);
        if (link.transfers > 1) label += QStringLiteral(" +%1").arg(link.transfers - 1);
        // The label on the far side of the arrow from its offset (outside the ring, not across its middle).
        drawLabel(painter, (start + tip) / 2 - normal * 12, label, color, palette().text().color());
        ++m_arrowsPainted;
    }

    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    for (int r = 0; r < ranks; ++r) {
        const QPointF centre = nodeCentre(r, ranks);
        QColor fill = replicaColor(r);
        if (!involved[static_cast<std::size_t>(r)]) fill.setAlpha(110);
        painter.setPen(QPen(palette().text().color(), involved[static_cast<std::size_t>(r)] ? 1.6 : 0.6));
        painter.setBrush(fill);
        painter.drawEllipse(centre, radius, radius);
        painter.setPen(Qt::white);
        painter.drawText(QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius), Qt::AlignCenter,
                         QStringLiteral("cpu:%1").arg(r));
    }

    // Legend: what the two line styles mean (on two lines when narrow).
    painter.setFont(small);
    const QColor ink = palette().text().color();
    const QString adds = tr("adds into the receiver's chunk"), copies = tr("overwrites it (copy)");
    const QFontMetricsF metrics(small);
    const double firstWidth = 40 + metrics.horizontalAdvance(adds) + 16;
    const bool oneLine = firstWidth + 30 + metrics.horizontalAdvance(copies) < width() - 10;
    auto entry = [&](double x, double y, Qt::PenStyle style, const QString& text) {
        painter.setPen(QPen(ink, 2.0, style));
        painter.drawLine(QPointF(x, y), QPointF(x + 24, y));
        painter.setPen(ink);
        painter.drawText(QPointF(x + 30, y + 4), text);
    };
    const double y = height() - (oneLine ? kDiagramLegendHeight / 2.0 : kDiagramLegendHeight - 8.0);
    entry(10, y, Qt::SolidLine, adds);
    if (oneLine)
        entry(10 + firstWidth, y, Qt::DashLine, copies);
    else
        entry(10, y + 16, Qt::DashLine, copies);
}

}  // namespace distlab::ui
