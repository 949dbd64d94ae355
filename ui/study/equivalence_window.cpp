#include "study/equivalence_window.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include <distlab/files/atomic_file.hpp>

#include "charts/line_chart.hpp"
#include "file_dialogs.hpp"
#include "run_palette.hpp"
#include "run_files.hpp"
#include "study/equivalence_controller.hpp"

namespace distlab::ui {

namespace {

enum Column { Variant, Class, State, Last, Worst, Where, Reason, Order, Why, Columns };

QString figure(double value) { return std::isfinite(value) ? QString::number(value, 'g', 3) : QStringLiteral("not finite"); }

double log10OrFloor(double value) {
    if (std::isnan(value) || std::isinf(value)) return 0.0;  // a diverged variant: far above rounding, on the chart
    return value > 0.0 ? std::max(std::log10(value), EquivalenceWindow::kFloorLog10) : EquivalenceWindow::kFloorLog10;
}

}  // namespace

EquivalenceWindow::EquivalenceWindow(QWidget* parent)
    : QMainWindow(parent),
      m_controller(new EquivalenceController(this)),
      m_prompts(UserPrompts::messageBoxes()),
      m_chart(new LineChart),
      m_table(new QTableWidget(0, Columns)),
      m_note(new QLabel) {
    setObjectName(QStringLiteral("equivalenceWindow"));
    setWindowFlag(Qt::Window);
    resize(1280, 800);
    m_chart->setObjectName(QStringLiteral("equivalenceChart"));
    m_chart->setTitle(tr("Largest relative weight difference from the baseline"));
    // LineChart has no log axis: the chart plots log10 of the difference and says so.
    m_chart->setAxisTitles(tr("update"), tr("log10(largest relative difference)"));
    m_chart->setEmptyText(tr("Run the lab: every variant takes one update in turn, then its weights are compared with the baseline's"));
    m_note->setWordWrap(true);
    m_note->setText(tr("Relative: |w − w_baseline| over the largest |w_baseline| of the same parameter. A difference of exactly 0 "
                       "is drawn at %1; float32 rounding is about −7.")
                        .arg(kFloorLog10));
    buildTable();
    auto* top = new QWidget;
    auto* layout = new QVBoxLayout(top);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_note);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(m_table);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);

    QToolBar* bar = addToolBar(tr("Equivalence"));
    bar->setObjectName(QStringLiteral("equivalenceToolBar"));
    m_run = bar->addAction(tr("Run"), m_controller, &EquivalenceController::start);
    m_run->setObjectName(QStringLiteral("equivalenceRun"));
    m_run->setToolTip(tr("Step every variant in lockstep from scratch and compare its weights with the baseline's after each update"));
    m_cancel = bar->addAction(tr("Cancel"), m_controller, &EquivalenceController::cancel);
    m_cancel->setObjectName(QStringLiteral("equivalenceCancel"));
    bar->addSeparator();
    m_exportCsv = bar->addAction(tr("Export CSV…"), this, [this] {
        const QString path = askSavePath(this, tr("Export the differences"), tr("CSV (*.csv)"), QStringLiteral("csv"),
                                         suggestedFileName(m_controller->study().spec.name, QStringLiteral("csv")));
        if (!path.isEmpty()) exportCsv(path);
    });
    m_exportCsv->setObjectName(QStringLiteral("equivalenceExportCsv"));
    m_exportCsv->setToolTip(tr("Every kept update's largest differences per variant, as distlab-cli equivalence --csv writes them"));
    bar->addAction(tr("Export picture…"), this, [this] {
        const QString path = askSavePath(this, tr("Export the lab"), tr("PNG images (*.png)"), QStringLiteral("png"),
                                         suggestedFileName(m_controller->study().spec.name, QStringLiteral("png")));
        if (!path.isEmpty()) exportPicture(path);
    });
    connect(m_controller, &EquivalenceController::updated, this, [this] {
        updateTable();
        updateChart();
        updateActions();
    });
    connect(m_controller, &EquivalenceController::finished, this, [this] {
        statusBar()->showMessage(tr("The lab has ended."), 10000);
        updateActions();
    });
    updateActions();
}

EquivalenceWindow::~EquivalenceWindow() = default;

void EquivalenceWindow::setStudy(Study study, const QString& path) {
    setWindowTitle(tr("Equivalence lab: %1").arg(QString::fromStdString(study.spec.name)) +
                   (path.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(path)));
    m_chart->removeAllSeries();
    m_controller->setStudy(std::move(study));
}

void EquivalenceWindow::buildTable() {
    m_table->setObjectName(QStringLiteral("equivalenceTable"));
    m_table->setHorizontalHeaderLabels({tr("Variant"), tr("Class"), tr("State"), tr("Last relative"), tr("Worst relative (update)"),
                                        tr("Where"), tr("Reason"), tr("How it sums a gradient"), tr("Why not zero")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    for (int column : {Reason, Order, Why}) {
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::Interactive);
        m_table->setColumnWidth(column, 320);
    }
}

void EquivalenceWindow::updateTable() {
    const EquivalenceController& c = *m_controller;
    m_table->setRowCount(c.variantCount());
    auto set = [this](int row, int column, const QString& text) {
        QTableWidgetItem* item = m_table->item(row, column);
        if (item == nullptr) m_table->setItem(row, column, item = new QTableWidgetItem);
        if (item->text() != text) item->setText(text);
        item->setToolTip(text);
    };
    for (int v = 0; v < c.variantCount(); ++v) {
        const EquivalenceVerdict& verdict = c.verdict(v);
        const EquivalenceProgress& progress = c.progress(v);
        set(v, Variant, QString::fromStdString(c.study().variants[static_cast<std::size_t>(v)].label));
        set(v, Class, QString::fromUtf8(equivalenceClassName(verdict.kind)));
        QString state = QString::fromUtf8(variantStateName(progress.state));
        if (progress.stepsDone > 0) state += tr(" (%1 of %2)").arg(progress.stepsDone).arg(progress.steps);
        set(v, State, progress.message.empty() ? state : state + QStringLiteral(": ") + QString::fromStdString(progress.message));
        set(v, Last, progress.compared ? figure(progress.latest.maxRelative) : QString());
        set(v, Worst, progress.compared ? tr("%1 (%2)").arg(figure(progress.worst.maxRelative)).arg(progress.worst.step) : QString());
        set(v, Where,
            progress.compared ? tr("%1[%2]").arg(c.parameterName(progress.latest.parameter)).arg(progress.latest.element) : QString());
        set(v, Reason, QString::fromStdString(verdict.reason));
        set(v, Order, QString::fromStdString(verdict.summationOrder));
        set(v, Why, verdict.kind == EquivalenceClass::MustEqual ? QString::fromStdString(verdict.explanation) : QString());
        QFont font = m_table->item(v, Variant)->font();
        font.setBold(verdict.kind == EquivalenceClass::Baseline);
        m_table->item(v, Variant)->setFont(font);
    }
}

void EquivalenceWindow::updateChart() {
    const EquivalenceController& c = *m_controller;
    double lastStep = 1.0;
    double highest = kFloorLog10 + 1.0;
    for (int v = 0; v < c.variantCount(); ++v) {
        if (c.verdict(v).kind == EquivalenceClass::Baseline) continue;
        QList<QPointF> points;
        points.reserve(static_cast<qsizetype>(c.history(v).size()));
        for (const EquivalencePoint& point : c.history(v)) {
            points.append({double(point.step), log10OrFloor(point.maxRelative)});
            lastStep = std::max(lastStep, double(point.step));
            highest = std::max(highest, points.back().y());
        }
        // Must-equal variants solid, may-differ ones dashed: the two families read apart at a glance.
        const Qt::PenStyle style = c.verdict(v).kind == EquivalenceClass::MustEqual ? Qt::SolidLine : Qt::DashLine;
        m_chart->setSeries(QString::fromStdString(c.study().variants[static_cast<std::size_t>(v)].label), points, replicaColor(v), 2.0,
                           style);
    }
    // While running, headroom so the axis moves only now and then; once ended, exactly the updates run.
    if (c.isRunning())
        m_chart->stableXRange(1.0, lastStep);
    else
        m_chart->setXRange(1.0, lastStep);
    // The y axis starts at the floor (an exact zero) and ends at the next whole power of ten above
    // the largest difference: a fitted axis rounded it to "nice" bounds far below the floor.
    m_chart->setFixedYRange(kFloorLog10, std::ceil(highest));
    m_chart->fitAxes();
}

void EquivalenceWindow::updateActions() {
    const bool running = m_controller->isRunning();
    m_run->setEnabled(m_controller->hasStudy() && !running);
    m_cancel->setEnabled(running);
    // What ran so far is exported; a half-run lab is exported after it stops (cancelled or done).
    bool compared = false;
    for (int v = 0; v < m_controller->variantCount(); ++v) compared = compared || !m_controller->history(v).empty();
    m_exportCsv->setEnabled(compared && !running);
}

bool EquivalenceWindow::exportCsv(const QString& path) {
    return reportSave(*this, m_prompts, writeFileAtomically(QFile::encodeName(path).toStdString(), m_controller->csv()),
                      tr("Could not export the differences"), tr("the differences"), path);
}

bool EquivalenceWindow::exportPicture(const QString& path) {
    return reportSave(*this, m_prompts, saveWidgetPng(centralWidget(), path), tr("Could not export the picture"), tr("the picture"), path);
}

void EquivalenceWindow::closeEvent(QCloseEvent* event) {
    m_controller->cancel();
    QMainWindow::closeEvent(event);
}

}  // namespace distlab::ui
