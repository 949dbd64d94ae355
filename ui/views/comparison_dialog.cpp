#include "views/comparison_dialog.hpp"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "bridge/comparison_runner.hpp"
#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "panels/explanations.hpp"
#include "views/chart_feeder.hpp"

namespace distlab::ui {

namespace {
constexpr double kSmoothing = 0.8;  // per-update losses are noisy; the same EMA for every curve
}

ComparisonDialog::ComparisonDialog(QWidget* parent) : QDialog(parent), m_runner(new ComparisonRunner(this)) {
    setObjectName(QStringLiteral("comparisonDialog"));
    setWindowTitle(tr("Compare mirrored, async and sync parameter servers"));
    setExplainKey(this, QStringLiteral("view.comparison"));
    m_parallelism = new QSpinBox(this);
    m_parallelism->setRange(1, 8);
    m_parallelism->setValue(4);
    m_parallelism->setSuffix(tr(" replicas / workers"));
    m_updates = new QSpinBox(this);
    m_updates->setRange(10, 1'000'000);
    m_updates->setSingleStep(500);
    m_updates->setValue(2000);
    m_updates->setSuffix(tr(" updates"));
    m_start = new QPushButton(tr("Start"), this);
    m_stop = new QPushButton(tr("Stop"), this);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setTextFormat(Qt::RichText);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_steps = new LineChart(this);
    m_steps->setTitle(tr("Training loss against updates"));
    m_steps->setAxisTitles(tr("updates applied"), tr("loss (smoothed)"));
    m_steps->setEmptyText(tr("Press Start: one curve per run appears here."));
    m_wall = new LineChart(this);
    m_wall->setTitle(tr("Training loss against wall time"));
    m_wall->setAxisTitles(tr("wall time since the run's start (s)"), tr("loss (smoothed)"));
    m_wall->setEmptyText(tr("Press Start: the same losses against seconds of training."));
    for (LineChart* chart : {m_steps, m_wall}) chart->setMinimumSize(280, 220);

    auto* controls = new QHBoxLayout();
    controls->addWidget(m_parallelism);
    controls->addWidget(m_updates);
    controls->addWidget(m_start);
    controls->addWidget(m_stop);
    controls->addStretch(1);
    auto* charts = new QHBoxLayout();
    charts->addWidget(m_steps, 1);
    charts->addWidget(m_wall, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_note);
    layout->addLayout(charts, 1);
    layout->addWidget(m_status);
    resize(1100, 620);

    connect(m_start, &QPushButton::clicked, this, &ComparisonDialog::start);
    connect(m_stop, &QPushButton::clicked, this, &ComparisonDialog::stop);
    connect(m_runner, &ComparisonRunner::ticked, this, &ComparisonDialog::redraw);
}

ComparisonDialog::~ComparisonDialog() { m_runner->stop(); }

void ComparisonDialog::setBase(const RunConfig& base) {
    m_base = base;
    const StrategyConfig& strategy = base.strategy;
    const std::int64_t n = strategy.type == StrategyKind::ParameterServer ? strategy.workers : strategy.replicaCount();
    m_parallelism->setValue(static_cast<int>(n > 1 ? n : 4));
    constexpr std::int64_t kDefaultUpdates = 5000;  // long enough to see the curves part, short enough to finish soon
    m_updates->setValue(static_cast<int>(base.steps > 0 ? std::min(base.steps, kDefaultUpdates) : kDefaultUpdates));
}

bool ComparisonDialog::start() {
    auto plans = ComparisonRunner::plan(m_base, m_parallelism->value(), m_updates->value());
    if (!plans) {
        m_runner->stop();
        m_note->setText(tr("<span style='color:#c0392b'>Cannot compare this run: %1</span>")
                            .arg(QString::fromStdString(plans.error().message).toHtmlEscaped()));
        return false;
    }
    QStringList lines;
    for (const ComparisonRunner::Plan& plan : *plans)
        lines.append(tr("%1: <b>%2</b>").arg(plan.name.toHtmlEscaped(), plan.samplesPerUpdate.toHtmlEscaped()));
    m_note->setText(tr("<p>Samples per update — %1.<br>Same model, data, seed and learning rate. The async workers "
                       "compute concurrently, so in the same wall time they consume about N times the samples. The "
                       "three runs share this machine's cores: compare their wall times with each other, not with a "
                       "run alone.</p>").arg(lines.join(QStringLiteral(" · "))));
    m_steps->removeAllSeries();
    m_wall->removeAllSeries();
    m_drawnVersion = 0;
    m_runner->start(std::move(*plans));
    return true;
}

void ComparisonDialog::stop() { m_runner->stop(); }

void ComparisonDialog::closeEvent(QCloseEvent* event) {
    m_runner->stop();
    QDialog::closeEvent(event);
}

void ComparisonDialog::reject() {
    m_runner->stop();
    QDialog::reject();
}

void ComparisonDialog::redraw() {
    std::uint64_t version = 0;
    for (int r = 0; r < m_runner->runCount(); ++r) version += m_runner->history(r).version();
    QStringList status;
    const QLocale locale;
    for (int r = 0; r < m_runner->runCount(); ++r) {
        const QString error = m_runner->error(r);
        status.append(tr("<span style='color:%1'>&#9632;</span> %2: %3 updates, %4%5")
                          .arg(ComparisonRunner::color(r).name(), m_runner->plan(r).name.toHtmlEscaped(),
                               locale.toString(m_runner->stepsDone(r)), QString::fromLatin1(stateName(m_runner->state(r))),
                               error.isEmpty() ? QString() : tr(" — %1").arg(error.toHtmlEscaped())));
    }
    m_status->setText(status.join(QStringLiteral(" &nbsp; ")));
    if (version == m_drawnVersion) return;
    m_drawnVersion = version;
    std::vector<Curve> curves;
    for (int r = 0; r < m_runner->runCount(); ++r)
        curves.push_back({&m_runner->history(r).series(GlobalSeries::TrainLoss), m_runner->plan(r).name,
                          ComparisonRunner::color(r), 2.0, Qt::SolidLine, kSmoothing, true});
    feedChart(*m_steps, curves, XAxis::Step);
    feedChart(*m_wall, curves, XAxis::WallSeconds);
}

}  // namespace distlab::ui
