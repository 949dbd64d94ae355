// The study window as a person uses it: an example study opened from File ▸ Examples runs its
// variants with predicted step times, its table is the engine's (the CSV export equals
// makeStudyTable's), a new baseline moves the ratios, one cursor moves on every chart, small
// multiples share a y range; a study made from the current run (Run ▸ New study) can be cancelled
// variant by variant; the table shows each prediction beside its measurement near the left, the
// header's menu chooses the columns (remembered), and the Learning view's smoothing slider smooths
// the study's step-time and samples/s curves.
#include <QtTest>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>

#include <cmath>
#include <memory>

#include <distlab/study/study_knobs.hpp>
#include <distlab/study/study_table.hpp>

#include "charts/line_chart.hpp"
#include "charts/smoothing_control.hpp"
#include "main_window.hpp"
#include "study/new_study_dialog.hpp"
#include "study/study_charts.hpp"
#include "study/study_controller.hpp"
#include "study/study_summary_view.hpp"
#include "study/study_timelines.hpp"
#include "study/study_window.hpp"
#include "views/learning_view.hpp"
#include "views/timeline_canvas.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

constexpr int kStudyTimeoutMs = 120000;

int columnOf(const StudyTable& table, const char* name) {
    for (std::size_t c = 0; c < table.header.size(); ++c)
        if (table.header[c] == name) return static_cast<int>(c);
    return -1;
}

/// The headings a person sees, left to right (moved or hidden sections as drawn).
QStringList visibleColumns(const QTableWidget& table) {
    QStringList names;
    const QHeaderView* header = table.horizontalHeader();
    for (int visual = 0; visual < header->count(); ++visual) {
        const int column = header->logicalIndex(visual);
        if (!header->isSectionHidden(column)) names.append(table.horizontalHeaderItem(column)->text());
    }
    return names;
}

int columnNamed(const QTableWidget& table, const QString& name) {
    for (int c = 0; c < table.columnCount(); ++c)
        if (table.horizontalHeaderItem(c)->text() == name) return c;
    return -1;
}

/// The chooser the header's context menu opens, as a right-click on heading `name` opens it.
QMenu* openColumnMenu(StudySummaryView& summary, const QString& name) {
    QHeaderView* header = summary.horizontalHeader();
    const int column = columnNamed(summary, name);
    const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
    QContextMenuEvent click(QContextMenuEvent::Mouse, at, header->viewport()->mapToGlobal(at));
    QApplication::sendEvent(header->viewport(), &click);
    return summary.columnMenu();
}

QAction* columnAction(QMenu* menu, const QString& name) {
    for (QAction* action : menu->actions())
        if (action->objectName() == QStringLiteral("column:") + name) return action;
    return nullptr;
}

/// TensorBoard's debiased EMA, worked out here: m = w m + (1 - w) x, shown as m / (1 - w^n).
QList<double> debiasedEma(const QList<double>& values, double weight) {
    QList<double> out;
    double moving = 0.0, power = 1.0;
    for (double value : values) {
        moving = weight * moving + (1.0 - weight) * value;
        power *= weight;
        out.append(moving / (1.0 - power));
    }
    return out;
}

QList<double> ysOf(const QList<QPointF>& points) {
    QList<double> ys;
    for (const QPointF& point : points) ys.append(point.y());
    return ys;
}

bool closeTo(const QList<double>& a, const QList<double>& b) {
    if (a.size() != b.size()) return false;
    for (qsizetype i = 0; i < a.size(); ++i)
        if (std::abs(a[i] - b[i]) > 1e-9 * std::max(1.0, std::abs(b[i]))) return false;
    return true;
}

int knobIndex(const char* key) {
    const auto& knobs = studyKnobs();
    for (std::size_t k = 0; k < knobs.size(); ++k)
        if (knobs[k].key == key) return static_cast<int>(k);
    return -1;
}

}  // namespace

class TestStudyWindow : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;

    QAction* studyExample(const QString& name) {
        for (QAction* action : m_window->examplesMenu()->actions())
            if (action->objectName() == QStringLiteral("study:") + name) return action;
        return nullptr;
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-study-window")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void exampleStudyRunsAndItsTableIsTheEngines() {
        QAction* example = studyExample(QStringLiteral("mirrored-reductions"));
        QVERIFY2(example != nullptr, "File ▸ Examples lists the example studies");
        example->trigger();
        StudyWindow* window = m_window->studyWindow();
        QVERIFY(window != nullptr && window->isVisible());
        StudyController& controller = window->controller();
        QCOMPARE(controller.variantCount(), 4);
        QCOMPARE(window->baselineBox().count(), 4);
        QCOMPARE(window->progressTable().rowCount(), 4);
        QVERIFY(window->predictBox().isChecked());

        window->runAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            !controller.rows().empty() && controller.rows().back().state == VariantState::Finished && !controller.isRunning(),
            kStudyTimeoutMs);
        QVERIFY2(m_recorder->errors.isEmpty(), qPrintable(m_recorder->errors.join('\n')));
        for (const StudyRow& row : controller.rows()) {
            QCOMPARE(row.state, VariantState::Finished);
            QCOMPARE(row.steps, std::int64_t{3000});
            // Where the time went: the engine's one phase split, shares adding up to one.
            const double total = row.shares.compute + row.shares.communication + row.shares.waiting + row.shares.optimizer;
            QVERIFY2(std::abs(total - 1.0) < 1e-9, qPrintable(QString::number(total)));
        }
        QCOMPARE(window->summary().rowCount(), 4);
        // Predicted before the run, shown beside the measurement.
        const StudyTable table = window->summary().table();
        const int predicted = columnOf(table, "predicted_step_ms");
        QVERIFY(predicted >= 0);
        for (const auto& row : table.rows) QVERIFY2(!row[static_cast<std::size_t>(predicted)].empty(), row[0].c_str());

        // The CSV export is the table's own text (the same function as distlab-cli compare's).
        const QString csv = m_dir.filePath(QStringLiteral("table.csv"));
        QVERIFY(window->exportTable(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), studyTableCsv(table));
        QVERIFY(window->exportPicture(m_dir.filePath(QStringLiteral("study.png"))));
        QVERIFY(QFile(m_dir.filePath(QStringLiteral("study.png"))).size() > 1000);

        // Sorting by a column orders numbers as numbers; the cells show the table's own text.
        const int speed = columnOf(table, "samples_per_sec");
        window->summary().sortItems(speed, Qt::AscendingOrder);
        double previous = -1.0;
        for (int r = 0; r < window->summary().rowCount(); ++r) {
            const double value = window->summary().item(r, speed)->text().toDouble();
            QVERIFY2(value >= previous, qPrintable(window->summary().item(r, speed)->text()));
            previous = value;
        }
        window->summary().sortItems(0, Qt::AscendingOrder);

        // Another baseline: its own speed ratio is 1, the others' are taken against it.
        const int ratio = columnOf(table, "speed_vs_baseline");
        window->baselineBox().setCurrentIndex(2);
        const StudyTable rebased = window->summary().table();
        QCOMPARE(rebased.rows[2][static_cast<std::size_t>(ratio)], std::string("1.000"));
        bool shownAsWritten = false;
        for (int r = 0; r < window->summary().rowCount(); ++r)
            shownAsWritten = shownAsWritten || window->summary().item(r, ratio)->text() == QStringLiteral("1.000");
        QVERIFY(shownAsWritten);
        QVERIFY(rebased.rows[0][static_cast<std::size_t>(ratio)] != table.rows[0][static_cast<std::size_t>(ratio)]);

        // One cursor on every chart: moving over one moves all, naming each variant's value.
        StudyCharts& charts = window->charts();
        QCOMPARE(charts.charts().size(), std::size_t{4});
        LineChart* first = charts.charts().front();
        const QPointF middle(first->width() / 2.0, first->height() / 2.0);
        QMouseEvent move(QEvent::MouseMove, middle, first->mapToGlobal(middle), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(first, &move);
        QVERIFY(!std::isnan(first->cursorX()));
        for (LineChart* chart : charts.charts()) QCOMPARE(chart->cursorX(), first->cursorX());

        // Small multiples: one chart per variant, sharing one y range.
        charts.setLayoutMode(StudyCharts::Layout::SmallMultiples);
        charts.setMetric(StudyMetric::StepMs);
        QCOMPARE(charts.charts().size(), std::size_t{4});
        const auto range = charts.charts().front()->yRange();
        for (LineChart* chart : charts.charts()) QCOMPARE(chart->yRange(), range);

        // Timelines: one per variant, its last updates drawn with every replica's lane, all on the
        // time scale of the longest (the same length is the same time).
        window->views().setCurrentWidget(&window->timelines());
        StudyTimelines& timelines = window->timelines();
        timelines.setUpdatesShown(3);
        QCoreApplication::processEvents();  // lays the tab out
        QCOMPARE(timelines.canvases().size(), std::size_t{4});
        QVERIFY(timelines.sharedSpanNs() > 0);
        for (std::size_t v = 0; v < timelines.canvases().size(); ++v) {
            TimelineCanvas* canvas = timelines.canvases()[v];
            QCOMPARE(canvas->laneNames().size(), qsizetype(controller.study().variants[v].config.strategy.replicaCount()));
            QVERIFY(canvas->windowSpanNs() >= timelines.sharedSpanNs());
            QCOMPARE(canvas->windowSpanNs(), timelines.canvases().front()->windowSpanNs());
            QVERIFY2(timelines.captions()[v]->text().contains(QStringLiteral("updates 2,998 to 3,000")) ||
                         timelines.captions()[v]->text().contains(QStringLiteral("updates 2998 to 3000")),
                     qPrintable(timelines.captions()[v]->text()));
            QVERIFY2(canvas->width() > 200, qPrintable(QString::number(canvas->width())));
            canvas->grab();  // paints it, in or out of the scroll area's view
            // Every lane of every shown update: compute, communication, optimizer (and idle) spans.
            QVERIFY2(canvas->spansPainted() >= 3 * canvas->laneNames().size() * 2, qPrintable(QString::number(canvas->spansPainted())));
        }
    }

    void studyOfTheCurrentRunCancelsVariantByVariant() {
        NewStudyDialog dialog(m_window->controller().config(), m_window.get());
        dialog.choose(0, knobIndex("optimizer.learning_rate"), {QStringLiteral("0.01"), QStringLiteral("0.1")});
        dialog.setSteps(1'000'000);
        auto study = dialog.study();
        QVERIFY(study.has_value());
        QCOMPARE(study->variants.size(), std::size_t{2});
        QCOMPARE(study->variants[1].label, std::string("0.1"));
        m_window->showStudy(std::move(*study), {});
        StudyWindow* window = m_window->studyWindow();
        window->predictBox().setChecked(false);
        // All at once: the window says the speeds are distorted.
        window->modeBox().setCurrentIndex(1);
        auto* note = window->findChild<QLabel*>(QStringLiteral("studyModeNote"));
        QVERIFY(note != nullptr && note->text().contains(QStringLiteral("distorted")));
        window->runAction()->trigger();
        StudyController& controller = window->controller();
        QTRY_VERIFY_WITH_TIMEOUT(controller.progress(0).stepsDone > 10 && controller.progress(1).stepsDone > 10, kStudyTimeoutMs);
        auto* cancel = window->findChild<QPushButton*>(QStringLiteral("cancelVariant0"));
        QVERIFY(cancel != nullptr);
        QTRY_VERIFY(cancel->isEnabled());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(controller.progress(0).state, VariantState::Cancelled, kStudyTimeoutMs);
        QCOMPARE(controller.progress(1).state, VariantState::Running);
        window->cancelAll();
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRunning(), kStudyTimeoutMs);
        QCOMPARE(controller.rows()[1].state, VariantState::Cancelled);
        QVERIFY(controller.rows()[1].steps > 0);

        // Fewer than two values is not a study: the dialog says why.
        NewStudyDialog single(m_window->controller().config(), m_window.get());
        single.choose(0, knobIndex("optimizer.learning_rate"), {QStringLiteral("0.01")});
        QVERIFY(!single.study().has_value());
        auto* problem = single.findChild<QLabel*>(QStringLiteral("newStudyProblem"));
        QVERIFY(problem != nullptr && !problem->text().isEmpty());
    }

    void predictionsLeadTheTableAndTheChartsSmoothLikeLearning() {
        // A short predicted study of the current run: two learning rates, 150 updates each.
        NewStudyDialog dialog(m_window->controller().config(), m_window.get());
        dialog.choose(0, knobIndex("optimizer.learning_rate"), {QStringLiteral("0.01"), QStringLiteral("0.1")});
        dialog.setSteps(150);
        auto study = dialog.study();
        QVERIFY(study.has_value());
        m_window->showStudy(std::move(*study), {});
        StudyWindow* window = m_window->studyWindow();
        QVERIFY(window->predictBox().isChecked());
        window->runAction()->trigger();
        StudyController& controller = window->controller();
        QTRY_VERIFY_WITH_TIMEOUT(
            !controller.isRunning() && controller.rows().size() == 2 && controller.rows()[1].state == VariantState::Finished,
            kStudyTimeoutMs);
        QVERIFY2(m_recorder->errors.isEmpty(), qPrintable(m_recorder->errors.join('\n')));

        // Where the eye starts: the variant, its state, then the measured step time with its
        // prediction and the error right beside it; the detail columns wait in the chooser.
        StudySummaryView& summary = window->summary();
        const QStringList byDefault{QStringLiteral("variant"),          QStringLiteral("state"),
                                    QStringLiteral("step_ms"),          QStringLiteral("predicted_step_ms"),
                                    QStringLiteral("prediction_error"), QStringLiteral("final_loss"),
                                    QStringLiteral("accuracy"),         QStringLiteral("seconds_to_target"),
                                    QStringLiteral("samples_per_sec"),  QStringLiteral("speed_vs_baseline"),
                                    QStringLiteral("comm_share")};
        QCOMPARE(visibleColumns(summary), byDefault);
        QCOMPARE(summary.columnCount(), 20);  // the rest is there, hidden
        // Each row's prediction is filled in beside a measured step.
        for (int r = 0; r < summary.rowCount(); ++r) {
            QVERIFY(summary.item(r, columnNamed(summary, QStringLiteral("step_ms")))->text().toDouble() > 0);
            QVERIFY(summary.item(r, columnNamed(summary, QStringLiteral("predicted_step_ms")))->text().toDouble() > 0);
        }
        // The default columns fit the window as it opens (1280 wide): no sideways scrolling.
        QCoreApplication::processEvents();
        QCOMPARE(summary.horizontalScrollBar()->maximum(), 0);

        // The header's context menu: checkable columns, the row's name not among those that hide.
        QMenu* menu = openColumnMenu(summary, QStringLiteral("samples_per_sec"));
        QTRY_VERIFY(menu->isVisible());
        QAction* name = columnAction(menu, QStringLiteral("variant"));
        QVERIFY(name != nullptr && name->isChecked() && !name->isEnabled());
        QAction* bytes = columnAction(menu, QStringLiteral("bytes_per_step"));
        QAction* comm = columnAction(menu, QStringLiteral("comm_share"));
        QVERIFY(bytes != nullptr && bytes->isCheckable() && !bytes->isChecked());
        QVERIFY(comm != nullptr && comm->isChecked());
        bytes->trigger();  // shown, in its place after samples/s and the speed ratio
        comm->trigger();   // hidden
        menu->close();
        QStringList chosen = byDefault;
        chosen.removeAll(QStringLiteral("comm_share"));
        chosen.append(QStringLiteral("bytes_per_step"));
        QCOMPARE(visibleColumns(summary), chosen);
        QVERIFY(summary.columnWidth(columnNamed(summary, QStringLiteral("bytes_per_step"))) > 0);

        // Remembered: a study window opened later shows the same columns.
        StudyWindow later;
        later.setStudy(controller.study());
        QVERIFY(later.summary().isColumnShown(QStringLiteral("bytes_per_step")));
        QVERIFY(!later.summary().isColumnShown(QStringLiteral("comm_share")));
        QVERIFY(later.summary().isColumnShown(QStringLiteral("step_ms")));
        QVERIFY(!later.summary().isColumnShown(QStringLiteral("optimizer_share")));
        // Every column shown is remembered too (an empty hidden list is not "no choice made").
        for (const QString& column : StudySummaryView::defaultHiddenColumns()) later.summary().setColumnShown(column, true);
        later.summary().setColumnShown(QStringLiteral("comm_share"), true);
        {
            StudyController other;
            const StudySummaryView everything(other);
            for (const QString& column : StudySummaryView::defaultHiddenColumns()) QVERIFY(everything.isColumnShown(column));
        }
        // Default columns in the same menu puts the first choice back.
        menu = openColumnMenu(summary, QStringLiteral("variant"));
        QTRY_VERIFY(menu->isVisible());
        QAction* defaults = menu->findChild<QAction*>(QStringLiteral("defaultColumns"));
        QVERIFY(defaults != nullptr);
        defaults->trigger();
        menu->close();
        QCOMPARE(visibleColumns(summary), byDefault);
        QVERIFY(!QSettings().contains(QStringLiteral("study/hiddenColumns")));
        // The toolbar's Columns button opens the same chooser.
        auto* columnsButton = window->findChild<QToolButton*>(QStringLiteral("studyColumnsButton"));
        QVERIFY(columnsButton != nullptr && columnsButton->isVisible());
        QCOMPARE(columnsButton->menu(), summary.columnMenu());

        // The study charts' smoothing is the Learning view's own control.
        StudyCharts& charts = window->charts();
        QVERIFY(m_window->learningView().findChild<SmoothingControl*>() != nullptr);
        QCOMPARE(window->findChildren<SmoothingControl*>().size(), qsizetype(1));
        QCOMPARE(charts.smoothing().weight(), 0.6);  // TensorBoard's default
        QCOMPARE(charts.charts().size(), std::size_t{4});
        LineChart* stepChart = charts.charts()[2];
        LineChart* speedChart = charts.charts()[3];
        QCOMPARE(stepChart->title(), StudyCharts::metricName(StudyMetric::StepMs));
        QCOMPARE(speedChart->title(), StudyCharts::metricName(StudyMetric::SamplesPerSecond));
        QList<double> rawStep, rawSpeed;
        for (const StudyCurvePoint& point : controller.curves(1).steps.points()) {
            rawStep.append(point.stepMs);
            rawSpeed.append(point.samplesPerSecond);
        }
        QCOMPARE(rawStep.size(), qsizetype(150));  // every update kept: a short run is not thinned
        const QString label = QStringLiteral("0.1");
        QVERIFY(closeTo(ysOf(stepChart->seriesPoints(label)), debiasedEma(rawStep, 0.6)));

        // Home on the slider: no smoothing, the measured values as they are.
        QSlider& slider = charts.smoothing().slider();
        slider.setFocus();
        QTest::keyClick(&slider, Qt::Key_Home);
        QCOMPARE(charts.smoothing().weight(), 0.0);
        QCOMPARE(ysOf(stepChart->seriesPoints(label)), rawStep);
        QCOMPARE(ysOf(speedChart->seriesPoints(label)), rawSpeed);
        // End: the heaviest smoothing, a debiased EMA of weight 0.99 over the updates.
        QTest::keyClick(&slider, Qt::Key_End);
        QCOMPARE(charts.smoothing().weight(), 0.99);
        QVERIFY(closeTo(ysOf(stepChart->seriesPoints(label)), debiasedEma(rawStep, 0.99)));
        QVERIFY(closeTo(ysOf(speedChart->seriesPoints(label)), debiasedEma(rawSpeed, 0.99)));
        QVERIFY(!closeTo(ysOf(stepChart->seriesPoints(label)), rawStep));
        // Remembered as the Learning view's is.
        QCOMPARE(QSettings().value(QStringLiteral("study/smoothing")).toDouble(), 0.99);

        if (qEnvironmentVariableIsSet("DISTLAB_SCREENSHOT_DIR")) {
            charts.smoothing().setWeight(0.6);
            const QDir shots(qEnvironmentVariable("DISTLAB_SCREENSHOT_DIR"));
            for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
                window->resize(size);
                QCoreApplication::processEvents();
                QVERIFY(window->grab().save(shots.filePath(QStringLiteral("study-%1x%2.png").arg(size.width()).arg(size.height()))));
            }
        }
        charts.smoothing().setWeight(0.6);
    }
};

QTEST_MAIN(TestStudyWindow)
#include "test_study_window.moc"
