#include "views/schedule_view.hpp"

#include <algorithm>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "bridge/session_controller.hpp"
#include "panels/explanations.hpp"
#include "views/schedule_canvas.hpp"

namespace distlab::ui {

namespace {
QString percent(double share) { return QStringLiteral("%1 %").arg(share * 100.0, 0, 'f', 1); }
}  // namespace

QString bubbleFormulaText(const ScheduleSnapshot& schedule) {
    if (!schedule.theory) return ScheduleView::tr("no closed form: a device holds several stages of a model_parallel run");
    const int p = static_cast<int>(schedule.lanes.size()) / std::max(1, schedule.copies);  // one copy's devices
    const int m = schedule.microBatches;
    const int v = p > 0 ? schedule.stages / p : 1;
    const bool interleaved = schedule.schedule == "interleaved";
    const bool zeroBubble = schedule.schedule == "zb-h1";
    const int denominator = (interleaved ? v * m : zeroBubble ? 3 * m : m) + p - 1;
    return QStringLiteral("(p − 1)/(%1 + p − 1) = %2/%3 = %4")
        .arg(interleaved  ? QStringLiteral("v·m")
             : zeroBubble ? QStringLiteral("3m")
                          : QStringLiteral("m"))
        .arg(p - 1)
        .arg(denominator)
        .arg(percent(*schedule.theory));
}

ScheduleView::ScheduleView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.schedule"));
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    m_canvas = new ScheduleCanvas(this);
    m_canvas->setObjectName(QStringLiteral("scheduleCanvas"));
    m_hold = new QCheckBox(tr("Hold this step"), this);
    m_hold->setToolTip(tr("Keep showing this step while training goes on, to study it or walk through it"));
    m_previous = new QPushButton(tr("◀ Previous pass"), this);
    m_next = new QPushButton(tr("Next pass ▶"), this);
    m_all = new QPushButton(tr("All passes"), this);
    m_cellText = new QLabel(this);
    m_bubbles = new QLabel(this);
    m_bubbles->setObjectName(QStringLiteral("scheduleBubbles"));
    m_bubbles->setTextFormat(Qt::RichText);
    m_bubbles->setWordWrap(true);

    auto* controls = new QHBoxLayout();
    controls->addWidget(m_hold);
    controls->addWidget(m_previous);
    controls->addWidget(m_next);
    controls->addWidget(m_all);
    controls->addWidget(m_cellText, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_canvas, 1);
    layout->addLayout(controls);
    layout->addWidget(m_bubbles);

    connect(m_previous, &QPushButton::clicked, this, [this] { stepBy(-1); });
    connect(m_next, &QPushButton::clicked, this, [this] { stepBy(1); });
    connect(m_all, &QPushButton::clicked, this, [this] {
        m_canvas->setCellsShown(-1);
        updateStepText();
    });
    connect(m_hold, &QCheckBox::toggled, this, [this](bool held) {
        if (!held) m_canvas->setCellsShown(-1);
        updateStepText();
        invalidate();
    });
    updateStepText();
}

void ScheduleView::stepBy(int delta) {
    m_hold->setChecked(true);
    const int shown = m_canvas->cellsShown() == m_canvas->cellCount() && delta > 0 ? 0 : m_canvas->cellsShown();
    m_canvas->setCellsShown(std::clamp(shown + delta, 0, m_canvas->cellCount()));
    updateStepText();
}

void ScheduleView::updateStepText() {
    const QString current = m_canvas->currentCellText();
    m_cellText->setText(current.isEmpty() ? QString()
                                          : tr("Pass %1 of %2: %3").arg(m_canvas->cellsShown()).arg(m_canvas->cellCount()).arg(current));
}

void ScheduleView::showBubbles(const ScheduleSnapshot& schedule) {
    QString rows;
    for (std::size_t d = 0; d < schedule.lanes.size(); ++d) {
        const QString device = d < schedule.devices.size() ? QString::fromStdString(schedule.devices[d]) : QString::number(d);
        const QString held = d < schedule.activationPeakBytes.size()
                                 ? tr("%1 KiB (%2)")
                                       .arg(static_cast<double>(schedule.activationPeakBytes[d]) / 1024.0, 0, 'f', 0)
                                       .arg(schedule.activationPeakMicroBatches[d])
                                 : QStringLiteral("–");
        const QString rule = d < schedule.activationTheory.size() && schedule.activationTheory[d] >= 0
                                 ? QString::number(schedule.activationTheory[d])
                                 : QStringLiteral("–");
        rows += QStringLiteral(
                    "<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td><td align=right>%5</td>"
                    "<td align=right>%6</td></tr>")
                    .arg(device, d < schedule.stepBubble.size() ? percent(schedule.stepBubble[d]) : QStringLiteral("–"),
                         d < schedule.runBubble.size() ? percent(schedule.runBubble[d]) : QStringLiteral("–"),
                         d < schedule.simulatedBubble.size() ? percent(schedule.simulatedBubble[d]) : QStringLiteral("–"), held, rule);
    }
    m_bubbles->setText(tr("<table cellspacing=0 cellpadding=3><tr><th align=left>Device</th><th>Bubble, this step</th><th>over %1 "
                          "steps</th><th>at its stages' pass times</th><th>Activations held at most (passes)</th><th>the "
                          "schedule's rule</th></tr>%2</table>"
                          "<p><b>Theory</b>: %3 — for equal stages, a backward twice a forward and hand-overs that take no time. Real "
                          "stages differ: the first computes no input gradient, the last adds the loss; and real passes are not 1:2 "
                          "(the third column is the schedule at each stage's mean pass times in this run: what is left between it "
                          "and the measured bubble is the passes' spread).%4</p>")
                           .arg(schedule.runSteps)
                           .arg(rows, bubbleFormulaText(schedule),
                                schedule.virtualClock
                                    ? QString()
                                    : tr(" On the wall clock, devices beyond the cores share them: set <i>Clock: virtual</i> to time "
                                         "each pass alone.")));
}

bool ScheduleView::refresh() {
    std::shared_ptr<const ScheduleSnapshot> latest = controller().schedule();
    const bool held = m_hold->isChecked() && m_canvas->schedule() != nullptr;
    if (held || (latest.get() == m_canvas->schedule() && !invalid())) return false;
    m_canvas->setSchedule(latest);
    if (!latest) {
        m_title->setText(tr("A pipeline or model_parallel run's schedule shows here."));
        m_bubbles->clear();
        return false;
    }
    const ScheduleSnapshot& schedule = *latest;
    const QString devices =
        schedule.copies > 1
            ? tr("%1 data-parallel copies × %2 devices").arg(schedule.copies).arg(static_cast<int>(schedule.lanes.size()) / schedule.copies)
            : tr("%1 devices").arg(schedule.lanes.size());
    m_title->setText(tr("<b>%1</b> · %2 · %3 stages · %4 micro-batches a step")
                         .arg(QString::fromStdString(schedule.schedule).toUpper(), devices)
                         .arg(schedule.stages)
                         .arg(schedule.microBatches));
    showBubbles(schedule);
    updateStepText();
    return true;
}

}  // namespace distlab::ui
