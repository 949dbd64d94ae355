#include "views/learning_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "charts/smoothing_control.hpp"
#include "panels/explanations.hpp"
#include "views/chart_feeder.hpp"

namespace distlab::ui {

namespace {
const QColor kTrainColor(0x1f, 0x77, 0xb4);
const QColor kTestColor(0xd6, 0x27, 0x28);
// A saved run compared with the live one: the same hues, darker and dashed.
const QColor kReferenceTrainColor(0x0b, 0x3c, 0x5d);
const QColor kReferenceTestColor(0x7f, 0x1d, 0x1d);
QColor faint(QColor color) {
    color.setAlpha(70);
    return color;
}
}  // namespace

LearningView::LearningView(SessionController& controller, QWidget* parent) : LiveView(controller, parent) {
    setExplainKey(this, QStringLiteral("view.learning"));
    m_smoothing = new SmoothingControl(0.9, this);  // per-step batch losses are noisy: smooth more than TensorBoard's 0.6
    m_axis = new QComboBox(this);
    m_axis->addItem(tr("Step"));
    m_axis->addItem(tr("Wall time (s)"));
    m_axis->setAccessibleName(tr("X axis"));

    auto* controls = new QHBoxLayout();
    controls->addWidget(m_smoothing);
    controls->addSpacing(24);
    controls->addWidget(new QLabel(tr("X axis"), this));
    controls->addWidget(m_axis);
    controls->addStretch(1);

    m_loss = new LineChart(this);
    m_loss->setTitle(tr("Loss"));
    m_loss->setEmptyText(
        tr("Press Play to start training: the loss of every step appears here, and the "
           "test loss every half second when the data has a test split."));
    m_accuracy = new LineChart(this);
    m_accuracy->setTitle(tr("Accuracy"));
    m_accuracy->setFixedYRange(0.0, 1.0);
    m_accuracy->setEmptyText(
        tr("Press Play to start training: the accuracy of every training batch and of "
           "the test set appears here."));

    auto* charts = new QHBoxLayout();
    charts->addWidget(m_loss, 1);
    charts->addWidget(m_accuracy, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(charts, 1);

    auto changed = [this] {
        invalidate();
        refreshIfVisible();
    };
    connect(m_smoothing, &SmoothingControl::weightChanged, this, changed);
    connect(m_axis, &QComboBox::currentIndexChanged, this, changed);
}

void LearningView::setReference(const RunHistory* reference, const QString& label) {
    m_reference = reference;
    m_referenceLabel = label;
    invalidate();
    refreshIfVisible();
}

double LearningView::smoothing() const { return m_smoothing->weight(); }

void LearningView::setSmoothing(double weight) { m_smoothing->setWeight(weight); }

void LearningView::addReferenceCurves(std::vector<Curve>& curves, GlobalSeries train, GlobalSeries test, double weight) const {
    if (m_reference == nullptr) return;
    // Smoothed as the live train curve is (the raw one would hide both); dashed, named after the run.
    curves.push_back(
        {&m_reference->series(train), tr("%1: train").arg(m_referenceLabel), kReferenceTrainColor, 2.0, Qt::DashLine, weight, true});
    if (!m_reference->series(test).empty())
        curves.push_back(
            {&m_reference->series(test), tr("%1: test").arg(m_referenceLabel), kReferenceTestColor, 2.0, Qt::DashLine, 0.0, true});
}

bool LearningView::refresh() {
    const RunHistory& history = controller().history();
    // One chart per frame while training runs; both at once for a new run or a new setting.
    bool lossDue = true;
    bool accuracyDue = true;
    const XAxis axis = m_axis->currentIndex() == 0 ? XAxis::Step : XAxis::WallSeconds;
    // Both charts share one x range (the loss chart keeps it stable), so their axes end at the
    // same step; when it moves, both are redrawn in this frame.
    std::vector<const DecimatedSeries*> shown{&history.series(GlobalSeries::TrainLoss), &history.series(GlobalSeries::TestLoss),
                                              &history.series(GlobalSeries::TrainAccuracy), &history.series(GlobalSeries::TestAccuracy)};
    if (m_reference != nullptr) {
        for (GlobalSeries which :
             {GlobalSeries::TrainLoss, GlobalSeries::TestLoss, GlobalSeries::TrainAccuracy, GlobalSeries::TestAccuracy})
            if (!m_reference->series(which).empty()) shown.push_back(&m_reference->series(which));
    }
    const std::pair<double, double> range = sharedXRange(*m_loss, shown, axis);
    const bool moved = range != m_sharedRange;
    m_sharedRange = range;
    if (invalid() || moved) {
        m_turns.fedAll(history.version());
    } else {
        const int chart = m_turns.next(history.version(), chartPeriodMs(controller().config()));
        if (chart < 0) return false;
        lossDue = chart == 0;
        accuracyDue = chart == 1;
    }
    const QString xTitle = axis == XAxis::Step ? tr("step") : tr("wall time since start (s)");
    const double weight = smoothing();
    const bool smoothed = weight > 0.0;
    qsizetype drawn = 0;

    if (lossDue) {
        m_loss->setAxisTitles(xTitle, tr("loss"));
        std::vector<Curve> loss;
        loss.push_back({&history.series(GlobalSeries::TrainLoss), tr("train (raw)"), smoothed ? faint(kTrainColor) : kTrainColor,
                        smoothed ? 1.0 : 2.0, Qt::SolidLine, 0.0, !smoothed});
        if (smoothed)
            loss.push_back({&history.series(GlobalSeries::TrainLoss), tr("train"), kTrainColor, 2.0, Qt::SolidLine, weight, true});
        loss.push_back({&history.series(GlobalSeries::TestLoss), tr("test"), kTestColor, 2.0, Qt::SolidLine, 0.0, true});
        addReferenceCurves(loss, GlobalSeries::TrainLoss, GlobalSeries::TestLoss, weight);
        drawn += feedChart(*m_loss, loss, axis, kChartPointBudget, &m_sharedRange);
    }
    if (!accuracyDue) return drawn > 0;
    m_accuracy->setAxisTitles(xTitle, tr("accuracy (fraction correct)"));
    if (history.isRegression()) {
        m_accuracy->removeAllSeries();
        m_accuracy->setXRange(m_sharedRange.first, m_sharedRange.second);
        m_accuracy->setEmptyText(
            tr("Accuracy applies to classification. This run is a regression (mean squared "
               "error): follow the loss."));
    } else {
        std::vector<Curve> accuracy;
        accuracy.push_back({&history.series(GlobalSeries::TrainAccuracy), tr("train (raw)"), smoothed ? faint(kTrainColor) : kTrainColor,
                            smoothed ? 1.0 : 2.0, Qt::SolidLine, 0.0, !smoothed});
        if (smoothed) {
            accuracy.push_back({&history.series(GlobalSeries::TrainAccuracy), tr("train"), kTrainColor, 2.0, Qt::SolidLine, weight, true});
        }
        accuracy.push_back({&history.series(GlobalSeries::TestAccuracy), tr("test"), kTestColor, 2.0, Qt::SolidLine, 0.0, true});
        addReferenceCurves(accuracy, GlobalSeries::TrainAccuracy, GlobalSeries::TestAccuracy, weight);
        drawn += feedChart(*m_accuracy, accuracy, axis, kChartPointBudget, &m_sharedRange);
    }
    return drawn > 0;
}

}  // namespace distlab::ui
