#include "views/schedule_canvas.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

#include "run_palette.hpp"

namespace distlab::ui {

namespace {
constexpr int kNameWidth = 64;
constexpr int kAxisHeight = 22;
constexpr int kLaneGap = 6;
constexpr int kMaxLaneHeight = 64;
// Below the lanes, each device's activation memory over the step: a title line, then a band a lane.
constexpr int kMemoryTitleHeight = 20;
constexpr int kMemoryBandHeight = 22;
constexpr int kMemoryBandGap = 3;

/// The height the activation bands take (none where the snapshot has no stage sizes).
int memoryAreaHeight(const ScheduleSnapshot& schedule) {
    if (schedule.stageActivationBytes.empty()) return 0;
    return kMemoryTitleHeight + static_cast<int>(schedule.lanes.size()) * (kMemoryBandHeight + kMemoryBandGap);
}

/// Whether a device holds several stages, so labels name them.
bool severalStagesADevice(const ScheduleSnapshot& schedule) { return schedule.stages > static_cast<int>(schedule.lanes.size()); }
}  // namespace

QString scheduleCellLabel(const ScheduleCell& cell, bool showStage) {
    const QChar letter = cell.kind == SpanKind::Forward          ? QLatin1Char('F')
                         : cell.kind == SpanKind::BackwardWeight ? QLatin1Char('W')
                                                                 : QLatin1Char('B');
    const QString label = QStringLiteral("%1%2").arg(letter).arg(cell.microBatch);
    return showStage ? label + QStringLiteral("·s%1").arg(cell.stage) : label;
}

ScheduleCanvas::ScheduleCanvas(QWidget* parent) : QWidget(parent) {
    setMinimumHeight(160);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ScheduleCanvas::setSchedule(std::shared_ptr<const ScheduleSnapshot> schedule) {
    m_schedule = std::move(schedule);
    m_order.clear();
    if (m_schedule) {
        for (int lane = 0; lane < static_cast<int>(m_schedule->lanes.size()); ++lane)
            for (int i = 0; i < static_cast<int>(m_schedule->lanes[static_cast<std::size_t>(lane)].size()); ++i)
                m_order.push_back({lane, i});
        const auto& lanes = m_schedule->lanes;
        std::stable_sort(m_order.begin(), m_order.end(), [&lanes](const Placed& a, const Placed& b) {
            return lanes[static_cast<std::size_t>(a.lane)][static_cast<std::size_t>(a.index)].beginNs <
                   lanes[static_cast<std::size_t>(b.lane)][static_cast<std::size_t>(b.index)].beginNs;
        });
    }
    if (m_cellsShown > cellCount()) m_cellsShown = cellCount();
    update();
}

void ScheduleCanvas::setCellsShown(int count) {
    m_cellsShown = count < 0 ? -1 : std::min(count, cellCount());
    update();
}

QString ScheduleCanvas::describe(const ScheduleCell& cell, int lane) const {
    const QString device = lane < static_cast<int>(m_schedule->devices.size())
                               ? QString::fromStdString(m_schedule->devices[static_cast<std::size_t>(lane)])
                               : QString::number(lane);
    const QString kind = cell.kind == SpanKind::Forward          ? tr("Forward")
                         : cell.kind == SpanKind::BackwardInput  ? tr("Input gradient (B)")
                         : cell.kind == SpanKind::BackwardWeight ? tr("Weight gradient (W)")
                                                                 : tr("Backward");
    return tr("%1 of micro-batch %2 on %3, stage %4: %5 µs")
        .arg(kind)
        .arg(cell.microBatch)
        .arg(device)
        .arg(cell.stage)
        .arg(static_cast<double>(cell.endNs - cell.beginNs) / 1000.0, 0, 'f', 1);
}

QString ScheduleCanvas::currentCellText() const {
    if (!m_schedule || m_cellsShown < 0 || m_cellsShown == 0) return {};
    const Placed& placed = m_order[static_cast<std::size_t>(m_cellsShown - 1)];
    return describe(m_schedule->lanes[static_cast<std::size_t>(placed.lane)][static_cast<std::size_t>(placed.index)], placed.lane);
}

QRectF ScheduleCanvas::cellRect(const ScheduleCell& cell, int lane) const {
    const auto lanes = static_cast<int>(m_schedule->lanes.size());
    const double laneHeight =
        std::min<double>(kMaxLaneHeight, (height() - kAxisHeight - memoryAreaHeight(*m_schedule) - kLaneGap * lanes) / std::max(1, lanes));
    const double span = std::max<double>(1.0, static_cast<double>(m_schedule->endNs - m_schedule->beginNs));
    const double scale = (width() - kNameWidth - 8) / span;
    const double left = kNameWidth + static_cast<double>(cell.beginNs - m_schedule->beginNs) * scale;
    const double right = kNameWidth + static_cast<double>(cell.endNs - m_schedule->beginNs) * scale;
    const double top = kAxisHeight + lane * (laneHeight + kLaneGap);
    return QRectF(left, top, std::max(1.0, right - left), laneHeight);
}

void ScheduleCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    m_cellsPainted = 0;
    if (!m_schedule || m_schedule->lanes.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("The schedule appears after the first step."));
        return;
    }
    const ScheduleSnapshot& schedule = *m_schedule;
    const bool stages = severalStagesADevice(schedule);
    // Each lane: its bubble shaded over the whole step, then its cells over it.
    QBrush bubble(palette().color(QPalette::Mid), Qt::BDiagPattern);
    for (int lane = 0; lane < static_cast<int>(schedule.lanes.size()); ++lane) {
        const QRectF whole = cellRect(ScheduleCell{schedule.beginNs, schedule.endNs, 0, 0, SpanKind::Forward}, lane);
        painter.fillRect(whole, palette().color(QPalette::AlternateBase));
        painter.fillRect(whole, bubble);
        painter.setPen(palette().color(QPalette::Text));
        const QString name = lane < static_cast<int>(schedule.devices.size())
                                 ? QString::fromStdString(schedule.devices[static_cast<std::size_t>(lane)])
                                 : QString();
        painter.drawText(QRectF(0, whole.top(), kNameWidth - 6, whole.height()), Qt::AlignRight | Qt::AlignVCenter, name);
    }
    const int shown = cellsShown();
    for (int k = 0; k < shown; ++k) {
        const Placed& placed = m_order[static_cast<std::size_t>(k)];
        const ScheduleCell& cell = schedule.lanes[static_cast<std::size_t>(placed.lane)][static_cast<std::size_t>(placed.index)];
        const QRectF box = cellRect(cell, placed.lane);
        // A micro-batch's colour: its forward light, its backward (or B) darker, its W darker still.
        QColor color = replicaColor(cell.microBatch);
        const bool backward = cell.kind != SpanKind::Forward;
        if (backward) color = color.darker(cell.kind == SpanKind::BackwardWeight ? 210 : 150);
        painter.fillRect(box, color);
        painter.setPen(palette().color(QPalette::Base));
        painter.drawRect(box);
        if (k + 1 == shown && m_cellsShown >= 0) {  // the cell just stepped to
            painter.setPen(QPen(palette().color(QPalette::Highlight), 3));
            painter.drawRect(box.adjusted(1, 1, -1, -1));
        }
        const QString label = scheduleCellLabel(cell, stages);
        if (painter.fontMetrics().horizontalAdvance(label) + 4 < box.width()) {
            painter.setPen(backward ? Qt::white : Qt::black);
            painter.drawText(box, Qt::AlignCenter, label);
        }
        ++m_cellsPainted;
    }
    paintHeldActivations(painter);
    painter.setPen(palette().color(QPalette::Text));
    const double micro = static_cast<double>(schedule.endNs - schedule.beginNs) / 1000.0;
    painter.drawText(QRectF(kNameWidth, 0, width() - kNameWidth - 8, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("step %1: %2 µs from the first pass to the last (%3 clock); hatched: idle (the bubble)")
                         .arg(schedule.step)
                         .arg(micro, 0, 'f', 0)
                         .arg(schedule.virtualClock ? tr("virtual") : tr("wall")));
}

void ScheduleCanvas::paintHeldActivations(QPainter& painter) {
    const ScheduleSnapshot& schedule = *m_schedule;
    if (schedule.stageActivationBytes.empty()) return;
    const auto lanes = static_cast<int>(schedule.lanes.size());
    // Up to the last pass shown when stepping, so the memory follows the cells.
    std::int64_t until = schedule.endNs;
    if (m_cellsShown >= 0) {
        until = schedule.beginNs;
        for (int k = 0; k < m_cellsShown; ++k) {
            const Placed& placed = m_order[static_cast<std::size_t>(k)];
            until = std::max(until, schedule.lanes[static_cast<std::size_t>(placed.lane)][static_cast<std::size_t>(placed.index)].endNs);
        }
    }
    std::vector<std::vector<HeldActivations>> curves;
    std::int64_t most = 1;  // one scale for every device, so their bands compare
    for (int lane = 0; lane < lanes; ++lane) {
        curves.push_back(heldActivations(schedule, static_cast<std::size_t>(lane)));
        for (const HeldActivations& point : curves.back()) most = std::max(most, point.bytes);
    }
    const QRectF lastLane = cellRect(ScheduleCell{schedule.beginNs, schedule.endNs, 0, 0, SpanKind::Forward}, lanes - 1);
    const double titleTop = lastLane.bottom() + kLaneGap;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRectF(kNameWidth, titleTop, width() - kNameWidth - 8, kMemoryTitleHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("Activations held over the step (each band's top: %1 KiB)").arg(static_cast<double>(most) / 1024.0, 0, 'f', 0));
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(150);
    for (int lane = 0; lane < lanes; ++lane) {
        const double top = titleTop + kMemoryTitleHeight + lane * (kMemoryBandHeight + kMemoryBandGap);
        const QRectF band(kNameWidth, top, lastLane.width(), kMemoryBandHeight);
        painter.fillRect(band, palette().color(QPalette::AlternateBase));
        const auto x = [&](std::int64_t ns) { return cellRect(ScheduleCell{ns, ns, 0, 0, SpanKind::Forward}, 0).left(); };
        const auto y = [&](std::int64_t bytes) {
            return band.bottom() - band.height() * static_cast<double>(bytes) / static_cast<double>(most);
        };
        QPolygonF area;
        area << QPointF(x(schedule.beginNs), band.bottom());
        std::int64_t held = 0, peak = 0;
        for (const HeldActivations& point : curves[static_cast<std::size_t>(lane)]) {
            if (point.ns > until) break;
            area << QPointF(x(point.ns), y(held)) << QPointF(x(point.ns), y(point.bytes));
            held = point.bytes;
            peak = std::max(peak, held);
        }
        area << QPointF(x(until), y(held)) << QPointF(x(until), band.bottom());
        painter.setPen(Qt::NoPen);
        painter.setBrush(fill);
        painter.drawPolygon(area);
        painter.setBrush(Qt::NoBrush);
        painter.setPen(palette().color(QPalette::Text));
        const QString name = lane < static_cast<int>(schedule.devices.size())
                                 ? QString::fromStdString(schedule.devices[static_cast<std::size_t>(lane)])
                                 : QString();
        painter.drawText(QRectF(0, top, kNameWidth - 6, kMemoryBandHeight), Qt::AlignRight | Qt::AlignVCenter, name);
        const QString label = tr("peak %1 KiB").arg(static_cast<double>(peak) / 1024.0, 0, 'f', 0);
        const double labelWidth = painter.fontMetrics().horizontalAdvance(label) + 8;
        const QRectF labelBox(band.right() - labelWidth, band.top(), labelWidth, band.height());
        painter.fillRect(labelBox, palette().color(QPalette::Base));  // readable over the curve
        painter.drawText(labelBox, Qt::AlignCenter, label);
    }
}

bool ScheduleCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && m_schedule) {
        const auto* help = static_cast<QHelpEvent*>(event);
        for (int k = 0; k < cellsShown(); ++k) {
            const Placed& placed = m_order[static_cast<std::size_t>(k)];
            const ScheduleCell& cell = m_schedule->lanes[static_cast<std::size_t>(placed.lane)][static_cast<std::size_t>(placed.index)];
            if (cellRect(cell, placed.lane).contains(help->pos())) {
                QToolTip::showText(help->globalPos(), describe(cell, placed.lane), this);
                return true;
            }
        }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

}  // namespace distlab::ui
