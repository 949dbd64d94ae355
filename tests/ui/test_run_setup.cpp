// The set-up dock and the run agree, driven as a person would: edits made before Play are what
// trains (checked in the trainer itself: its replicas and layers), a config opened in a fresh
// window trains what the panel shows, a run that trained (live or paused) says which edits apply
// now and which need a new run, and asks before its steps go; the window opens at a pace a person can follow, shows the run's length, and
// "no limit" is one click away; a worker killed near the end of a run is killed, one clicked after the end is plainly refused.
#include <QtTest>

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolBar>

#include <memory>

#include <distlab/config/run_config_json.hpp>

#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "panels/model_panel.hpp"
#include "panels/parameter_server_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "views/parameter_server_view.hpp"
#include "views/topology_canvas.hpp"
#include "views/worker_controls.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
/// What the session's trainer itself runs: its replica count and its model's layer count.
struct Trained {
    int replicas = -1;
    std::size_t layers = 0;
};

Trained trained(MainWindow& window) {
    Trained what;
    onSessionThread(window.controller(), [&](Trainer& trainer) {
        what.replicas = trainer.replicaCount();
        what.layers = trainer.primaryModel().layerWidths().size();
    });
    return what;
}

void clickPlay(MainWindow& window) {
    QTest::mouseClick(window.findChild<QToolBar*>()->widgetForAction(window.playAction()), Qt::LeftButton);
}

/// A window as the app opens it (openWindow, as the other tests want, takes the pace off).
std::unique_ptr<MainWindow> openPacedWindow(Recorder& recorder, const RunConfig& config) {
    auto window = std::make_unique<MainWindow>();
    window->setPrompts(recorder.prompts());
    window->resize(QSize(1400, 900));
    window->show();
    window->startRun(config, false);
    return window;
}

void chooseMirrored(MainWindow& window, int replicas) {
    StrategyPanel& strategy = window.setup().strategyPanel();
    strategy.typeBox().setCurrentIndex(strategy.typeBox().findData(static_cast<int>(StrategyKind::Mirrored)));
    strategy.devicesBox().setValue(replicas);
}
}  // namespace

class TestRunSetup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-run-setup-test")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openPacedWindow(*m_recorder, MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void editsThenPlayTrainWhatThePanelsShow_data() {
        QTest::addColumn<int>("pauseMs");
        QTest::newRow("Play at once") << 0;
        QTest::newRow("Play after a pause") << 700;  // the edits have applied by themselves by then
        QTest::newRow("Play while the edit loads") << 320;
    }

    void editsThenPlayTrainWhatThePanelsShow() {
        QFETCH(int, pauseMs);
        MainWindow& window = *m_window;
        // As a person would: one edit at a time, with the pauses a person makes between them.
        chooseMirrored(window, 4);
        QTest::qWait(pauseMs);
        ModelPanel& model = window.setup().modelPanel();
        model.selectLayer(2);
        QTest::mouseClick(model.findChild<QPushButton*>(QStringLiteral("addLayerButton")), Qt::LeftButton);
        QCOMPARE(model.layerCount(), 4);
        QTest::qWait(pauseMs);
        QTRY_VERIFY_WITH_TIMEOUT(window.playAction()->isEnabled(), 5000);
        clickPlay(window);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 3, kLoadTimeoutMs);
        const Trained running = trained(window);
        QCOMPARE(running.replicas, 4);
        QCOMPARE(running.layers, std::size_t{4});
        QCOMPARE(window.controller().config().strategy.replicaCount(), 4);
        QCOMPARE(window.setup().strategyPanel().devicesBox().value(), 4);
        QTRY_VERIFY_WITH_TIMEOUT(window.statusText().contains(QStringLiteral("4 replicas on cpu:0–3")), 5000);
        QVERIFY(m_recorder->questions.isEmpty());  // nothing had trained: nothing to ask
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void editUndoneBeforeItLoadsLeavesTheRunAsShown() {
        MainWindow& window = *m_window;
        chooseMirrored(window, 4);
        window.applySetupNow();  // the mirrored run starts loading beside the current one
        // Back to one device at once, before the mirrored run has replaced the current one.
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findData(static_cast<int>(StrategyKind::OneDevice)));
        window.applySetupNow();
        QTest::qWait(1000);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        QCOMPARE(strategy.typeBox().currentData().toInt(), static_cast<int>(StrategyKind::OneDevice));
        QCOMPARE(window.controller().config().strategy.type, StrategyKind::OneDevice);
        QCOMPARE(trained(window).replicas, 1);
    }

    void openedConfigTrainsWhatThePanelShows() {
        RunConfig config = MainWindow::defaultConfig();
        config.strategy.type = StrategyKind::Mirrored;
        for (int r = 0; r < 4; ++r) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, r});
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("mirrored-4.json"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromStdString(runConfigToJson(config)));
        }
        // A fresh window, as `distlab mirrored-4.json --autostart` opens it.
        MainWindow fresh;
        Recorder recorder;
        fresh.setPrompts(recorder.prompts());
        QVERIFY(fresh.openConfig(path, true));
        fresh.show();
        QCOMPARE(fresh.setup().strategyPanel().devicesBox().value(), 4);
        QTRY_VERIFY_WITH_TIMEOUT(fresh.controller().stepsDone() >= 3, kLoadTimeoutMs);
        QTest::qWait(800);  // any edit the panel reported by itself has applied by now
        QCOMPARE(fresh.setup().strategyPanel().devicesBox().value(), 4);
        QCOMPARE(trained(fresh).replicas, 4);
        QCOMPARE(fresh.controller().state(), SessionState::Running);
        QVERIFY(recorder.questions.isEmpty());
        QVERIFY(recorder.errors.isEmpty());
    }

    // A config the engine accepts shows as it is and stays so: the set-up's boxes offer what the
    // engine accepts (run_limits.hpp). Once the Replicas box stopped at 8, so a 16-replica config
    // showed 8 and the next edit anywhere in the strategy rewrote its devices to cpu:0–7; the
    // Workers box did the same to 16 parameter-server workers.
    void anEditKeepsWhatABigConfigAsks() {
        MainWindow& window = *m_window;
        QTemporaryDir folder;
        auto open = [&](const RunConfig& config, const QString& name) {
            const QString path = folder.filePath(name);
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly)) return false;
            file.write(QByteArray::fromStdString(runConfigToJson(config)));
            file.close();
            return window.openConfig(path, false);
        };
        RunConfig mirrored = MainWindow::defaultConfig();
        mirrored.strategy.type = StrategyKind::Mirrored;
        mirrored.data.globalBatchSize = 64;  // divides among 16 replicas × 2 accumulation steps
        for (int r = 0; r < 16; ++r) mirrored.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, r});
        QVERIFY(open(mirrored, QStringLiteral("mirrored-16.json")));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window) && window.controller().config().strategy.replicaCount() == 16, kLoadTimeoutMs);
        StrategyPanel& strategy = window.setup().strategyPanel();
        QCOMPARE(strategy.devicesBox().value(), 16);
        strategy.accumulationBox().setValue(2);  // an edit beside the replicas
        const RunConfig draft = window.setup().draft(window.controller().config());
        QCOMPARE(draft.strategy.devices, mirrored.strategy.devices);
        QCOMPARE(draft.strategy.gradientAccumulationSteps, std::int64_t{2});
        window.applySetupNow();
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window) && window.controller().config().strategy.gradientAccumulationSteps == 2, kLoadTimeoutMs);
        QCOMPARE(window.controller().config().strategy.devices, mirrored.strategy.devices);
        QCOMPARE(trained(window).replicas, 16);

        RunConfig servers = MainWindow::defaultConfig();
        servers.strategy.type = StrategyKind::ParameterServer;
        servers.strategy.workers = 16;
        servers.strategy.parameterServers = 6;
        QVERIFY(open(servers, QStringLiteral("servers-16.json")));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window) && window.controller().config().strategy.workers == 16, kLoadTimeoutMs);
        ParameterServerOptions& options = strategy.parameterServerOptions();
        QCOMPARE(options.findChild<QSpinBox*>(QStringLiteral("workersBox"))->value(), 16);
        QCOMPARE(options.findChild<QSpinBox*>(QStringLiteral("parameterServersBox"))->value(), 6);
        options.speedBox(15).setValue(0.5);  // an edit beside the workers, on the last of them
        const RunConfig edited = window.setup().draft(window.controller().config());
        QCOMPARE(edited.strategy.workers, std::int64_t{16});
        QCOMPARE(edited.strategy.parameterServers, std::int64_t{6});
        QCOMPARE(edited.strategy.workerSpeed.size(), std::size_t{16});
        QCOMPARE(edited.strategy.workerSpeed.back(), 0.5);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void aTrainedRunWaitsForTheQuestionAndSaysWhatAppliesNow() {
        MainWindow& window = *m_window;
        clickPlay(window);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 5, kLoadTimeoutMs);
        // Running: a structural edit is not applied behind the person's back; the set-up says
        // plainly that it needs a new run, that the learning rate and the speed apply now, and
        // offers the new run in one click (which asks before the trained steps go).
        chooseMirrored(window, 2);
        QTest::qWait(700);
        QCOMPARE(trained(window).replicas, 1);
        auto* note = window.setup().findChild<QLabel*>(QStringLiteral("setupPendingNote"));
        QVERIFY(note != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(note->isVisible(), 2000);
        QVERIFY2(note->text().contains(QStringLiteral("new run")), qPrintable(note->text()));
        QVERIFY2(note->text().contains(QStringLiteral("learning rate")), qPrintable(note->text()));
        QVERIFY2(note->text().contains(QStringLiteral("strategy")), qPrintable(note->text()));
        auto* startNew = window.setup().findChild<QPushButton*>(QStringLiteral("startNewRunButton"));
        QVERIFY(startNew != nullptr && startNew->isVisible());
        QTest::mouseClick(startNew, Qt::LeftButton);
        QCOMPARE(m_recorder->questions.size(), 1);  // answered Discard
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.replicaCount(), 2, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 3, kLoadTimeoutMs);
        QCOMPARE(trained(window).replicas, 2);
        QCOMPARE(window.controller().state(), SessionState::Running);  // it went on training
        QTRY_VERIFY_WITH_TIMEOUT(!note->isVisible(), 2000);

        // Paused after training: the edit waits too (a paused run's steps are as much work), and
        // the note says so; a deliberate apply asks, and then rebuilds.
        QTRY_VERIFY_WITH_TIMEOUT(window.pauseAction()->isEnabled(), 5000);
        window.pauseAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
        const std::int64_t steps = window.controller().stepsDone();
        window.setup().strategyPanel().devicesBox().setValue(4);
        QTRY_VERIFY_WITH_TIMEOUT(note->isVisible(), 2000);
        QVERIFY2(note->text().contains(QStringLiteral("paused run")), qPrintable(note->text()));
        QCOMPARE(window.controller().stepsDone(), steps);
        QCOMPARE(window.controller().config().strategy.replicaCount(), 2);
        window.applySetupNow();
        QCOMPARE(m_recorder->questions.size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.replicaCount(), 4, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        QCOMPARE(trained(window).replicas, 4);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void theWindowOpensAtAPaceAndShowsTheRunsLength() {
        MainWindow& window = *m_window;
        // Not "no limit": a pace a person can follow, and the run's length beside it.
        QVERIFY2(window.controller().speedLimit() > 0.0 && window.controller().speedLimit() <= 60.0,
                 qPrintable(QString::number(window.controller().speedLimit())));
        QVERIFY(!window.noLimitAction()->isChecked());
        QVERIFY2(window.speedText().contains(QStringLiteral("steps/s")), qPrintable(window.speedText()));
        QVERIFY2(window.speedText().contains(QStringLiteral("until paused")), qPrintable(window.speedText()));
        RunConfig config = MainWindow::defaultConfig();
        config.steps = 2000;
        window.startRun(config, false);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        QTRY_VERIFY2_WITH_TIMEOUT(window.speedText().contains(QStringLiteral("2,000 steps ≈ 1 min 40 s")), qPrintable(window.speedText()),
                                  2000);
        // "No limit" is one click away, and one more click goes back to the pace.
        const double pace = window.controller().speedLimit();
        window.noLimitAction()->trigger();
        QCOMPARE(window.controller().speedLimit(), 0.0);
        QCOMPARE(window.speedSlider().value(), window.speedSlider().maximum());
        QVERIFY2(window.speedText().startsWith(QStringLiteral("no limit")), qPrintable(window.speedText()));
        window.noLimitAction()->trigger();
        QCOMPARE(window.controller().speedLimit(), pace);
        // Moving the slider to its right end is "no limit" too, and shows so.
        window.speedSlider().setValue(window.speedSlider().maximum());
        QVERIFY(window.noLimitAction()->isChecked());
    }

    void killNearTheEndTakesEffectAndAfterItIsRefused() {
        MainWindow& window = *m_window;
        RunConfig config = MainWindow::defaultConfig();
        config.strategy = StrategyConfig{};
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        config.steps = 60;  // 3 s at the window's pace
        window.startRun(config, false);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        ParameterServerView& view = window.parameterServerView();
        window.views().setCurrentWidget(&view);
        clickPlay(window);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 45, kLoadTimeoutMs);
        // Near the end: the kill acts on the run (the worker stops, the others finish it).
        QTRY_VERIFY_WITH_TIMEOUT(view.workerControls().killButton(2).isEnabled(), 2000);
        QTest::mouseClick(&view.workerControls().killButton(2), Qt::LeftButton);
        ParameterServerControls* controls = window.controller().parameterServerControls();
        QVERIFY(controls != nullptr);
        QVERIFY(!controls->workerStatus(2).alive);
        QVERIFY2(window.controller().stepsDone() < 60, "the run ended before the kill: the pace is too fast to follow");
        QTRY_VERIFY_WITH_TIMEOUT(!view.topology().worker(2).alive, 5000);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Finished, 10000);
        QCOMPARE(window.controller().stepsDone(), std::int64_t{60});
        // After the end: the controls are off and say why; a kill that still reaches the
        // controller is refused, not applied to a run that has ended.
        QTRY_VERIFY_WITH_TIMEOUT(!view.workerControls().killButton(1).isEnabled(), 2000);
        QVERIFY(!window.controller().killWorker(1));
        QVERIFY(controls->workerStatus(1).alive);
        auto* ended = view.findChild<QLabel*>(QStringLiteral("runEndedNote"));
        QVERIFY(ended != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(ended->isVisible(), 2000);
        QVERIFY2(ended->text().contains(QStringLiteral("finished")), qPrintable(ended->text()));
        QVERIFY(m_recorder->errors.isEmpty());
    }

private:
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestRunSetup)
#include "test_run_setup.moc"
