#include "views/replica_view.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "panels/explanations.hpp"
#include "run_palette.hpp"
#include "views/chart_feeder.hpp"
#include "views/lane_names.hpp"

namespace distlab::ui {

namespace {
// Overlapping lines (equal copies under mirrored) stay visible as concentric stripes: replica 0 widest.
qreal stripeWidth(int replica, int replicas) { return 1.5 + 0.8 * (replicas - 1 - replica); }
QColor pale(QColor color) {
    color.setAlpha(110);
    return color;
}

QString stepRange(const StepRange& range) {
    const QLocale locale;
    return range.first == range.last
               ? ReplicaView::tr("step %1").arg(locale.toString(static_cast<qlonglong>(range.first)))
               : ReplicaView::tr("steps %1–%2")
                     .arg(locale.toString(static_cast<qlonglong>(range.first)), locale.toString(static_cast<qlonglong>(range.last)));
}

// Says where the per-replica curves have no points because the window was too busy ("" when none).
QString describeDetailGaps(const std::vector<StepRange>& gaps) {
    if (gaps.empty()) return {};
    const QString why = ReplicaView::tr(
        "the window was too busy to read them while they trained. The run's own "
        "curves and its metrics have every step.");
    if (gaps.size() == 1) return ReplicaView::tr("No per-replica values for %1: %2").arg(stepRange(gaps.front()), why);
    return ReplicaView::tr("No per-replica values for %1 stretches of steps (the latest: %2): %3")
        .arg(gaps.size())
        .arg(stepRange(gaps.back()), why);
}
}  // namespace

ReplicaView::ReplicaView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.replicas"));
    m_parameter = new QComboBox(this);
    m_parameter->setMinimumContentsLength(16);
    m_parameter->setAccessibleName(tr("Parameter"));
    m_element = new QSpinBox(this);
    m_element->setRange(0, 0);
    m_element->setAccessibleName(tr("Element"));
    m_elementLabel = new QLabel(this);
    m_watchControls = new QWidget(this);
    auto* controls = new QHBoxLayout(m_watchControls);
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(new QLabel(tr("Parameter"), m_watchControls));
    controls->addWidget(m_parameter);
    controls->addWidget(new QLabel(tr("element"), m_watchControls));
    controls->addWidget(m_element);
    controls->addWidget(m_elementLabel);
    controls->addStretch(1);

    m_value = new LineChart(this);
    m_value->setEmptyText(
        tr("Press Play: the chosen parameter's value on every replica appears here, one colour "
           "per replica. Under mirrored the copies stay equal, so the lines lie on top of each other."));
    m_gradient = new LineChart(this);
    m_gradient->setTitle(tr("Gradient norm per replica"));
    m_gradient->setEmptyText(tr("Press Play: each replica's gradient norm before and after the all-reduce appears here."));
    m_loss = new LineChart(this);
    m_loss->setTitle(tr("Loss on each replica's shard"));
    m_loss->setEmptyText(tr("Press Play: the loss each replica measures on its own shard of the batch appears here."));
    m_spread = new LineChart(this);
    m_spread->setEmptyText(
        tr("Press Play: how far the replicas' copies differ (max − min) appears here; "
           "0 means the copies are identical."));
    auto* grid = new QGridLayout();
    grid->addWidget(m_value, 0, 0);
    grid->addWidget(m_gradient, 0, 1);
    grid->addWidget(m_loss, 1, 0);
    grid->addWidget(m_spread, 1, 1);
    m_gapNote = new QLabel(this);
    m_gapNote->setObjectName(QStringLiteral("detailGapNote"));
    m_gapNote->setWordWrap(true);
    m_gapNote->hide();
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_watchControls);
    layout->addWidget(m_gapNote);
    layout->addLayout(grid, 1);

    connect(m_parameter, &QComboBox::currentIndexChanged, this, [this] {
        const int size = m_parameter->currentData().toInt();
        const QSignalBlocker blocker(m_element);
        m_element->setRange(0, std::max(0, size - 1));
        m_element->setValue(0);
        applyWatch();
    });
    connect(m_element, &QSpinBox::valueChanged, this, [this] { applyWatch(); });
    connect(&controller, &SessionController::snapshotChanged, this, &ReplicaView::updateParameters);
    connect(&controller, &SessionController::runReplaced, this, [this] {
        // A cluster's tasks report parameter 0's element 0 from the start: nothing to choose.
        m_watchControls->setVisible(this->controller().cluster() == nullptr);
        m_names.clear();
        const QSignalBlocker blocker(m_parameter);
        m_parameter->clear();
        m_value->removeAllSeries();
        m_gradient->removeAllSeries();
        m_loss->removeAllSeries();
        m_spread->removeAllSeries();
    });
}

void ReplicaView::updateParameters() {
    auto snapshot = controller().snapshot();
    if (!snapshot) return;
    QStringList names;
    for (const ParameterInfo& info : snapshot->parameters) names.append(QString::fromStdString(info.name));
    if (names == m_names) return;
    m_names = names;
    const QSignalBlocker blocker(m_parameter);
    m_parameter->clear();
    for (const ParameterInfo& info : snapshot->parameters) {
        QStringList dims;
        for (std::int64_t dim : info.shape) dims.append(QString::number(dim));
        m_parameter->addItem(QStringLiteral("%1 [%2]").arg(QString::fromStdString(info.name), dims.join(QStringLiteral(" × "))),
                             static_cast<int>(info.size));
    }
    const int current = std::min(controller().watchedParameter(), static_cast<int>(names.size()) - 1);
    m_parameter->setCurrentIndex(std::max(0, current));
    const QSignalBlocker elementBlocker(m_element);
    m_element->setRange(0, std::max(0, m_parameter->currentData().toInt() - 1));
    m_element->setValue(static_cast<int>(controller().watchedElement()));
    m_elementLabel->setText(watchedLabel());
    invalidate();
}

bool ReplicaView::watch(const QString& name, std::int64_t element) {
    const int index = static_cast<int>(m_names.indexOf(name));
    if (index < 0) return false;
    m_parameter->setCurrentIndex(index);
    m_element->setValue(static_cast<int>(element));
    applyWatch();
    return true;
}

void ReplicaView::applyWatch() {
    if (m_parameter->currentIndex() < 0) return;
    controller().setWatched(m_parameter->currentIndex(), m_element->value());
    m_elementLabel->setText(watchedLabel());
    invalidate();
    refreshIfVisible();
}

QString ReplicaView::watchedLabel() const {
    auto snapshot = controller().snapshot();
    const int index = m_parameter->currentIndex();
    if (!snapshot || index < 0 || index >= static_cast<int>(snapshot->parameters.size())) return {};
    const ParameterInfo& info = snapshot->parameters[static_cast<std::size_t>(index)];
    const std::int64_t element = m_element->value();
    if (info.shape.size() == 2) {
        return tr("= row %1, column %2 (input %1 → unit %2)").arg(element / info.shape[1]).arg(element % info.shape[1]);
    }
    return tr("= unit %1").arg(element);
}

bool ReplicaView::refresh() {
    const RunHistory& history = controller().history();
    // Up to 33 curves in four charts: while training runs, one chart is fed per frame (each at
    // ~8 Hz), which keeps a frame within budget at 8 replicas. A new run or setting redraws all.
    const bool all = invalid();
    int chart = -1;
    if (all) {
        m_turns.fedAll(history.version());
    } else {
        chart = m_turns.next(history.version(), chartPeriodMs(controller().config()));
        if (chart < 0) return false;
    }
    const QString name = m_names.value(m_parameter->currentIndex(), tr("parameter"));
    const QString watched = QStringLiteral("%1[%2]").arg(name).arg(m_element->value());
    m_value->setTitle(tr("%1 on every replica").arg(watched));
    m_spread->setTitle(tr("Spread between replicas"));
    m_value->setAxisTitles(tr("step"), tr("value"));
    m_gradient->setAxisTitles(tr("step"), tr("L2 norm"));
    m_loss->setAxisTitles(tr("step"), tr("loss"));
    m_spread->setAxisTitles(tr("step"), tr("max − min"));

    const QString gapNote = describeDetailGaps(history.detailGaps());
    if (gapNote != m_gapNote->text()) {
        m_gapNote->setText(gapNote);
        m_gapNote->setVisible(!gapNote.isEmpty());
    }

    const int replicas = history.replicaCount();
    const StrategyConfig& strategy = controller().config().strategy;
    qsizetype drawn = 0;
    if (all || chart == 0) {
        std::vector<Curve> values;
        for (int r = 0; r < replicas; ++r) {
            values.push_back(
                {&history.replicaSeries(r, ReplicaSeries::Watched), laneLabel(strategy, r), replicaColor(r), stripeWidth(r, replicas)});
        }
        drawn += feedChart(*m_value, values, XAxis::Step);
    }
    if (all || chart == 1) {
        std::vector<Curve> gradients;
        // What thin and pale mean goes in the legend (keys without points), not in the title.
        gradients.push_back({nullptr, tr("thin: before the reduction"), palette().text().color(), 1.2});
        gradients.push_back({nullptr, tr("wide, pale: after"), pale(palette().text().color()), 4.0});
        for (int r = 0; r < replicas; ++r) {
            gradients.push_back({&history.replicaSeries(r, ReplicaSeries::GradNormAfter), tr("%1 after").arg(laneLabel(strategy, r)),
                                 pale(replicaColor(r)), stripeWidth(r, replicas) + 2.0, Qt::SolidLine, 0.0, false});
        }
        for (int r = 0; r < replicas; ++r) {
            gradients.push_back({&history.replicaSeries(r, ReplicaSeries::GradNormBefore), laneLabel(strategy, r), replicaColor(r), 1.2});
        }
        drawn += feedChart(*m_gradient, gradients, XAxis::Step);
    }
    if (all || chart == 2) {
        std::vector<Curve> losses;
        for (int r = 0; r < replicas; ++r) {
            losses.push_back({&history.replicaSeries(r, ReplicaSeries::LocalLoss), laneLabel(strategy, r), replicaColor(r), 1.5});
        }
        drawn += feedChart(*m_loss, losses, XAxis::Step);
    }
    if (all || chart == 3) {
        drawn += feedChart(*m_spread,
                           {{&history.series(GlobalSeries::Divergence), tr("max − min of %1").arg(watched), palette().text().color(), 2.0}},
                           XAxis::Step);
    }
    return drawn > 0;
}

}  // namespace distlab::ui
