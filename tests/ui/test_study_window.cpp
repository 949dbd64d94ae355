// The study window as a person uses it: an example study opened from File ▸ Examples runs its
// variants with predicted step times, its table is the engine's (the CSV export equals
// makeStudyTable's), a new baseline moves the ratios, one cursor moves on every chart, small
// multiples share a y range; a study made from the current run (Run ▸ New study) can be cancelled
// variant by variant.
#include <QtTest>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>

#include <cmath>
#include <memory>

#include <distlab/study/study_knobs.hpp>
#include <distlab/study/study_table.hpp>

#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "study/new_study_dialog.hpp"
#include "study/study_charts.hpp"
#include "study/study_controller.hpp"
#include "study/study_summary_view.hpp"
#include "study/study_timelines.hpp"
#include "study/study_window.hpp"
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
        QTRY_VERIFY_WITH_TIMEOUT(!controller.rows().empty() && controller.rows().back().state == VariantState::Finished &&
                                     !controller.isRunning(),
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
};

QTEST_MAIN(TestStudyWindow)
#include "test_study_window.moc"
