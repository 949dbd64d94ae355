#include "views/timeline_canvas.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

#include "run_palette.hpp"
#include "views/timeline_source.hpp"

namespace distlab::ui {

namespace {
constexpr int kLabelWidth = 130;
constexpr int kAxisHeight = 36;  // time ticks on the first row, step numbers on the second
constexpr int kLaneGap = 6;

QString formatMs(std::int64_t ns) { return QString::number(static_cast<double>(ns) * 1e-6, 'f', 3) + QStringLiteral(" ms"); }
}  // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(120);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void TimelineCanvas::setWindow(std::int64_t startNs, std::int64_t spanNs) {
    m_startNs = startNs;
    m_spanNs = std::max<std::int64_t>(spanNs, 1000);
    update();
}

int TimelineCanvas::laneHeight() const {
    const int lanes = std::max(1, static_cast<int>(m_laneNames.size()));
    return std::clamp((height() - kAxisHeight - kLaneGap * lanes) / lanes, 10, 48);
}

int TimelineCanvas::laneTop(int lane) const { return kAxisHeight + lane * (laneHeight() + kLaneGap) + kLaneGap / 2; }

double TimelineCanvas::xOf(std::int64_t ns) const {
    const double plotWidth = std::max(1, width() - kLabelWidth);
    return kLabelWidth + static_cast<double>(ns - m_startNs) / static_cast<double>(m_spanNs) * plotWidth;
}

std::int64_t TimelineCanvas::nsAt(double x) const {
    const double plotWidth = std::max(1, width() - kLabelWidth);
    return m_startNs + static_cast<std::int64_t>((x - kLabelWidth) / plotWidth * static_cast<double>(m_spanNs));
}

void TimelineCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QPalette& pal = palette();
    painter.fillRect(rect(), pal.base());
    m_spansPainted = 0;
    const int lanes = static_cast<int>(m_laneNames.size());
    const int height = laneHeight();
    const QRect plot(kLabelWidth, 0, width() - kLabelWidth, this->height());

    // Lane labels with each replica's colour.
    for (int lane = 0; lane < lanes; ++lane) {
        const int top = laneTop(lane);
        painter.fillRect(QRect(6, top + height / 2 - 5, 10, 10), replicaColor(lane));
        painter.setPen(pal.text().color());
        painter.drawText(QRect(22, top, kLabelWidth - 26, height), Qt::AlignVCenter | Qt::AlignLeft, m_laneNames[lane]);
    }
    if (m_source == nullptr || m_source->stepCount() == 0) return;

    painter.setClipRect(plot);
    const QColor grid = pal.mid().color();
    // Opaque colours (idle is a pale tint of the background): opaque fills are plain memory
    // fills, translucent ones a blend per pixel.
    std::array<QColor, 5> colors;
    for (Phase part : {Phase::Compute, Phase::Communication, Phase::Waiting, Phase::Optimizer, Phase::Idle})
        colors[static_cast<std::size_t>(part)] = phaseColor(part);
    {
        const QColor idle = colors[static_cast<std::size_t>(Phase::Idle)];
        const QColor base = pal.base().color();
        constexpr double kIdleOpacity = 90.0 / 255.0;
        auto mix = [](int over, int under) { return static_cast<int>(std::lround(over * kIdleOpacity + under * (1.0 - kIdleOpacity))); };
        colors[static_cast<std::size_t>(Phase::Idle)] =
            QColor(mix(idle.red(), base.red()), mix(idle.green(), base.green()), mix(idle.blue(), base.blue()));
    }
    for (int i = 0; i < m_source->stepCount(); ++i) {
        const TimelineStep step = m_source->step(i);
        if (step.endNs < m_startNs || step.startNs > m_startNs + m_spanNs) continue;
        // Step boundary and number (when there is room for it).
        const double x0 = xOf(step.startNs);
        painter.setPen(QPen(grid, 1, Qt::DotLine));
        painter.drawLine(QPointF(x0, 18), QPointF(x0, this->height()));
        // "step N" where there is room, else just N; none for a step cut by the left edge.
        QString label = tr("step %1").arg(step.step);
        const double room = xOf(step.endNs) - x0;
        if (room <= fontMetrics().horizontalAdvance(label) + 6) label = QString::number(step.step);
        if (x0 >= kLabelWidth && room > fontMetrics().horizontalAdvance(label) + 6) {
            painter.setPen(pal.text().color());
            painter.drawText(QPointF(x0 + 3, kAxisHeight - 6), label);
        }
        for (int lane = 0; lane < lanes; ++lane) {
            const std::optional<TimelineLaneTimes> times = m_source->lane(i, lane);
            if (!times) continue;
            const StepTimes& record = times->times;
            const int top = laneTop(lane);
            // The spans of the lane's step, in time order (waiting is drawn inside communication).
            for (const PhaseSpan& part : phaseSpans(record)) {
                if (part.endNs <= part.beginNs) continue;
                const double left = xOf(part.beginNs);
                const double right = std::max(left + 1.0, xOf(part.endNs));
                painter.fillRect(QRectF(left, top, right - left, height), colors[static_cast<std::size_t>(part.phase)]);
                ++m_spansPainted;
            }
            // Waiting for peers happens inside the communication: a red band along its bottom.
            if (record.commWaitNs > 0) {
                const double left = xOf(record.computeEndNs);
                const double right = std::max(left + 1.0, xOf(record.computeEndNs + record.commWaitNs));
                painter.fillRect(QRectF(left, top + height * 2 / 3, right - left, height - height * 2 / 3), phaseColor(Phase::Waiting));
            }
            // The hop between processes (a multi-worker lead's) also happens inside it: a band along
            // its top, from the first network span for their total.
            if (times->networkNs > 0) {
                const double left = xOf(times->networkBeginNs);
                const double right = std::max(left + 1.0, xOf(times->networkBeginNs + times->networkNs));
                painter.fillRect(QRectF(left, top, right - left, height / 3), networkColor());
            }
        }
    }
    // Time axis: ticks at a 1-2-5 step, in milliseconds from the first step held.
    painter.setClipping(false);
    const std::int64_t origin = m_source->step(0).startNs;
    const double rough = static_cast<double>(m_spanNs) / 8.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
    double tick = magnitude;
    for (double factor : {1.0, 2.0, 5.0, 10.0}) {
        tick = factor * magnitude;
        if (tick >= rough) break;
    }
    painter.setPen(pal.text().color());
    // The unit in the label column; what the times count from is the view's line above the lanes
    // (the start of the oldest step held), written in full there.
    painter.drawText(QRectF(4, 0, kLabelWidth - 8, 14), Qt::AlignLeft | Qt::AlignVCenter, tr("time (ms)"));
    const double first = std::ceil(static_cast<double>(m_startNs - origin) / tick) * tick;
    for (double t = first; t <= static_cast<double>(m_startNs - origin + m_spanNs); t += tick) {
        const double x = xOf(origin + static_cast<std::int64_t>(t));
        painter.drawLine(QPointF(x, 0), QPointF(x, 4));
        painter.drawText(QPointF(x + 2, 12), QString::number(t * 1e-6, 'g', 6) + QStringLiteral(" ms"));
    }
}

QString TimelineCanvas::describeAt(const QPoint& position) const {
    if (m_source == nullptr || position.x() < kLabelWidth) return {};
    const std::int64_t ns = nsAt(position.x());
    for (int lane = 0; lane < static_cast<int>(m_laneNames.size()); ++lane) {
        const int top = laneTop(lane);
        if (position.y() < top || position.y() > top + laneHeight()) continue;
        for (int i = m_source->stepCount() - 1; i >= 0; --i) {
            const std::optional<TimelineLaneTimes> times = m_source->lane(i, lane);
            if (!times || ns < times->times.startNs || ns > times->times.stepEndNs) continue;
            const StepTimes& record = times->times;
            for (const PhaseSpan& part : phaseSpans(record)) {
                if (ns < part.beginNs || ns > part.endNs) continue;
                QString text = tr("%1 · step %2\n%3: %4")
                                   .arg(m_laneNames[lane])
                                   .arg(m_source->step(i).step)
                                   .arg(QString::fromLatin1(phaseName(part.phase)), formatMs(part.endNs - part.beginNs));
                if (part.phase == Phase::Communication) {
                    text += tr("\nof which waiting for peers: %1\nbytes sent: %2").arg(formatMs(record.commWaitNs)).arg(times->bytesSent);
                    if (times->networkNs > 0) text += tr("\nof which between processes (network): %1").arg(formatMs(times->networkNs));
                    if (times->bytesFromRingFormula) text += tr(" (the ring's formula 2(N−1)/N × gradient, not counted)");
                }
                return text;
            }
        }
    }
    return {};
}

bool TimelineCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = describeAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

void TimelineCanvas::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (event->modifiers() & Qt::ControlModifier) {
        emit zoomRequested(std::pow(1.25, -steps), nsAt(event->position().x()));
    } else {
        const double delta = event->angleDelta().x() != 0 ? event->angleDelta().x() / 120.0 : steps;
        emit scrollRequested(static_cast<std::int64_t>(-delta * 0.1 * static_cast<double>(m_spanNs)));
    }
    event->accept();
}

}  // namespace distlab::ui
