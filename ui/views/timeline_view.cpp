#include "views/timeline_view.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "panels/explanations.hpp"
#include "run_palette.hpp"
#include "views/lane_names.hpp"
#include "views/timeline_canvas.hpp"

namespace distlab::ui {

namespace {
constexpr int kDefaultVisibleSteps = 12;
constexpr std::int64_t kNsPerScrollUnit = 1000;  // the scroll bar counts microseconds
// Steps that fill less than this share of their own time span are spread out by a pace (20 steps/s
// of 0.1 ms each): drawn a dozen at a time they would be hairlines.
constexpr double kSparseStepsShare = 0.25;
constexpr double kSingleStepRoom = 1.25;  // the window over the newest step alone: a quarter more than it

/// The window span (ns) that shows the recent steps readably: about a dozen back to back, or the
/// newest step alone when a pace leaves long gaps between them.
std::int64_t defaultSpanNs(const RunHistory& history) {
    const int count = history.timelineCount();
    const int first = std::max(0, count - kDefaultVisibleSteps);
    const TimelineStep& newest = history.timelineStep(count - 1);
    const std::int64_t extent = newest.endNs - history.timelineStep(first).startNs;
    std::int64_t busy = 0;
    for (int i = first; i < count; ++i) busy += history.timelineStep(i).endNs - history.timelineStep(i).startNs;
    const bool sparse = static_cast<double>(busy) < kSparseStepsShare * static_cast<double>(extent);
    const std::int64_t span =
        sparse ? static_cast<std::int64_t>(kSingleStepRoom * static_cast<double>(newest.endNs - newest.startNs)) : extent;
    return std::max<std::int64_t>(span, 10'000);
}

QString legendHtml(bool network) {
    QString html;
    for (Phase part : {Phase::Compute, Phase::Communication, Phase::Waiting, Phase::Optimizer, Phase::Idle}) {
        html += QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;&nbsp; ")
                    .arg(phaseColor(part).name(), QString::fromLatin1(phaseName(part)));
    }
    // A cluster's lanes also show the hop between its processes.
    if (network)
        html += QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2").arg(networkColor().name(), TimelineView::tr("network"));
    return html;
}
}  // namespace

TimelineView::TimelineView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.timeline"));
    m_source.setHistory(&controller.history());
    m_canvas = new TimelineCanvas(this);
    m_canvas->setSource(&m_source);
    m_scroll = new QScrollBar(Qt::Horizontal, this);
    m_follow = new QCheckBox(tr("Follow newest step"), this);
    m_follow->setChecked(true);
    auto* zoomIn = new QPushButton(tr("Zoom in"), this);
    auto* zoomOut = new QPushButton(tr("Zoom out"), this);
    auto* fit = new QPushButton(tr("Show all"), this);
    auto* legend = new QLabel(legendHtml(false), this);
    connect(&controller, &SessionController::runReplaced, legend,
            [legend, &controller] { legend->setText(legendHtml(controller.cluster() != nullptr)); });
    legend->setTextFormat(Qt::RichText);
    legend->setWordWrap(true);  // the window stays usable at 1280 px: the legend wraps instead of widening it

    auto* controls = new QHBoxLayout();
    controls->addWidget(m_follow);
    controls->addWidget(zoomIn);
    controls->addWidget(zoomOut);
    controls->addWidget(fit);
    controls->addSpacing(16);
    controls->addWidget(legend, 1);
    auto* hint = new QLabel(tr("Press Play: the last %1 steps appear here, one lane per device. Wheel scrolls, "
                               "Ctrl+wheel zooms, hover a span for its duration.")
                                .arg(RunHistory::kTimelineSteps),
                            this);
    hint->setWordWrap(true);
    hint->setObjectName(QStringLiteral("timelineHint"));
    // What the time axis counts from, in full (the canvas's label column is too narrow for it).
    m_origin = new QLabel(this);
    m_origin->setObjectName(QStringLiteral("timelineOrigin"));
    m_origin->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(hint);
    layout->addWidget(m_origin);
    layout->addWidget(m_canvas, 1);
    layout->addWidget(m_scroll);

    connect(zoomIn, &QPushButton::clicked, this, [this] { zoom(0.5); });
    connect(zoomOut, &QPushButton::clicked, this, [this] { zoom(2.0); });
    connect(fit, &QPushButton::clicked, this, &TimelineView::fitAll);
    connect(m_canvas, &TimelineCanvas::zoomRequested, this, &TimelineView::zoomAround);
    connect(m_canvas, &TimelineCanvas::scrollRequested, this, &TimelineView::scrollBy);
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) {
        if (on) refreshIfVisible();
    });
    connect(m_scroll, &QScrollBar::valueChanged, this, [this](int value) {
        if (m_syncing || this->controller().history().timelineCount() == 0) return;
        const std::int64_t origin = this->controller().history().timelineStep(0).startNs;
        applyWindow(origin + static_cast<std::int64_t>(value) * kNsPerScrollUnit, m_canvas->windowSpanNs(), true);
    });
    connect(&controller, &SessionController::runReplaced, this, [this, hint] {
        m_source.setHistory(&this->controller().history());
        m_spanNs = 0;
        m_userZoomed = false;
        m_follow->setChecked(true);
        hint->setVisible(true);
        m_origin->clear();
        m_canvas->update();
    });
}

bool TimelineView::following() const { return m_follow->isChecked(); }

bool TimelineView::refresh() {
    const RunHistory& history = controller().history();
    QStringList lanes;
    for (int r = 0; r < history.replicaCount(); ++r) lanes.append(laneDeviceLabel(controller().config().strategy, r));
    m_canvas->setLaneNames(lanes);
    if (!invalid() && history.version() == m_drawnVersion) return false;
    m_drawnVersion = history.version();
    if (history.timelineCount() == 0) {
        m_canvas->update();
        return false;
    }
    findChild<QWidget*>(QStringLiteral("timelineHint"))->setVisible(false);
    const QString origin = tr("Time axis: milliseconds after the start of step %1, the oldest of the last %2 steps held.")
                               .arg(QLocale().toString(history.timelineStep(0).step))
                               .arg(history.timelineCount());
    if (m_origin->text() != origin) m_origin->setText(origin);
    const TimelineStep& newest = history.timelineStep(history.timelineCount() - 1);
    if (!m_userZoomed) m_spanNs = defaultSpanNs(history);  // measured from the recent steps (they speed up after the first few)
    if (following()) applyWindow(newest.endNs - m_spanNs + m_spanNs / 50, m_spanNs, false);
    syncScrollBar();
    m_canvas->update();
    return true;
}

void TimelineView::zoom(double factor) {
    // Following, the zoom keeps the newest step where it is, at the right edge: the window's middle
    // may be a pace's empty gap between two steps.
    const RunHistory& history = controller().history();
    if (following() && history.timelineCount() > 0) {
        zoomAround(factor, history.timelineStep(history.timelineCount() - 1).endNs);
        return;
    }
    zoomAround(factor, m_canvas->windowStartNs() + m_canvas->windowSpanNs() / 2);
}

void TimelineView::zoomAround(double factor, std::int64_t anchorNs) {
    const std::int64_t span =
        std::max<std::int64_t>(2000, static_cast<std::int64_t>(static_cast<double>(m_canvas->windowSpanNs()) * factor));
    const double anchorShare = static_cast<double>(anchorNs - m_canvas->windowStartNs()) / static_cast<double>(m_canvas->windowSpanNs());
    m_spanNs = span;
    m_userZoomed = true;
    applyWindow(anchorNs - static_cast<std::int64_t>(anchorShare * static_cast<double>(span)), span, !following());
    syncScrollBar();
}

void TimelineView::scrollBy(std::int64_t deltaNs) {
    m_follow->setChecked(false);
    applyWindow(m_canvas->windowStartNs() + deltaNs, m_canvas->windowSpanNs(), true);
    syncScrollBar();
}

void TimelineView::fitAll() {
    const RunHistory& history = controller().history();
    if (history.timelineCount() == 0) return;
    const std::int64_t first = history.timelineStep(0).startNs;
    const std::int64_t last = history.timelineStep(history.timelineCount() - 1).endNs;
    m_spanNs = std::max<std::int64_t>(last - first, 10'000);
    m_userZoomed = true;
    applyWindow(first, m_spanNs, false);
    syncScrollBar();
}

void TimelineView::applyWindow(std::int64_t startNs, std::int64_t spanNs, bool fromUser) {
    if (fromUser) m_follow->setChecked(false);
    m_canvas->setWindow(startNs, spanNs);
}

void TimelineView::syncScrollBar() {
    const RunHistory& history = controller().history();
    if (history.timelineCount() == 0) return;
    m_syncing = true;
    const std::int64_t first = history.timelineStep(0).startNs;
    const std::int64_t last = history.timelineStep(history.timelineCount() - 1).endNs;
    const std::int64_t span = m_canvas->windowSpanNs();
    m_scroll->setRange(0, static_cast<int>(std::max<std::int64_t>(0, last - first - span) / kNsPerScrollUnit));
    m_scroll->setPageStep(static_cast<int>(std::max<std::int64_t>(1, span / kNsPerScrollUnit)));
    m_scroll->setValue(static_cast<int>((m_canvas->windowStartNs() - first) / kNsPerScrollUnit));
    m_syncing = false;
}

}  // namespace distlab::ui
