// Saved runs as a person uses them (File ▸ Save run, Open saved run, Compare with saved run): a run
// saved mid-way reopens in a fresh window with its curves and metrics and goes on training from the
// update it was saved at; compared, its curves are drawn dashed beside the live ones; a file that is
// not a saved run says so and changes nothing.
#include <QtTest>

#include <QAction>
#include <QFile>
#include <QStatusBar>
#include <QTemporaryDir>

#include <memory>

#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"
#include "views/learning_view.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

RunConfig untilPaused() {
    RunConfig config = MainWindow::defaultConfig();
    config.name = "circle-saved";
    config.steps = 0;  // until paused
    config.evalEvery = 10;
    return config;
}

}  // namespace

class TestSavedRuns : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    Recorder m_recorder;

    /// A window that trained `steps` or more and is paused, as a person gets one: Play, then Pause
    /// once it is offered. Null (and the test failed) when it did not get there.
    std::unique_ptr<MainWindow> trainedWindow(std::int64_t steps) {
        auto window = openWindow(m_recorder, QSize(1280, 800), untilPaused());
        bool ready = false;
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
            window->playAction()->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(window->controller().stepsDone() >= steps && window->pauseAction()->isEnabled(),
                                     kLoadTimeoutMs);
            window->pauseAction()->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(window->controller().state() == SessionState::Paused, kLoadTimeoutMs);
            ready = true;
        }();
        if (!ready) window.reset();
        return window;
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-saved-runs")); }
    void init() { m_recorder = Recorder{}; }

    void reopensWithItsCurvesAndGoesOn() {
        const QString path = m_dir.filePath(QStringLiteral("circle.distlab-run"));
        std::int64_t savedStep = 0;
        std::vector<MetricRow> savedRows;
        std::int64_t savedLossSamples = 0;
        {
            auto first = trainedWindow(60);
            QVERIFY(first);
            savedStep = first->controller().stepsDone();
            QVERIFY2(first->saveRun(path), qPrintable(m_recorder.errors.join('\n')));
            savedRows = first->controller().history().rows();
            savedLossSamples = first->controller().history().series(GlobalSeries::TrainLoss).appendedCount();
            QVERIFY(first->statusBar()->currentMessage().contains(QStringLiteral("circle.distlab-run")));
        }
        QCOMPARE(static_cast<std::int64_t>(savedRows.size()), savedStep);

        // A fresh window with another run: opening the saved run brings back its set-up and curves.
        auto second = openWindow(m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*second), kLoadTimeoutMs);
        QVERIFY(second->openSavedRun(path));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*second) && second->controller().stepsDone() == savedStep, kLoadTimeoutMs);
        QVERIFY2(m_recorder.errors.isEmpty(), qPrintable(m_recorder.errors.join('\n')));
        QCOMPARE(QString::fromStdString(second->controller().config().name), QStringLiteral("circle-saved"));
        const RunHistory& history = second->controller().history();
        QCOMPARE(history.series(GlobalSeries::TrainLoss).appendedCount(), savedLossSamples);
        const std::vector<MetricRow> rows = history.rows();
        QCOMPARE(rows.size(), savedRows.size());
        QCOMPARE(rows.back().step, savedRows.back().step);
        QCOMPARE(rows.back().loss, savedRows.back().loss);
        QVERIFY(!history.series(GlobalSeries::TestLoss).empty());

        // Play goes on from the saved update: the rows continue without a gap, later in wall time.
        second->playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(second->controller().stepsDone() >= savedStep + 20 && second->pauseAction()->isEnabled(),
                                 kLoadTimeoutMs);
        second->pauseAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(second->controller().state() == SessionState::Paused, kLoadTimeoutMs);
        second->controller().tick();
        const std::vector<MetricRow> after = second->controller().history().rows();
        QVERIFY(after.size() >= savedRows.size() + 20);
        const MetricRow& firstNew = after[savedRows.size()];
        QCOMPARE(firstNew.step, savedStep + 1);
        QVERIFY(firstNew.wallSeconds > savedRows.back().wallSeconds);
        // The saved part of the curve is the same; the new part goes on from it.
        QCOMPARE(after[savedRows.size() - 1].loss, savedRows.back().loss);
    }

    void comparedRunIsDrawnDashedBeside() {
        const QString path = m_dir.filePath(QStringLiteral("reference.distlab-run"));
        {
            auto first = trainedWindow(40);
            QVERIFY(first);
            QVERIFY(first->saveRun(path));
        }
        auto window = openWindow(m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->views().setCurrentWidget(&window->learningView());
        QVERIFY(window->compareWithSavedRun(path));
        QVERIFY(window->comparisonRun() != nullptr);
        QVERIFY(window->learningView().reference() == window->comparisonRun());
        QTRY_VERIFY(window->learningView().lossChart().seriesNames().contains(QStringLiteral("circle-saved (saved): train")));
        QVERIFY(window->learningView().lossChart().seriesNames().contains(QStringLiteral("circle-saved (saved): test")));
        QVERIFY(window->learningView().accuracyChart().seriesNames().contains(QStringLiteral("circle-saved (saved): train")));
        // The current run is untouched by a comparison.
        QCOMPARE(window->controller().stepsDone(), std::int64_t{0});
        window->clearComparison();
        QVERIFY(window->comparisonRun() == nullptr);
        QTRY_VERIFY(!window->learningView().lossChart().seriesNames().contains(QStringLiteral("circle-saved (saved): train")));
    }

    void notASavedRunChangesNothing() {
        auto window = trainedWindow(10);
        QVERIFY(window);
        const std::int64_t steps = window->controller().stepsDone();
        const QString weights = m_dir.filePath(QStringLiteral("w.safetensors"));
        QVERIFY(window->saveWeights(weights));
        m_recorder.errors.clear();
        QVERIFY(!window->openSavedRun(weights));
        QCOMPARE(m_recorder.errors.size(), 1);
        QVERIFY2(m_recorder.errors.front().contains(QStringLiteral("saved_run: missing")), qPrintable(m_recorder.errors.front()));
        QCOMPARE(window->controller().stepsDone(), steps);
        QVERIFY(!window->compareWithSavedRun(weights));
        QVERIFY(window->comparisonRun() == nullptr);
    }

    void savingWaitsForAPause() {
        auto window = openWindow(m_recorder, QSize(1280, 800), untilPaused());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window->controller().stepsDone() > 5, kLoadTimeoutMs);
        const QString path = m_dir.filePath(QStringLiteral("running.distlab-run"));
        QVERIFY(!window->saveRun(path));
        QVERIFY(m_recorder.errors.back().contains(QStringLiteral("Pause")));
        QVERIFY(!QFile::exists(path));
    }
};

QTEST_MAIN(TestSavedRuns)
#include "test_saved_runs.moc"
