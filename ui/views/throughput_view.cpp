#include "views/throughput_view.hpp"

#include <QGridLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

#include <cmath>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "charts/stacked_bar_chart.hpp"
#include "count_text.hpp"
#include "panels/explanations.hpp"
#include "run_palette.hpp"
#include "views/chart_feeder.hpp"
#include "views/lane_names.hpp"
#include "views/steady_label.hpp"

namespace distlab::ui {

ThroughputView::ThroughputView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.throughput"));
    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_rate = new LineChart(this);
    m_rate->setTitle(tr("Throughput"));
    // The first window can be a single warm-up step without the pace's pause (14,000 samples/s beside
    // 600): it must not set the scale for the rest of the run.
    m_rate->setIgnoreSpikes(true);
    m_rate->setEmptyText(
        tr("Press Play: samples per second over all replicas appear here (one point per "
           "window of training: a few milliseconds early in a run, a quarter second later)."));
    m_time = new LineChart(this);
    m_time->setTitle(tr("Step time, mean over replicas"));
    m_time->setIgnoreSpikes(true);  // a rare 12 ms hiccup must not flatten steps of 0.03 ms
    m_time->setEmptyText(
        tr("Press Play: how long each step takes, and how much of it is compute, "
           "communication and waiting, appears here."));
    m_split = new StackedBarChart(this);
    m_split->setTitle(tr("Step time per replica, mean of the last %1 steps").arg(RunHistory::kSplitWindow));
    m_split->setValueAxisTitle(tr("milliseconds per step"));
    m_split->setEmptyText(
        tr("Press Play: one bar per replica splits its step into compute, communication, "
           "waiting, optimizer and idle time."));
    auto* grid = new QGridLayout();
    grid->addWidget(m_rate, 0, 0);
    grid->addWidget(m_time, 0, 1);
    grid->addWidget(m_split, 1, 0, 1, 2);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(grid, 1);
}

bool ThroughputView::refresh() {
    const RunHistory& history = controller().history();
    // The two line charts take turns while training runs (the summary goes with the rate chart).
    bool rateDue = true;
    bool timeDue = true;
    if (invalid()) {
        m_turns.fedAll(history.version());
    } else {
        const int chart = m_turns.next(history.version(), chartPeriodMs(controller().config()));
        rateDue = chart == 0;
        timeDue = chart == 1;
    }
    qsizetype drawn = 0;
    if (rateDue) drawn += refreshRate(history);
    if (timeDue) drawn += refreshTime(history);
    drawn += refreshBars(history);
    return drawn > 0;
}

qsizetype ThroughputView::refreshRate(const RunHistory& history) {
    m_rate->setAxisTitles(tr("step"), tr("samples per second"));
    const qsizetype drawn = feedChart(
        *m_rate, {{&history.series(GlobalSeries::SamplesPerSecond), tr("samples/s"), QColor(0x1f, 0x77, 0xb4), 2.0}}, XAxis::Step);
    // After the feed: the summary names what this fit cut off.
    const QLocale locale;
    QString summary = tr("%1 samples/s · %2 steps/s · last step %3 ms · %4")
                          .arg(locale.toString(history.samplesPerSecond(), 'f', 0))
                          .arg(locale.toString(history.stepsPerSecond(), 'f', 1))
                          .arg(locale.toString(history.lastStepMs(), 'f', 3))
                          .arg(countText(history.replicaCount(), tr("replica"), tr("replicas")));
    if (std::isfinite(m_rate->cutPeak()))
        summary += tr(" · throughput peaks up to %1 samples/s are cut off the chart").arg(locale.toString(m_rate->cutPeak(), 'f', 0));
    if (std::isfinite(m_time->cutPeak()))
        summary += tr(" · step-time peaks up to %1 ms are cut off the chart").arg(locale.toString(m_time->cutPeak(), 'f', 2));
    setSteadyText(*m_summary, summary);
    return drawn;
}

qsizetype ThroughputView::refreshTime(const RunHistory& history) {
    m_time->setAxisTitles(tr("step"), tr("milliseconds"));
    return feedChart(
        *m_time,
        {{&history.series(GlobalSeries::StepMs), tr("whole step"), palette().text().color(), 1.5},
         {&history.series(GlobalSeries::ComputeMs), phaseLabel(Phase::Compute), phaseColor(Phase::Compute), 1.5},
         {&history.series(GlobalSeries::CommunicationMs), phaseLabel(Phase::Communication), phaseColor(Phase::Communication), 1.5},
         {&history.series(GlobalSeries::WaitingMs), phaseLabel(Phase::Waiting), phaseColor(Phase::Waiting), 1.5},
         {&history.series(GlobalSeries::OptimizerMs), phaseLabel(Phase::Optimizer), phaseColor(Phase::Optimizer), 1.5},
         {&history.series(GlobalSeries::IdleMs), phaseLabel(Phase::Idle), phaseColor(Phase::Idle), 1.5}},
        XAxis::Step);
}

qsizetype ThroughputView::refreshBars(const RunHistory& history) {
    // The bars are means over the recent steps: twice a second is enough, and the last data is
    // shown once training stops.
    if (!invalid() && (history.version() == m_barsVersion || --m_framesToBars > 0)) return 0;
    m_barsVersion = history.version();
    qsizetype drawn = 0;
    const int replicas = history.replicaCount();
    if (m_categoryCount != replicas || invalid()) {
        QStringList categories;
        for (int r = 0; r < replicas; ++r) categories.append(laneLabel(controller().config().strategy, r));
        m_split->setCategories(categories);
        m_categoryCount = replicas;
    }
    m_framesToBars = 15;
    if (history.stepsSeen() > 0) {
        const Phase parts[] = {Phase::Compute, Phase::Communication, Phase::Waiting, Phase::Optimizer, Phase::Idle};
        for (Phase part : parts) {
            QList<qreal> values;
            for (int r = 0; r < replicas; ++r) {
                const StepSplit split = history.stepSplit(r);
                switch (part) {
                    case Phase::Compute:
                        values.append(split.computeMs);
                        break;
                    case Phase::Communication:
                        values.append(split.communicationMs);
                        break;
                    case Phase::Waiting:
                        values.append(split.waitingMs);
                        break;
                    case Phase::Optimizer:
                        values.append(split.optimizerMs);
                        break;
                    case Phase::Idle:
                        values.append(split.idleMs);
                        break;
                }
            }
            m_split->setValues(phaseLabel(part), values, phaseColor(part));
        }
        m_split->fitAxis();
        drawn += replicas;
    }
    return drawn;
}

}  // namespace distlab::ui
