#include "views/topology_canvas.hpp"

#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

#include "run_palette.hpp"

namespace distlab::ui {

namespace {
constexpr qreal kMargin = 8.0;
constexpr qreal kWorkerHeight = 70.0;
constexpr int kShardLines = 5;  // shards listed per server box; the rest are counted
constexpr qreal kLineHeight = 14.0;
constexpr qreal kDotRadius = 4.5;
const QColor kLost(0xc0, 0x39, 0x2b);

QPointF lerp(QPointF a, QPointF b, qreal t) { return a + (b - a) * t; }
}  // namespace

TopologyCanvas::TopologyCanvas(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("topologyCanvas"));
    m_clock.start();
}

QSize TopologyCanvas::minimumSizeHint() const { return {300, 230}; }
QSize TopologyCanvas::sizeHint() const { return {640, 300}; }

void TopologyCanvas::setServers(std::vector<Server> servers) {
    m_servers = std::move(servers);
    update();
}

void TopologyCanvas::setWorkers(std::vector<Worker> workers) {
    if (workers.size() != m_workers.size()) m_pulseStartMs.assign(workers.size(), -1);
    m_workers = std::move(workers);
    update();
}

void TopologyCanvas::setServerLost(int server) {
    if (server < 0 || server >= serverCount()) return;
    m_servers[static_cast<std::size_t>(server)].lost = true;
    update();
}

void TopologyCanvas::pulse(int worker) {
    if (worker < 0 || worker >= static_cast<int>(m_pulseStartMs.size())) return;
    qint64& start = m_pulseStartMs[static_cast<std::size_t>(worker)];
    const qint64 now = m_clock.elapsed();
    if (start >= 0 && now - start < kPulseMs) return;  // one pulse at a time; the count says how many
    start = now;
    ++m_pulsesStarted;
}

bool TopologyCanvas::animating() const {
    const qint64 now = m_clock.elapsed();
    return std::any_of(m_pulseStartMs.begin(), m_pulseStartMs.end(), [now](qint64 start) { return start >= 0 && now - start < kPulseMs; });
}

QRectF TopologyCanvas::serverRect(int server) const {
    const qreal column = width() / static_cast<qreal>(std::max(1, serverCount()));
    const qreal boxWidth = std::min<qreal>(column - 2 * kMargin, 230.0);
    qsizetype lines = 0;
    for (const Server& s : m_servers) lines = std::max<qsizetype>(lines, std::min<qsizetype>(s.shards.size(), kShardLines + 1));
    const qreal height = 26.0 + kLineHeight * static_cast<qreal>(lines);
    return {column * (server + 0.5) - boxWidth / 2, kMargin, boxWidth, height};
}

QRectF TopologyCanvas::workerRect(int worker) const {
    const qreal column = width() / static_cast<qreal>(std::max(1, workerCount()));
    const qreal boxWidth = std::min<qreal>(column - 2 * 4.0, 150.0);
    return {column * (worker + 0.5) - boxWidth / 2, height() - kWorkerHeight - kMargin, boxWidth, kWorkerHeight};
}

void TopologyCanvas::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (m_servers.empty() || m_workers.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("The workers and servers appear once the run has loaded."));
        return;
    }
    // Edges first, under the boxes.
    const qint64 now = m_clock.elapsed();
    for (int w = 0; w < workerCount(); ++w) {
        const Worker& worker = m_workers[static_cast<std::size_t>(w)];
        const QPointF from(workerRect(w).center().x(), workerRect(w).top());
        QColor color = replicaColor(w);
        color.setAlpha(worker.alive && !worker.paused ? 110 : 45);
        for (int s = 0; s < serverCount(); ++s) {
            const QRectF box = serverRect(s);
            QPen pen(m_servers[static_cast<std::size_t>(s)].lost ? kLost : color, 1.5);
            if (!worker.alive || m_servers[static_cast<std::size_t>(s)].lost) pen.setStyle(Qt::DashLine);
            painter.setPen(pen);
            painter.drawLine(from, QPointF(box.center().x(), box.bottom()));
        }
    }
    // Pulses: up the edges (push), then down (pull).
    for (int w = 0; w < workerCount(); ++w) {
        const qint64 start = m_pulseStartMs[static_cast<std::size_t>(w)];
        if (start < 0 || now - start >= kPulseMs) continue;
        const qreal phase = static_cast<qreal>(now - start) / kPulseMs;
        const QPointF from(workerRect(w).center().x(), workerRect(w).top());
        const QColor color = replicaColor(w);
        for (int s = 0; s < serverCount(); ++s) {
            const QPointF to(serverRect(s).center().x(), serverRect(s).bottom());
            const bool push = phase < 0.5;
            const QPointF at = push ? lerp(from, to, phase * 2) : lerp(to, from, phase * 2 - 1);
            painter.setPen(QPen(color.darker(130), 1.5));
            painter.setBrush(push ? QBrush(color) : QBrush(palette().color(QPalette::Base)));
            painter.drawEllipse(at, kDotRadius, kDotRadius);
        }
    }
    for (int s = 0; s < serverCount(); ++s) paintServer(painter, s);
    for (int w = 0; w < workerCount(); ++w) paintWorker(painter, w);
}

void TopologyCanvas::paintServer(QPainter& painter, int server) const {
    const Server& s = m_servers[static_cast<std::size_t>(server)];
    const QRectF box = serverRect(server);
    painter.setPen(QPen(s.lost ? kLost : palette().color(QPalette::Text), s.lost ? 2.0 : 1.0));
    painter.setBrush(palette().color(QPalette::AlternateBase));
    painter.drawRoundedRect(box, 5, 5);
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    const QRectF inner = box.adjusted(6, 4, -6, -4);
    painter.drawText(inner, Qt::AlignTop | Qt::AlignHCenter,
                     s.lost ? tr("server %1 — lost").arg(server) : tr("parameter server %1").arg(server));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    painter.setPen(palette().color(QPalette::Text));
    const QFontMetricsF metrics(small);
    qreal y = inner.top() + 20;
    const qsizetype shown = s.shards.size() > kShardLines + 1 ? kShardLines : s.shards.size();
    for (qsizetype i = 0; i < shown; ++i, y += kLineHeight)
        painter.drawText(QPointF(inner.left(), y + metrics.ascent()), metrics.elidedText(s.shards[i], Qt::ElideMiddle, inner.width()));
    if (shown < s.shards.size())
        painter.drawText(QPointF(inner.left(), y + metrics.ascent()), tr("+ %1 more shards").arg(s.shards.size() - shown));
    if (s.shards.isEmpty()) painter.drawText(QPointF(inner.left(), y + metrics.ascent()), tr("(no shards)"));
}

void TopologyCanvas::paintWorker(QPainter& painter, int index) const {
    const Worker& worker = m_workers[static_cast<std::size_t>(index)];
    const QRectF box = workerRect(index);
    const bool active = worker.alive && !worker.paused;
    QColor fill = active ? palette().color(QPalette::Base) : palette().color(QPalette::Window).darker(115);
    painter.setPen(QPen(active ? replicaColor(index) : QColor(Qt::gray), active ? 2.5 : 1.5, worker.alive ? Qt::SolidLine : Qt::DashLine));
    painter.setBrush(fill);
    painter.drawRoundedRect(box, 5, 5);
    const QLocale locale;
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(active ? palette().color(QPalette::Text) : QColor(Qt::gray));
    const QRectF inner = box.adjusted(4, 3, -4, -3);
    const QString state = !worker.alive ? tr(" · killed") : worker.paused ? tr(" · paused") : QString();
    painter.drawText(inner, Qt::AlignTop | Qt::AlignHCenter, tr("worker %1%2").arg(index).arg(state));
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter.setFont(small);
    QString lines = tr("%1 gradients\n%2 applied · %3/s\nspeed %4")
                        .arg(locale.toString(worker.gradients), locale.toString(worker.applied))
                        .arg(locale.toString(worker.updatesPerSecond, 'f', 0))
                        .arg(worker.speed, 0, 'f', 2);
    const QRectF textArea = inner.adjusted(0, 17, 0, 0);
    if (QFontMetricsF(small).boundingRect(textArea, Qt::AlignTop | Qt::AlignHCenter, lines).width() > textArea.width())
        lines = tr("%1 grads\n%2/s\nspeed %3")
                    .arg(locale.toString(worker.gradients))
                    .arg(locale.toString(worker.updatesPerSecond, 'f', 0))
                    .arg(worker.speed, 0, 'f', 2);
    painter.drawText(textArea, Qt::AlignTop | Qt::AlignHCenter, lines);
}

}  // namespace distlab::ui
