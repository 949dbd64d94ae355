// The parameter-server tab driven as a user would, offscreen: choose parameter servers with 4
// workers in the strategy panel, train ~300 updates, check the topology counted pushes from every
// worker and the staleness histogram's mean is near N - 1 = 3; slow a worker (its count grows
// slower), kill one (training goes on), switch to sync live, lose a server (the run stops with the
// engine's error) and resume from a checkpoint; lose a server with no checkpoint saved by hand: the
// view keeps the run's true picture and resumes from the checkpoint the app kept while it trained;
// run the mirrored / async / sync comparison (a study) and close it mid-run; the window fits
// 1280x800.
#include <QtTest>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QToolBar>

#include <cmath>
#include <memory>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "panels/parameter_server_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "views/parameter_server_view.hpp"
#include "views/staleness_histogram.hpp"
#include "views/timeline_canvas.hpp"
#include "views/timeline_view.hpp"
#include "views/topology_canvas.hpp"
#include "views/worker_controls.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
// The header's "U updates/s, applying G gradients/s"; {-1, -1} when it shows no such pair.
std::pair<double, double> headerRates(const ParameterServerView& view) {
    const auto* summary = view.findChild<QLabel*>(QStringLiteral("parameterServerSummary"));
    static const QRegularExpression rates(QStringLiteral("([\\d,]+) updates/s, applying ([\\d,]+) gradients/s"));
    const QRegularExpressionMatch match = rates.match(summary != nullptr ? summary->text() : QString());
    if (!match.hasMatch()) return {-1.0, -1.0};
    return {QLocale().toDouble(match.captured(1)), QLocale().toDouble(match.captured(2))};
}

std::int64_t appliedSum(const TopologyCanvas& canvas) {
    std::int64_t sum = 0;
    for (int w = 0; w < canvas.workerCount(); ++w) sum += canvas.worker(w).applied;
    return sum;
}

std::vector<std::int64_t> appliedCounts(const TopologyCanvas& canvas) {
    std::vector<std::int64_t> counts;
    for (int w = 0; w < canvas.workerCount(); ++w) counts.push_back(canvas.worker(w).applied);
    return counts;
}
}  // namespace

class TestParameterServerView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-ps-test")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void introPageSaysWhatTheTabIsFor() {
        MainWindow& window = *m_window;
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QVERIFY(!view.showingRun());
        auto* intro = view.findChild<QLabel*>(QStringLiteral("parameterServerIntro"));
        QVERIFY(intro != nullptr);
        QVERIFY(intro->text().contains(QStringLiteral("one_device")));
        QVERIFY(intro->text().contains(QStringLiteral("Run set-up → Strategy → Parameter servers")));
        QTest::mouseClick(view.findChild<QPushButton*>(QStringLiteral("useParameterServersButton")), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        QCOMPARE(window.controller().config().strategy.workers, 4);
        QCOMPARE(window.controller().config().strategy.parameterServers, 2);
        QTRY_VERIFY_WITH_TIMEOUT(view.showingRun(), 5000);
        QVERIFY(m_recorder->questions.isEmpty());  // nothing trained yet: no reset question
    }

    void centralStorageRunsFromThePanel() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findData(static_cast<int>(StrategyKind::CentralStorage)));
        QVERIFY(strategy.devicesBox().isVisibleTo(&strategy));
        QVERIFY(!strategy.parameterServerOptions().isVisibleTo(&strategy));
        strategy.devicesBox().setValue(2);
        QTest::mouseClick(window.findChild<QToolBar*>()->widgetForAction(window.playAction()), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::CentralStorage, kLoadTimeoutMs);
        QCOMPARE(window.controller().config().strategy.replicaCount(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 50, 30000);
        QCOMPARE(window.controller().history().replicaCount(), 2);
        QVERIFY(window.controller().parameterServerControls() == nullptr);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void fourAsyncWorkersPushAndStalenessNearThree() {
        MainWindow& window = *m_window;
        startFourWorkers();
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 300, 30000);
        QVERIFY(view.showingRun());
        TopologyCanvas& topology = view.topology();
        QCOMPARE(topology.workerCount(), 4);
        QCOMPARE(topology.serverCount(), 2);
        QCOMPARE(view.workerControls().workerCount(), 4);
        QVERIFY(view.loseServerButton(1) != nullptr);
        for (int w = 0; w < 4; ++w)
            QTRY_VERIFY2_WITH_TIMEOUT(topology.worker(w).applied > 0, qPrintable(QStringLiteral("worker %1").arg(w)), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(topology.pulsesStarted() >= 4, 5000);
        std::int64_t pushedTotal = 0;
        for (int w = 0; w < 4; ++w) pushedTotal += topology.worker(w).gradients;
        QVERIFY(pushedTotal >= 300);
        // The staleness histogram over a long enough window: mean N - 1 = 3 for 4 equal workers.
        QTRY_VERIFY_WITH_TIMEOUT(view.histogram().count() >= 1000, 30000);
        QCOMPARE(view.histogram().theory(), 3.0);
        QVERIFY2(std::abs(view.histogram().mean() - 3.0) < 0.75, qPrintable(QString::number(view.histogram().mean())));
        QVERIFY(window.statusText().contains(QStringLiteral("4 workers, 2 parameter servers")));
        // The other views call the lanes workers, as this view does.
        window.views().setCurrentWidget(&window.timelineView());
        QTRY_COMPARE_WITH_TIMEOUT(window.timelineView().canvas().laneNames().size(), qsizetype{4}, 5000);
        QCOMPARE(window.timelineView().canvas().laneNames().at(3), QStringLiteral("worker 3"));
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void slowWorkerPushesLessAndKilledWorkerLeavesTheOthersTraining() {
        MainWindow& window = *m_window;
        // A model big enough that computing a gradient, not thread scheduling, sets a worker's pace.
        RunConfig config = MainWindow::defaultConfig();
        config.model.layers[0].units = 64;
        config.model.layers[1].units = 64;
        config.data.globalBatchSize = 128;
        window.startRun(config, false);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        startFourWorkers();
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 300, 30000);
        // Slow worker 1 to 0.1 with its slider: live, kept in the config and shown in the set-up.
        // (The slowest setting: on a loaded 2-core machine the hand-offs between worker threads take
        // a share of every worker's cycle, which a milder slowdown can hide.)
        view.workerControls().speedSlider(1).setValue(10);
        ParameterServerControls* controls = window.controller().parameterServerControls();
        QVERIFY(controls != nullptr);
        QCOMPARE(controls->workerStatus(1).speed, 0.1);
        QCOMPARE(window.controller().config().strategy.workerSpeed.at(1), 0.1);
        QCOMPARE(window.setup().strategyPanel().parameterServerOptions().speedBox(1).value(), 0.1);
        QTest::qWait(200);  // the step it was computing at full speed lands first
        const std::vector<std::int64_t> before = appliedCounts(view.topology());
        QTRY_VERIFY_WITH_TIMEOUT(view.topology().worker(0).applied >= before[0] + 400, 30000);
        const std::vector<std::int64_t> after = appliedCounts(view.topology());
        const double slow = double(after[1] - before[1]);
        const double others = double(after[0] - before[0] + after[2] - before[2] + after[3] - before[3]) / 3.0;
        QVERIFY2(slow * 2.0 < others, qPrintable(QStringLiteral("slow %1, others %2").arg(slow).arg(others)));
        QVERIFY(m_recorder->questions.isEmpty());  // a speed change needs no reset

        // Kill worker 2: it turns grey, its controls go off, the others go on training.
        QTest::mouseClick(&view.workerControls().killButton(2), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!view.topology().worker(2).alive, 5000);
        QVERIFY(!view.workerControls().killButton(2).isEnabled());
        const std::int64_t steps = window.controller().stepsDone();
        const std::int64_t seen = window.controller().history().stepsSeen();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= steps + 300, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= seen + 300, 5000);  // the views keep up
        QCOMPARE(window.controller().state(), SessionState::Running);
        const std::int64_t killedApplied = view.topology().worker(2).applied;  // what it pushed before it died
        const std::int64_t seenAfter = window.controller().history().stepsSeen();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= seenAfter + 300, 30000);
        QCOMPARE(view.topology().worker(2).applied, killedApplied);
        QTRY_COMPARE_WITH_TIMEOUT(view.histogram().theory(), 2.0, 5000);  // 3 live workers
        // Pause worker 3: greyed, resumable.
        QTest::mouseClick(&view.workerControls().pauseButton(3), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view.topology().worker(3).paused, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(view.histogram().theory(), 1.0, 5000);
        QTest::mouseClick(&view.workerControls().pauseButton(3), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!view.topology().worker(3).paused, 5000);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void syncSwitchAndPanelSpeedApplyLive() {
        MainWindow& window = *m_window;
        startFourWorkers();
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 100, 30000);
        view.modeBox().setCurrentIndex(view.modeBox().findData(static_cast<int>(ParameterServerMode::Sync)));
        QCOMPARE(window.controller().parameterServerControls()->mode(), ParameterServerMode::Sync);
        QCOMPARE(window.controller().config().strategy.mode, ParameterServerMode::Sync);
        ParameterServerOptions& options = window.setup().strategyPanel().parameterServerOptions();
        QCOMPARE(options.modeBox().currentData().toInt(), static_cast<int>(ParameterServerMode::Sync));
        // Updates applied before the switch may still be on their way to the views: look past them.
        const std::int64_t switchedAt = window.controller().stepsDone();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().lastStep().step >= switchedAt + 50, 30000);
        QCOMPARE(window.controller().history().lastStep().staleness, std::int64_t{0});
        QCOMPARE(view.histogram().theory(), 0.0);
        // A sync update averages the 4 workers' gradients: the header tells updates/s from the
        // gradients/s they apply, 4 to 1 (before, it called the gradients/s "updates/s").
        QTRY_VERIFY_WITH_TIMEOUT(headerRates(view).first > 0 && std::abs(headerRates(view).second / headerRates(view).first - 4.0) < 0.5,
                                 10000);
        // A worker's speed edited in the strategy panel applies live too.
        options.speedBox(0).setValue(0.5);
        window.applySetupNow();
        QCOMPARE(window.controller().parameterServerControls()->workerStatus(0).speed, 0.5);
        QTRY_COMPARE_WITH_TIMEOUT(view.workerControls().speedSlider(0).value(), 50, 5000);
        QVERIFY(m_recorder->questions.isEmpty());
        // A structural change (the worker count) asks to reset.
        options.workersBox().setValue(3);
        window.applySetupNow();
        QCOMPARE(m_recorder->questions.size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.workers, 3, kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(view.topology().workerCount(), 3, kLoadTimeoutMs);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    // The issue's case: a run resumed from its checkpoint said "Resumed from the checkpoint at update
    // N"; an example opened afterwards said it too, of a run that was not its own.
    void aFreshRunDoesNotSayItWasResumed() {
        MainWindow& window = *m_window;
        startFourWorkers();
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 50, 30000);
        QSignalSpy saved(&view, &ParameterServerView::checkpointSaved);
        view.saveCheckpoint();
        QVERIFY(saved.wait(kLoadTimeoutMs));
        QCOMPARE(saved.front().front().toBool(), true);
        QVERIFY(view.resumeCheckpoint());
        auto* text = view.findChild<QLabel*>(QStringLiteral("checkpointText"));
        QVERIFY(text != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(text->text().contains(QStringLiteral("Resumed from the checkpoint at update")), kLoadTimeoutMs);
        QVERIFY(window.openConfig(QStringLiteral(DISTLAB_EXAMPLES_DIR "/circle-parameter-server-4.json"), false));
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().name, std::string("circle-parameter-server-4"), kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(view.showingRun() && view.topology().workerCount() == 4, 5000);
        QCoreApplication::processEvents();
        QVERIFY2(!text->text().contains(QStringLiteral("Resumed")), qPrintable(text->text()));
        // The canvas is redrawn on the view's next tick after the run was replaced (under load, later
        // than one processEvents): the fresh run's counts, never the replaced run's.
        QTRY_COMPARE_WITH_TIMEOUT(appliedSum(view.topology()), std::int64_t{0}, kLoadTimeoutMs);
    }

    // A worker's speed typed into the set-up dock's box while the run trains applies to the running
    // workers, as the note and Explain say, and no note says it waits for a new run.
    void dockWorkerSpeedAppliesLiveWhileTraining() {
        MainWindow& window = *m_window;
        QVERIFY(window.openConfig(QStringLiteral(DISTLAB_EXAMPLES_DIR "/circle-parameter-server-4.json"), true));
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Running, kLoadTimeoutMs);
        window.views().setCurrentWidget(&window.parameterServerView());
        QTRY_COMPARE_WITH_TIMEOUT(window.parameterServerView().topology().workerCount(), 4, 5000);
        ParameterServerOptions& options = window.setup().strategyPanel().parameterServerOptions();
        QDoubleSpinBox& box = options.speedBox(2);
        QTRY_VERIFY_WITH_TIMEOUT(box.isVisibleTo(&options), 5000);
        QCOMPARE(window.controller().state(), SessionState::Running);
        box.setFocus();
        QTest::keyClick(&box, Qt::Key_Down);  // 1.00 -> 0.95, as a person lowers it
        QTest::keyClick(&box, Qt::Key_Down);  // 0.90
        QCOMPARE(box.value(), 0.9);
        ParameterServerControls* controls = window.controller().parameterServerControls();
        QVERIFY(controls != nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(controls->workerStatus(2).speed, 0.9, 5000);  // once the typing pauses
        QVERIFY2(!window.setup().hasPendingNote(),
                 qPrintable(window.setup().findChild<QLabel*>(QStringLiteral("setupPendingNote"))->text()));
        QCOMPARE(window.controller().config().strategy.workerSpeed.at(2), 0.9);
        QTRY_COMPARE_WITH_TIMEOUT(window.parameterServerView().workerControls().speedSlider(2).value(), 90, 5000);
        QVERIFY(m_recorder->questions.isEmpty());
    }

    void losingAServerStopsTheRunAndTheCheckpointResumes() {
        MainWindow& window = *m_window;
        startFourWorkers();
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 200, 30000);
        QSignalSpy saved(&view, &ParameterServerView::checkpointSaved);
        view.saveCheckpoint();
        QVERIFY(saved.wait(kLoadTimeoutMs));
        QCOMPARE(saved.front().front().toBool(), true);
        QTest::mouseClick(view.loseServerButton(1), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Failed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_recorder->errors.size(), 1, 5000);
        QVERIFY2(m_recorder->errors.front().contains(QStringLiteral("parameter server ps:1 was lost")),
                 qPrintable(m_recorder->errors.front()));
        QVERIFY(!window.playAction()->isEnabled());
        // Resume from the checkpoint: paused at its step; playing continues from there.
        QVERIFY(view.resumeCheckpoint());
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, kLoadTimeoutMs);
        std::int64_t resumedAt = -1;
        QTRY_VERIFY_WITH_TIMEOUT(
            onSessionThread(window.controller(), [&](Trainer& trainer) { resumedAt = trainer.stepsDone(); }) && resumedAt >= 200, 5000);
        // As a person would: only once the button is enabled (the GUI has seen the run's state).
        QTRY_VERIFY_WITH_TIMEOUT(window.playAction()->isEnabled(), 5000);
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 10, 30000);
        QVERIFY(window.controller().history().lastStep().step > resumedAt);
        QCOMPARE(m_recorder->errors.size(), 1);
    }

    // The run: the example config opened through the window, a worker killed and another
    // slowed, then "Lose server 0" without any checkpoint saved by hand. The view must keep the
    // picture of the run as it was when the server was lost, and offer a way on: the checkpoint the
    // app kept while the run trained, named by its update, resumed with the view's button.
    void losingAServerKeepsTheTruePictureAndTheKeptCheckpointResumes() {
        MainWindow& window = *m_window;
        window.controller().setAutoCheckpointInterval(200);  // ms of running (the app keeps one every few seconds)
        QVERIFY(window.openConfig(QStringLiteral(DISTLAB_EXAMPLES_DIR "/circle-parameter-server-4.json"), true));
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Running, kLoadTimeoutMs);
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 200, 30000);
        QTest::mouseClick(&view.workerControls().killButton(2), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!view.topology().worker(2).alive, 5000);
        view.workerControls().speedSlider(1).setValue(30);
        QTRY_COMPARE_WITH_TIMEOUT(view.topology().worker(1).speed, 0.3, 5000);
        const std::int64_t seen = window.controller().history().stepsSeen();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= seen + 300, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().checkpointStep() > 0, 10000);  // kept by the app meanwhile
        QTRY_COMPARE_WITH_TIMEOUT(view.histogram().theory(), 2.0, 5000);

        QTest::mouseClick(view.loseServerButton(0), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Failed, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(m_recorder->errors.size(), 1, 5000);
        QVERIFY2(m_recorder->errors.front().contains(QStringLiteral("parameter server ps:0 was lost")),
                 qPrintable(m_recorder->errors.front()));
        // Let the views take the last records and redraw a few times.
        QTest::qWait(500);
        view.topology().update();
        QCoreApplication::processEvents();

        // The true picture: worker 2 still dead, the speeds as set, the counts of what happened.
        const TopologyCanvas& topology = view.topology();
        QVERIFY(!topology.worker(2).alive);
        QCOMPARE(topology.worker(1).speed, 0.3);
        QCOMPARE(topology.worker(3).speed, 0.5);  // from the config
        QCOMPARE(topology.worker(0).speed, 1.0);
        std::int64_t pushed = 0, applied = 0;
        for (int w = 0; w < 4; ++w) {
            pushed += topology.worker(w).gradients;
            applied += topology.worker(w).applied;
            QVERIFY2(topology.worker(w).gradients >= topology.worker(w).applied,
                     qPrintable(QStringLiteral("worker %1: %2 pushed, %3 applied")
                                    .arg(w)
                                    .arg(topology.worker(w).gradients)
                                    .arg(topology.worker(w).applied)));
        }
        const std::int64_t updates = window.controller().history().updates().updates();
        QCOMPARE(applied, updates);
        QVERIFY2(pushed >= updates && pushed <= updates + 4, qPrintable(QStringLiteral("%1 pushed, %2 applied").arg(pushed).arg(updates)));
        auto* summary = view.findChild<QLabel*>(QStringLiteral("parameterServerSummary"));
        QVERIFY(summary != nullptr);
        QVERIFY2(summary->text().contains(QStringLiteral("from %1 gradients pushed").arg(QLocale().toString(pushed))),
                 qPrintable(summary->text()));
        QVERIFY2(summary->text().contains(QStringLiteral("3 of 4 workers")), qPrintable(summary->text()));
        QCOMPARE(view.histogram().theory(), 2.0);  // the 3 workers that were live, not 4
        auto* staleness = view.findChild<QLabel*>(QStringLiteral("stalenessText"));
        QVERIFY2(staleness->text().contains(QStringLiteral("theory for 3 live workers")), qPrintable(staleness->text()));

        // A way on: the note names the checkpoint's update, and Resume is enabled.
        const std::int64_t kept = window.controller().checkpointStep();
        QVERIFY(kept > 0);
        auto* note = view.findChild<QLabel*>(QStringLiteral("runEndedNote"));
        QVERIFY(note != nullptr && note->isVisibleTo(&view));
        QVERIFY2(note->text().contains(QStringLiteral("update %1").arg(QLocale().toString(kept))), qPrintable(note->text()));
        QPushButton* resume = view.resumeButton();
        QVERIFY(resume->isEnabled());
        QTest::mouseClick(resume, Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, kLoadTimeoutMs);
        std::int64_t resumedAt = -1;
        QTRY_VERIFY_WITH_TIMEOUT(
            onSessionThread(window.controller(), [&](Trainer& trainer) { resumedAt = trainer.stepsDone(); }) && resumedAt == kept, 5000);
        // The resumed run keeps the workers as they were: worker 2 dead, worker 1 slow.
        ParameterServerControls* controls = window.controller().parameterServerControls();
        QVERIFY(controls != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(!controls->workerStatus(2).alive, 5000);
        QCOMPARE(controls->workerStatus(1).speed, 0.3);
        // The worker cards go on from the checkpoint: its updates, one worker's gradient each
        // (async), not 0 at update `kept`.
        QTRY_COMPARE_WITH_TIMEOUT(appliedSum(view.topology()), kept, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.playAction()->isEnabled(), 5000);
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 50, 30000);
        QVERIFY(window.controller().history().lastStep().step > kept);
        // The curves go on from the checkpoint: the updates before it are still drawn, and the
        // rows run in order across the resume (those after the checkpoint were redone, not doubled).
        const std::vector<MetricRow> rows = window.controller().history().rows();
        QVERIFY(!rows.empty() && rows.front().step <= 2);
        for (std::size_t i = 1; i < rows.size(); ++i) QVERIFY2(rows[i].step > rows[i - 1].step, qPrintable(QString::number(i)));
        QVERIFY(window.controller().history().series(GlobalSeries::TrainLoss).first().step <= 2.0);
        QCOMPARE(window.controller().state(), SessionState::Running);
        QTRY_VERIFY_WITH_TIMEOUT(!view.topology().worker(2).alive, 5000);
        QCOMPARE(m_recorder->errors.size(), 1);
    }

    void comparisonIsAStudyOfTheThreeStrategies() {
        MainWindow& window = *m_window;
        startFourWorkers();
        window.compareAction()->trigger();
        StudyWindow* studyWindow = window.studyWindow();
        QVERIFY(studyWindow != nullptr && studyWindow->isVisible());
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);  // the comparison gets the cores
        StudyController& study = studyWindow->controller();
        QCOMPARE(study.variantCount(), 3);
        const auto& variants = study.study().variants;
        QCOMPARE(variants[0].config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(variants[0].config.strategy.replicaCount(), 4u);
        QCOMPARE(variants[1].config.strategy.mode, ParameterServerMode::Async);
        QCOMPARE(variants[2].config.strategy.mode, ParameterServerMode::Sync);
        // Every update consumes the same 32 samples: mirrored 4 x 8, async 1 x 32, sync 4 x 8 averaged.
        QCOMPARE(variants[0].config.data.globalBatchSize, 32);
        QCOMPARE(variants[1].config.data.globalBatchSize, 32);
        QCOMPARE(variants[2].config.data.globalBatchSize, 8);
        QVERIFY(QString::fromStdString(variants[0].label).contains(QStringLiteral("mirrored")));
        QVERIFY(QString::fromStdString(variants[1].label).contains(QStringLiteral("async")));
        QVERIFY(QString::fromStdString(variants[2].label).contains(QStringLiteral("sync")));
        // It runs as any study does: the first variant trains, and closing the window stops it at once.
        QTRY_VERIFY_WITH_TIMEOUT(study.progress(0).stepsDone >= 20, 60000);
        QElapsedTimer timer;
        timer.start();
        studyWindow->close();
        QTRY_VERIFY_WITH_TIMEOUT(!study.isRunning(), 5000);
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void windowIsUsableAt1280x800() {
        MainWindow& window = *m_window;
        startFourWorkers();
        window.views().setCurrentWidget(&window.parameterServerView());
        QTRY_VERIFY_WITH_TIMEOUT(window.parameterServerView().showingRun(), 5000);
        // The docks take about 630 px: every view must shrink to what is left.
        QStringList views;
        for (int tab = 0; tab < window.views().count(); ++tab) {
            const QSize minimum = window.views().widget(tab)->minimumSizeHint();
            views.append(QStringLiteral("%1 %2x%3").arg(window.views().tabText(tab)).arg(minimum.width()).arg(minimum.height()));
        }
        const QSize minimum = window.minimumSizeHint();
        QVERIFY2(minimum.width() <= 1280 && minimum.height() <= 800,
                 qPrintable(QStringLiteral("window %1x%2; views: %3").arg(minimum.width()).arg(minimum.height()).arg(views.join(", "))));
        window.resize(1280, 800);
        QCoreApplication::processEvents();
        QCOMPARE(window.size(), QSize(1280, 800));
    }

private:
    // Parameter servers with 4 asynchronous workers, chosen in the strategy panel; then Play.
    void startFourWorkers() {
        MainWindow& window = *m_window;
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findData(static_cast<int>(StrategyKind::ParameterServer)));
        ParameterServerOptions& options = strategy.parameterServerOptions();
        QVERIFY(options.isVisibleTo(&strategy));
        QVERIFY(!strategy.accumulationBox().isVisibleTo(&strategy));
        options.workersBox().setValue(4);
        options.serversBox().setValue(2);
        options.modeBox().setCurrentIndex(options.modeBox().findData(static_cast<int>(ParameterServerMode::Async)));
        QTest::mouseClick(window.findChild<QToolBar*>()->widgetForAction(window.playAction()), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        const StrategyConfig& config = window.controller().config().strategy;
        QCOMPARE(config.workers, 4);
        QCOMPARE(config.parameterServers, 2);
        QCOMPARE(config.mode, ParameterServerMode::Async);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Running, kLoadTimeoutMs);
        QVERIFY(window.controller().parameterServerControls() != nullptr);
    }

    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestParameterServerView)
#include "test_parameter_server_view.moc"
