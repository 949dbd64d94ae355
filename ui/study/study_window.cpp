#include "study/study_window.hpp"

#include <QAction>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QScrollBar>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include <distlab/files/atomic_file.hpp>

#include "file_dialogs.hpp"
#include "run_files.hpp"
#include "study/study_charts.hpp"
#include "study/study_controller.hpp"
#include "study/study_summary_view.hpp"
#include "study/study_timelines.hpp"

namespace distlab::ui {

namespace {
std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

// Prefixed: the unity build puts this file beside others with a Variant or State column.
enum ProgressColumn { ProgressVariant, ProgressState, ProgressBar, ProgressLoss, ProgressCancel, ProgressColumns };
}  // namespace

StudyWindow::StudyWindow(QWidget* parent)
    : QMainWindow(parent), m_controller(new StudyController(this)), m_prompts(UserPrompts::messageBoxes()) {
    setObjectName(QStringLiteral("studyWindow"));
    setWindowFlag(Qt::Window);
    resize(1280, 800);
    m_charts = new StudyCharts(*m_controller);
    m_timelines = new StudyTimelines(*m_controller);
    m_views = new QTabWidget();
    m_views->setObjectName(QStringLiteral("studyViews"));
    m_views->addTab(m_charts, tr("Curves"));
    m_views->addTab(m_timelines, tr("Timelines"));
    m_summary = new StudySummaryView(*m_controller);
    m_progress = new QTableWidget(0, ProgressColumns);
    m_progress->setObjectName(QStringLiteral("studyProgress"));
    m_progress->setHorizontalHeaderLabels({tr("Variant"), tr("State"), tr("Progress"), tr("Loss"), QString()});
    m_progress->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_progress->verticalHeader()->setVisible(false);
    m_progress->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_progress->horizontalHeader()->setSectionResizeMode(ProgressBar, QHeaderView::Stretch);
    m_splitter = new QSplitter(Qt::Vertical, this);
    m_splitter->addWidget(m_progress);
    m_splitter->addWidget(m_views);
    m_splitter->addWidget(m_summary);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setStretchFactor(2, 0);
    setCentralWidget(m_splitter);
    buildToolBar();
    connect(m_controller, &StudyController::updated, this, [this] {
        updateProgress();
        updateActions();
    });
    connect(m_controller, &StudyController::finished, this, [this] {
        statusBar()->showMessage(tr("The study has ended."), 10000);
        updateActions();
    });
    connect(m_controller, &StudyController::variantFailed, this, [this](int variant, const QString& message) {
        const QString label = QString::fromStdString(m_controller->study().variants[static_cast<std::size_t>(variant)].label);
        statusBar()->showMessage(tr("%1 failed: %2").arg(label, message));
    });
}

StudyWindow::~StudyWindow() = default;

void StudyWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Study"));
    bar->setObjectName(QStringLiteral("studyToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_run = bar->addAction(style()->standardIcon(QStyle::SP_MediaPlay), tr("Run study"), this, &StudyWindow::run);
    m_cancel = bar->addAction(style()->standardIcon(QStyle::SP_MediaStop), tr("Cancel all"), this, &StudyWindow::cancelAll);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Variants run "), bar));
    m_mode = new QComboBox(bar);
    m_mode->addItems({tr("one after another"), tr("all at once")});
    m_mode->setToolTip(
        tr("One after another gives fair timings on few cores; all at once is quicker but the "
           "variants share the cores, which distorts every speed"));
    bar->addWidget(m_mode);
    m_modeNote = new QLabel(bar);
    m_modeNote->setObjectName(QStringLiteral("studyModeNote"));
    bar->addWidget(m_modeNote);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_controller->setMode(index == 0 ? StudyMode::Sequential : StudyMode::Simultaneous);
        m_modeNote->setText(index == 0 ? QString() : tr(" They share the cores: speeds and step times are distorted. "));
    });
    m_predict = new QCheckBox(tr("Predict step times first"), bar);
    m_predict->setChecked(true);
    m_predict->setToolTip(
        tr("Before the run, predict each variant's step time from a short calibration on this "
           "machine and a model of its reduction; the table shows the prediction beside the "
           "measurement"));
    bar->addWidget(m_predict);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Baseline "), bar));
    m_baseline = new QComboBox(bar);
    m_baseline->setToolTip(tr("The variant the table's speed ratios are taken against"));
    bar->addWidget(m_baseline);
    connect(m_baseline, &QComboBox::currentIndexChanged, m_controller, &StudyController::setBaseline);
    // The table's column chooser, also on its headings' context menu: here it can be found.
    auto* columns = new QToolButton(bar);
    columns->setObjectName(QStringLiteral("studyColumnsButton"));
    columns->setText(tr("Columns"));
    columns->setToolTip(tr("Choose the summary table's columns (also by right-clicking its headings)"));
    columns->setMenu(m_summary->columnMenu());
    columns->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(columns);
    bar->addSeparator();
    bar->addAction(tr("Save study…"), this, [this] {
        const QString path = askSavePath(this, tr("Save study"), tr("Studies (*.study.json)"), QStringLiteral("study.json"),
                                         suggestedFileName(m_controller->study().spec.name, QStringLiteral("study.json")));
        if (!path.isEmpty()) saveStudy(path);
    });
    bar->addAction(tr("Export table…"), this, &StudyWindow::exportTableAsked);
    bar->addAction(tr("Export picture…"), this, [this] {
        const QString path = askSavePath(this, tr("Export the comparison"), tr("PNG images (*.png)"), QStringLiteral("png"),
                                         suggestedFileName(m_controller->study().spec.name, QStringLiteral("png")));
        if (!path.isEmpty()) exportPicture(path);
    });
}

void StudyWindow::setStudy(Study study, const QString& path) {
    m_path = path;
    const QString name = QString::fromStdString(study.spec.name);
    setWindowTitle(tr("Study: %1").arg(name));
    {
        const QSignalBlocker blocker(m_mode);
        m_mode->setCurrentIndex(study.spec.mode == StudyMode::Sequential ? 0 : 1);
    }
    m_modeNote->setText(study.spec.mode == StudyMode::Sequential ? QString()
                                                                 : tr(" They share the cores: speeds and step times are distorted. "));
    {
        const QSignalBlocker blocker(m_baseline);
        m_baseline->clear();
        for (const StudyVariant& variant : study.variants) m_baseline->addItem(QString::fromStdString(variant.label));
        m_baseline->setCurrentIndex(study.spec.baseline);
    }
    m_controller->setStudy(std::move(study));
    m_progress->setRowCount(m_controller->variantCount());
    for (int v = 0; v < m_controller->variantCount(); ++v) {
        auto* label = new QTableWidgetItem(QString::fromStdString(m_controller->study().variants[static_cast<std::size_t>(v)].label));
        label->setForeground(StudyCharts::variantColor(v));
        m_progress->setItem(v, ProgressVariant, label);
        m_progress->setItem(v, ProgressState, new QTableWidgetItem());
        m_progress->setItem(v, ProgressLoss, new QTableWidgetItem());
        auto* bar = new QProgressBar(m_progress);
        bar->setRange(0, 1000);
        m_progress->setCellWidget(v, ProgressBar, bar);
        auto* cancel = new QPushButton(tr("Cancel"), m_progress);
        cancel->setObjectName(QStringLiteral("cancelVariant%1").arg(v));
        connect(cancel, &QPushButton::clicked, this, [this, v] { m_controller->cancel(v); });
        m_progress->setCellWidget(v, ProgressCancel, cancel);
    }
    updateProgress();
    updateActions();
    fitTables();
}

void StudyWindow::fitTables() {
    // The progress and the summary tables show every variant (2 to 6) without scrolling; the charts
    // take the rest.
    auto rowsHeight = [](QTableWidget& table, int rows) {
        const int row = table.verticalHeader()->defaultSectionSize();
        return table.horizontalHeader()->sizeHint().height() + rows * row + 2 * table.frameWidth() +
               table.horizontalScrollBar()->sizeHint().height();
    };
    const int rows = m_controller->variantCount();
    const int progress = rowsHeight(*m_progress, rows);
    const int summary = rowsHeight(*m_summary, rows);
    m_splitter->setSizes({progress, std::max(200, m_splitter->height() - progress - summary), summary});
}

void StudyWindow::run() {
    if (!m_controller->hasStudy() || m_controller->isRunning()) return;
    // The runner predicts every variant before any trains (the calibration times this machine's
    // cores, so it must not share them with a variant).
    m_controller->start(m_predict->isChecked());
    if (m_predict->isChecked())
        statusBar()->showMessage(tr("Predicting each variant's step time (a short calibration on this machine), then "
                                    "running the variants…"),
                                 10000);
}

void StudyWindow::cancelAll() { m_controller->cancelAll(); }

void StudyWindow::updateProgress() {
    const QLocale locale;
    for (int v = 0; v < m_controller->variantCount() && v < m_progress->rowCount(); ++v) {
        const VariantProgress& progress = m_controller->progress(v);
        m_progress->item(v, ProgressState)->setText(QString::fromLatin1(variantStateName(progress.state)));
        if (auto* bar = qobject_cast<QProgressBar*>(m_progress->cellWidget(v, ProgressBar))) {
            bar->setValue(progress.steps > 0 ? static_cast<int>(1000 * progress.stepsDone / progress.steps) : 0);
            bar->setFormat(tr("%1 / %2 updates").arg(locale.toString(progress.stepsDone), locale.toString(progress.steps)));
        }
        m_progress->item(v, ProgressLoss)->setText(std::isfinite(progress.loss) ? QString::number(progress.loss, 'g', 4) : QString());
        const bool live =
            progress.state == VariantState::Waiting || progress.state == VariantState::Loading || progress.state == VariantState::Running;
        if (QWidget* cancel = m_progress->cellWidget(v, ProgressCancel)) cancel->setEnabled(m_controller->isRunning() && live);
    }
}

void StudyWindow::updateActions() {
    const bool running = m_controller->isRunning();
    m_run->setEnabled(m_controller->hasStudy() && !running);
    m_cancel->setEnabled(running);
    m_mode->setEnabled(!running);
    m_predict->setEnabled(!running);
}

bool StudyWindow::saveStudy(const QString& path) {
    if (!reportSave(*this, m_prompts, writeFileAtomically(local(path), studyToJson(m_controller->study().spec)),
                    tr("Could not save the study"), tr("the study"), path))
        return false;
    m_path = QFileInfo(path).absoluteFilePath();
    return true;
}

bool StudyWindow::exportTable(const QString& path) {
    if (!reportSave(*this, m_prompts, writeFileAtomically(local(path), studyTableCsv(m_summary->table())), tr("Could not export the table"),
                    tr("the table"), path))
        return false;
    m_exportedVersion = m_controller->version();
    return true;
}

bool StudyWindow::exportTableAsked() {
    const QString path = m_prompts.savePath
                             ? m_prompts.savePath(this, tr("Export the summary table"), tr("CSV (*.csv)"), QStringLiteral("csv"),
                                                  suggestedFileName(m_controller->study().spec.name, QStringLiteral("csv")))
                             : QString();
    return !path.isEmpty() && exportTable(path);
}

QString StudyWindow::unsavedResults() const {
    int trained = 0;
    for (int v = 0; v < m_controller->variantCount(); ++v) trained += m_controller->progress(v).stepsDone > 0 ? 1 : 0;
    if (trained == 0 || m_controller->version() == m_exportedVersion) return {};
    return tr("the study \"%1\"'s results (%2 of its %3 variants)")
        .arg(QString::fromStdString(m_controller->study().spec.name))
        .arg(trained)
        .arg(m_controller->variantCount());
}

bool StudyWindow::confirmDiscardResults(const QString& what) {
    const QString results = unsavedResults();
    if (results.isEmpty()) return true;
    return allowLosingWork(m_prompts, this, tr("Export the study's results?"),
                           tr("To %1, %2 are discarded unless you export its table first.").arg(what, results),
                           [this] { return exportTableAsked(); });
}

bool StudyWindow::exportPicture(const QString& path) {
    return reportSave(*this, m_prompts, saveWidgetPng(centralWidget(), path), tr("Could not export the picture"), tr("the picture"), path);
}

void StudyWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    fitTables();  // the splitter has its height now
}

void StudyWindow::closeEvent(QCloseEvent* event) {
    m_controller->cancelAll();  // a closed study window trains nothing in the background
    QMainWindow::closeEvent(event);
}

}  // namespace distlab::ui
