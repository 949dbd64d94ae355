// Saved runs as a person uses them (File ▸ Save run, Open saved run, Compare with saved run): a run
// saved mid-way reopens in a fresh window with its curves and metrics and goes on training from the
// update it was saved at; compared, its curves are drawn dashed beside the live ones; a file that is
// not a saved run says so and changes nothing. A window too busy to read its telemetry for a while
// still shows, exports and saves every step the run took.
#include <QtTest>

#include <QAction>
#include <QLabel>
#include <QElapsedTimer>
#include <QFile>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTextStream>

#include <chrono>
#include <memory>
#include <thread>

#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"
#include "views/learning_view.hpp"
#include "views/replica_view.hpp"

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

/// Steps per second for the runs saved here: whatever the machine's load, a run paused "once it
/// has 60 steps" stays far below the 20,000 steps past which rows are thinned.
constexpr double kPace = 400.0;

/// The step numbers of a metrics CSV (its first column), or the line that is not one.
std::vector<std::int64_t> csvSteps(const QString& path, QString* bad) {
    std::vector<std::int64_t> steps;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *bad = QStringLiteral("cannot open ") + path;
        return steps;
    }
    QTextStream in(&file);
    const QString header = in.readLine();
    if (!header.startsWith(QStringLiteral("step,"))) *bad = header;
    while (!in.atEnd()) {
        const QString line = in.readLine();
        bool ok = false;
        steps.push_back(line.section(',', 0, 0).toLongLong(&ok));
        if (!ok) *bad = line;
    }
    return steps;
}

/// The rows' steps are 1 .. last, each once, in order; else the first that is not.
QString firstGap(const std::vector<std::int64_t>& steps, std::int64_t last) {
    if (static_cast<std::int64_t>(steps.size()) != last) return QStringLiteral("%1 rows for %2 steps").arg(steps.size()).arg(last);
    for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i] != static_cast<std::int64_t>(i) + 1) return QStringLiteral("row %1 is step %2").arg(i).arg(steps[i]);
    return {};
}

std::vector<std::int64_t> stepsOf(const std::vector<MetricRow>& rows) {
    std::vector<std::int64_t> steps;
    for (const MetricRow& row : rows) steps.push_back(row.step);
    return steps;
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
        window->controller().setSpeedLimit(kPace);
        bool ready = false;
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
            window->playAction()->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(window->controller().stepsDone() >= steps && window->pauseAction()->isEnabled(), kLoadTimeoutMs);
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
            QVERIFY2(fileTaskSucceeds(*first, [&] { first->saveRun(path); }), qPrintable(m_recorder.errors.join('\n')));
            savedRows = first->controller().history().rows();
            savedLossSamples = first->controller().history().series(GlobalSeries::TrainLoss).appendedCount();
            QVERIFY(first->statusBar()->currentMessage().contains(QStringLiteral("circle.distlab-run")));
        }
        QCOMPARE(static_cast<std::int64_t>(savedRows.size()), savedStep);

        // A fresh window with another run: opening the saved run brings back its set-up and curves.
        auto second = openWindow(m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*second), kLoadTimeoutMs);
        QVERIFY2(second->openSavedRun(path), qPrintable(m_recorder.errors.join(QLatin1Char(10))));
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
        second->controller().setSpeedLimit(kPace);
        second->playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(second->controller().stepsDone() >= savedStep + 20 && second->pauseAction()->isEnabled(), kLoadTimeoutMs);
        second->pauseAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(second->controller().state() == SessionState::Paused, kLoadTimeoutMs);
        QVERIFY(second->controller().catchUp());
        const std::vector<MetricRow> after = second->controller().history().rows();
        QCOMPARE(firstGap(stepsOf(after), second->controller().stepsDone()), QString());
        const MetricRow& firstNew = after[savedRows.size()];
        QCOMPARE(firstNew.step, savedStep + 1);
        QVERIFY(firstNew.wallSeconds > savedRows.back().wallSeconds);
        // The saved part of the curve is the same; the new part goes on from it.
        QCOMPARE(after[savedRows.size() - 1].loss, savedRows.back().loss);
    }

    void aBusyWindowLosesNoStep() {
        // 30,000 steps (over three times the 8,192 records a telemetry ring holds) while the window's
        // thread does nothing else: no event loop, no drain. The run stops by itself at its step
        // limit, so the count is exact.
        constexpr std::int64_t kSteps = 30'000;
        RunConfig config = untilPaused();
        config.steps = kSteps;
        auto window = openWindow(m_recorder, QSize(1280, 800), config);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->playAction()->trigger();
        const TrainingSession* session = window->controller().session();
        QElapsedTimer busy;
        busy.start();
        while (session->state() != SessionState::Finished && busy.elapsed() < 180'000)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        QCOMPARE(session->state(), SessionState::Finished);
        QVERIFY(window->controller().history().stepsSeen() == 0);  // nothing was read meanwhile

        // The window catches up: every step in the history, each once, in order...
        QTRY_COMPARE_WITH_TIMEOUT(window->controller().history().stepsSeen(), kSteps, kLoadTimeoutMs);
        const std::vector<MetricRow> rows = window->controller().history().rows();
        QCOMPARE(firstGap(stepsOf(rows), kSteps), QString());
        QCOMPARE(window->controller().history().series(GlobalSeries::TrainLoss).appendedCount(), kSteps);
        // ... with its numbers, and the test loss at least every eval_every (10) steps.
        std::int64_t lastTested = 0;
        for (const MetricRow& row : rows) {
            QVERIFY2(row.stepMs > 0.0 && row.computeMs > 0.0, qPrintable(QString::number(row.step)));
            if (!std::isnan(row.testLoss)) lastTested = row.step;
            QVERIFY2(row.step - lastTested < 10, qPrintable(QStringLiteral("no test loss from %1 to %2").arg(lastTested).arg(row.step)));
        }

        // The per-replica curves could not get the replicas' detail of the steps the rings had no
        // room for: the Replicas view says where.
        const std::vector<StepRange>& gaps = window->controller().history().detailGaps();
        QVERIFY(!gaps.empty() && gaps.back().last == kSteps);
        window->views().setCurrentWidget(&window->replicaView());
        QTRY_VERIFY(window->replicaView().detailGapNote().isVisible());
        QVERIFY2(window->replicaView().detailGapNote().text().contains(QStringLiteral("too busy")),
                 qPrintable(window->replicaView().detailGapNote().text()));

        // The CSV has every step.
        const QString csv = m_dir.filePath(QStringLiteral("busy.csv"));
        QVERIFY(window->exportMetrics(csv));
        QString bad;
        const std::vector<std::int64_t> csvRows = csvSteps(csv, &bad);
        QVERIFY2(bad.isEmpty(), qPrintable(bad));
        QCOMPARE(firstGap(csvRows, kSteps), QString());

        // So has the saved run, opened again.
        const QString path = m_dir.filePath(QStringLiteral("busy.distlab-run"));
        QVERIFY2(fileTaskSucceeds(*window, [&] { window->saveRun(path); }), qPrintable(m_recorder.errors.join('\n')));
        auto reopened = openWindow(m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*reopened), kLoadTimeoutMs);
        QVERIFY(reopened->openSavedRun(path));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*reopened) && reopened->controller().stepsDone() == kSteps, kLoadTimeoutMs);
        QCOMPARE(firstGap(stepsOf(reopened->controller().history().rows()), kSteps), QString());
    }

    void comparedRunIsDrawnDashedBeside() {
        const QString path = m_dir.filePath(QStringLiteral("reference.distlab-run"));
        {
            auto first = trainedWindow(40);
            QVERIFY(first);
            QVERIFY(fileTaskSucceeds(*first, [&] { first->saveRun(path); }));
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
        QVERIFY(fileTaskSucceeds(*window, [&] { window->saveWeights(weights); }));
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
        QVERIFY(!fileTaskSucceeds(*window, [&] { window->saveRun(path); }));
        QVERIFY(m_recorder.errors.back().contains(QStringLiteral("Pause")));
        QVERIFY(!QFile::exists(path));
    }
};

QTEST_MAIN(TestSavedRuns)
#include "test_saved_runs.moc"
