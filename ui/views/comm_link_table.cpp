#include "views/comm_link_table.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/comm_stats.hpp"
#include "run_palette.hpp"
#include "count_text.hpp"
#include "views/comm_text.hpp"

#include <distlab/distribute/mirrored_rank.hpp>

#include <algorithm>

namespace distlab::ui {

namespace {
// The widest the device table claims (beside the charts in a 1280-pixel window); wider, it scrolls.
constexpr int kMaxDeviceTableWidth = 420;

QTableWidget* makeTable(QWidget* parent, const QString& name, const QStringList& columns) {
    auto* table = new QTableWidget(0, static_cast<int>(columns.size()), parent);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels(columns);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    // Columns as wide as their contents, never squeezed into elided slivers: a narrow view
    // scrolls the table sideways instead (tests/ui/test_layout.cpp).
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    return table;
}

void setCell(QTableWidget& table, int row, int column, const QString& text, const QString& tip = {}, const QColor& color = QColor()) {
    QTableWidgetItem* item = table.item(row, column);
    if (item == nullptr) {
        item = new QTableWidgetItem();
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        item->setTextAlignment((column == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        table.setItem(row, column, item);
    }
    if (item->text() != text) item->setText(text);
    if (item->toolTip() != tip) item->setToolTip(tip);
    if (color.isValid()) item->setForeground(color);
}

QLabel* title(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}
}  // namespace

void CommLinkTable::setLinksShown(bool shown) {
    m_linksTitle->setVisible(shown);
    m_links->setVisible(shown);
    // Without the links the device table sits at the top, not below an empty stretch.
    auto* box = static_cast<QVBoxLayout*>(layout());
    box->setStretch(box->count() - 1, shown ? 0 : 1);
}

CommLinkTable::CommLinkTable(QWidget* parent) : QWidget(parent) {
    m_linksTitle = title(this);
    m_links = makeTable(this, QStringLiteral("commLinkTable"), {tr("link"), tr("bytes"), tr("time"), tr("in the run")});
    m_links->setToolTip(
        tr("Each link the captured all-reduce used: the bytes it carried, the time its transfers "
           "took, and what that makes over the run's steps (the pattern repeats every step)."));
    m_devicesTitle = title(this);
    m_devicesTitle->setText(tr("Each device over the run"));
    m_devices = makeTable(this, QStringLiteral("commDeviceTable"), {tr("device"), tr("sent / step"), tr("sent in run"), tr("all-reduce")});
    m_devices->horizontalHeader()->setStretchLastSection(false);  // its width follows its columns (setData)
    m_devices->setToolTip(
        tr("From the engine's step records: bytes each device sent in its latest step and over "
           "the run, and its mean time per step in the all-reduce (waiting for peers included)."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_linksTitle);
    layout->addWidget(m_links, 1);
    layout->addWidget(m_devicesTitle);
    layout->addWidget(m_devices);
    layout->addStretch(0);  // takes the links' room when they are hidden (setLinksShown)
}

void CommLinkTable::setData(const AllReduceCapture& capture, const CommStats& stats, int replicas) {
    const bool captured = !capture.empty() && capture.ranks() == replicas;
    const std::int64_t steps = stats.steps();
    const std::int64_t taken = stats.stepsTaken();
    m_linksTitle->setText(captured ? tr("Links in the all-reduce of step %1").arg(capture.trainingStep())
                                   : tr("Links: capture an all-reduce to see them"));
    int row = 0;
    for (int from = 0; captured && from < replicas; ++from) {
        for (int to = 0; to < replicas; ++to) {
            const std::int64_t bytes = capture.linkBytes(from, to);
            if (bytes == 0) continue;
            if (m_links->rowCount() <= row) m_links->setRowCount(row + 1);
            setCell(*m_links, row, 0, tr("cpu:%1 → cpu:%2").arg(from).arg(to), {}, replicaColor(from));
            setCell(*m_links, row, 1, formatBytes(bytes));
            setCell(*m_links, row, 2, formatNs(capture.linkNs(from, to)),
                    tr("Time cpu:%1 spent copying or adding what cpu:%2 sent it").arg(to).arg(from));
            setCell(*m_links, row, 3, formatBytes(bytes * steps), tr("%1 × %2 steps").arg(formatBytes(bytes)).arg(steps));
            ++row;
        }
    }
    // The step's loss and counts ride on the last pack (MirroredRank): every device sends them to
    // each peer beyond the gradient chunks above, so a device's "sent / step" below is its links
    // plus this row's bytes times its peers.
    const auto peers = static_cast<std::int64_t>(std::max(0, replicas - 1));
    const std::int64_t figureBytes = static_cast<std::int64_t>(kStepFigureValues * sizeof(float));
    if (captured && peers > 0) {
        m_links->setRowCount(row + 1);
        const QString tip = tr("Each device also sends the step's loss sum and its correct and example counts (%1 float32 "
                               "values, %2) to each of its %3 with the gradient's last pack: %4 a step beyond its links above.")
                                .arg(kStepFigureValues)
                                .arg(formatBytes(figureBytes), countText(peers, tr("peer"), tr("peers")), formatBytes(figureBytes * peers));
        setCell(*m_links, row, 0, tr("step figures, each → each"), tip);
        setCell(*m_links, row, 1, formatBytes(figureBytes), tip);
        setCell(*m_links, row, 2, tr("with the last pack"), tip);
        setCell(*m_links, row, 3, formatBytes(figureBytes * steps), tr("%1 × %2 steps, per link").arg(formatBytes(figureBytes)).arg(steps));
        ++row;
    }
    m_links->setRowCount(row);
    // Every link shows without scrolling up to 8 (a ring on 4 devices has 4); more scroll.
    m_links->setMinimumHeight(m_links->horizontalHeader()->sizeHint().height() +
                              std::min(row, 8) * m_links->verticalHeader()->defaultSectionSize() + 2 * m_links->frameWidth() +
                              m_links->horizontalScrollBar()->sizeHint().height());
    if (m_devices->rowCount() != replicas) {
        m_devices->setRowCount(replicas);
        // As tall as its rows (at most 8 devices), so every device shows without scrolling.
        // (room for the sideways scroll bar a narrow view shows, so it never hides the last device)
        m_devices->setFixedHeight(m_devices->horizontalHeader()->sizeHint().height() + m_devices->verticalHeader()->length() +
                                  2 * m_devices->frameWidth() + m_devices->horizontalScrollBar()->sizeHint().height());
    }
    for (int r = 0; r < replicas; ++r) {
        std::int64_t linkBytes = 0;
        for (int to = 0; captured && to < replicas; ++to) linkBytes += capture.linkBytes(r, to);
        const QString sentTip = captured ? tr("%1 of gradient over its links + %2 of step figures (%3 to each of %4)")
                                               .arg(formatBytes(linkBytes), formatBytes(figureBytes * peers), formatBytes(figureBytes),
                                                    countText(peers, tr("peer"), tr("peers")))
                                         : QString();
        const std::int64_t meanNs = taken > 0 ? stats.totalCommunicationNs(r) / taken : 0;
        const std::int64_t waitNs = taken > 0 ? stats.totalWaitNs(r) / taken : 0;
        setCell(*m_devices, r, 0, r < m_laneNames.size() ? m_laneNames[r] : tr("cpu:%1").arg(r), {}, replicaColor(r));
        const QString formula = stats.bytesFromRingFormula() ? tr("the ring's formula 2(N−1)/N × gradient, not counted") : QString();
        setCell(*m_devices, r, 1, formatBytes(stats.lastBytesSent(r)) + (formula.isEmpty() ? QString() : tr(" (formula)")),
                formula.isEmpty() ? sentTip : formula);
        setCell(*m_devices, r, 2, formatBytes(stats.totalBytesSent(r)) + (formula.isEmpty() ? QString() : tr(" (formula)")),
                formula.isEmpty() ? tr("over %1 steps").arg(steps) : tr("over %1 steps; %2").arg(steps).arg(formula));
        setCell(*m_devices, r, 3, formatNs(meanNs),
                tr("Mean time per step from the end of cpu:%1's backward pass to the end of its all-reduce; %2 of it "
                   "waiting for peers.")
                    .arg(r)
                    .arg(formatNs(waitNs)));
    }
    // Every column of the device table in view where the window allows: a cluster's lane names
    // ("worker 1 · cpu:0") are wider than the header; past kMaxDeviceTableWidth it scrolls sideways.
    // Its sections are as wide as their contents and none stretches, so their sum is what it needs.
    const int columns = m_devices->horizontalHeader()->length() + 2 * m_devices->frameWidth();
    if (const int width = std::min(columns, kMaxDeviceTableWidth); width != m_devices->minimumWidth()) m_devices->setMinimumWidth(width);
}

}  // namespace distlab::ui
