// The desktop app driven as a user would, offscreen: build a model in the builder, choose mirrored
// on 4 devices, run 100 steps, check every live view received data, save and reload the config,
// open bad files (an error names the problem, the run is untouched), close mid-run within a second.
#include <QtTest>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QToolBox>

#include <memory>

#include <distlab/device/device_info.hpp>
#include <distlab/config/run_config_json.hpp>

#include "app_launcher.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "charts/stacked_bar_chart.hpp"
#include "main_window.hpp"
#include "panels/explain_panel.hpp"
#include "panels/gpu_note.hpp"
#include "panels/model_panel.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "views/boundary_view.hpp"
#include "views/learning_view.hpp"
#include "views/network_view.hpp"
#include "views/replica_view.hpp"
#include "views/throughput_view.hpp"
#include "views/timeline_canvas.hpp"
#include "views/timeline_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(bytes);
}
}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1400, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void buildMirroredModelAndWatchEveryView() {
        MainWindow& window = *m_window;
        ModelPanel& model = window.setup().modelPanel();
        QCOMPARE(model.layerCount(), 3);
        // Add a hidden layer above the output and give the first layer 12 units, as a user would.
        model.selectLayer(2);
        QTest::mouseClick(model.findChild<QPushButton*>(QStringLiteral("addLayerButton")), Qt::LeftButton);
        QCOMPARE(model.layerCount(), 4);
        model.unitsBox(0)->setValue(12);
        StrategyPanel& strategy = window.setup().strategyPanel();
        strategy.typeBox().setCurrentIndex(strategy.typeBox().findData(static_cast<int>(StrategyKind::Mirrored)));
        strategy.devicesBox().setValue(4);
        QVERIFY(m_recorder->questions.isEmpty());  // nothing trained yet: no reset question

        QTest::mouseClick(window.findChild<QToolBar*>()->widgetForAction(window.playAction()), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.replicaCount(), 4, kLoadTimeoutMs);
        const RunConfig& config = window.controller().config();
        QCOMPARE(config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(config.model.layers.size(), std::size_t{4});
        QCOMPARE(config.model.layers[0].units, 12);
        QCOMPARE(config.model.layers[2].units, 8);
        QCOMPARE(config.model.layers[2].activation, Activation::Relu);
        QCOMPARE(config.model.layers[3].units, 2);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 100, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 100, 5000);
        QCOMPARE(window.controller().history().replicaCount(), 4);

        // Every live view receives data once shown.
        for (int tab = 0; tab < window.views().count(); ++tab) {
            if (!window.views().isTabVisible(tab)) continue;  // Tasks: a cluster's only
            window.views().setCurrentIndex(tab);
            auto* view = qobject_cast<LiveView*>(window.views().currentWidget());
            if (view == nullptr) continue;  // e.g. the variable lab
            QTRY_VERIFY2_WITH_TIMEOUT(view->dataUpdates() > 0, qPrintable(window.views().tabText(tab)), 5000);
        }
        // Views draw only while shown, and charts of one view take turns per frame: check each
        // chart with its tab in front.
        window.views().setCurrentWidget(&window.learningView());
        QTRY_VERIFY_WITH_TIMEOUT(window.learningView().lossChart().pointsReceived() > 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.learningView().accuracyChart().pointsReceived() > 0, 5000);
        window.views().setCurrentWidget(&window.replicaView());
        QTRY_COMPARE_WITH_TIMEOUT(window.replicaView().valueChart().seriesCount(), 4, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.replicaView().gradientChart().pointsReceived() > 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.replicaView().spreadChart().pointsReceived() > 0, 5000);
        window.views().setCurrentWidget(&window.throughputView());
        QTRY_VERIFY_WITH_TIMEOUT(window.throughputView().timeChart().pointsReceived() > 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(window.throughputView().splitChart().valuesReceived() >= 4, 5000);
        QVERIFY(window.boundaryView().hasHeatMap());
        QVERIFY(window.boundaryView().drawnStep() >= 0);
        QVERIFY(window.networkView().drawnStep() >= 0);
        window.views().setCurrentWidget(&window.timelineView());
        QTRY_VERIFY_WITH_TIMEOUT(window.timelineView().canvas().spansPainted() > 0, 5000);
        // Mirrored keeps the copies equal: the spread of the watched value is exactly 0.
        const DecimatedSeries& spread = window.controller().history().series(GlobalSeries::Divergence);
        QVERIFY(!spread.empty());
        QCOMPARE(spread.last().high, 0.0f);
        QVERIFY(window.statusText().contains(QStringLiteral("4 replicas on cpu:0–3")));

        // The learning rate applies live, without a reset question.
        auto* rateBox = window.findChild<QDoubleSpinBox*>(QStringLiteral("toolbarLearningRate"));
        QVERIFY(rateBox != nullptr);
        rateBox->setValue(0.05);
        QCOMPARE(window.controller().config().optimizer.learningRate, 0.05);
        // Steps trained before the change may still be on their way through the rings: wait for
        // the first one trained after it.
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().history().lastStep().learningRate, 0.05f, 10000);
        QVERIFY(m_recorder->questions.isEmpty());
        // The speed slider: the left end is 0.5 steps/s, the right end no limit.
        window.speedSlider().setValue(0);
        QVERIFY(std::abs(window.controller().speedLimit() - 0.5) < 1e-9);
        window.speedSlider().setValue(100);
        QCOMPARE(window.controller().speedLimit(), 0.0);

        // Changing the strategy mid-run asks to reset; saying no keeps the run and the panel as they were.
        m_recorder->answer = false;
        strategy.devicesBox().setValue(2);
        window.applySetupNow();
        QCOMPARE(m_recorder->questions.size(), 1);
        QCOMPARE(window.controller().config().strategy.replicaCount(), 4);
        QCOMPARE(strategy.devicesBox().value(), 4);
        // Saying yes resets into the new strategy and keeps training.
        m_recorder->answer = true;
        strategy.devicesBox().setValue(2);
        window.applySetupNow();
        QCOMPARE(m_recorder->questions.size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.replicaCount(), 2, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 10, 20000);
        QCOMPARE(window.controller().history().replicaCount(), 2);
        // As a person would: only once the button is enabled (the GUI has seen the run's state).
        QTRY_VERIFY_WITH_TIMEOUT(window.pauseAction()->isEnabled(), 5000);
        window.pauseAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void savedConfigReloadsIdentically() {
        MainWindow& window = *m_window;
        window.setup().strategyPanel().typeBox().setCurrentIndex(1);  // mirrored
        window.setup().strategyPanel().devicesBox().setValue(4);
        window.setup().strategyPanel().reductionBox().setCurrentIndex(1);  // reduction to one device
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.replicaCount(), 4, kLoadTimeoutMs);
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("run.json"));
        QVERIFY(window.saveConfig(path));
        auto reloaded = loadRunConfig(path.toStdString());
        QVERIFY2(reloaded.ok(), reloaded.ok() ? "" : reloaded.error().message.c_str());
        RunConfig expected = window.controller().config();
        expected.baseDirectory = reloaded->baseDirectory;
        QCOMPARE(runConfigToJson(*reloaded), runConfigToJson(expected));
        QVERIFY(*reloaded == expected);
        QCOMPARE(reloaded->strategy.crossDeviceOps, CrossDeviceOps::ReductionToOneDevice);

        // Opening it in a fresh window shows the same set-up and runs the same config.
        MainWindow other;
        Recorder recorder;
        other.setPrompts(recorder.prompts());
        QVERIFY(other.openConfig(path));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(other), kLoadTimeoutMs);
        QVERIFY(other.controller().config() == *reloaded);
        QVERIFY(other.setup().draft(other.controller().config()) == *reloaded);
        QCOMPARE(other.currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(recorder.errors.isEmpty());
    }

    void badFilesShowAnErrorAndLeaveTheRunUntouched() {
        MainWindow& window = *m_window;
        const RunConfig before = window.controller().config();
        QTemporaryDir folder;
        // Malformed JSON.
        const QString broken = folder.filePath(QStringLiteral("broken.json"));
        writeFile(broken, "{\"model\": {\"layers\": [");
        QVERIFY(!window.openConfig(broken));
        QCOMPARE(m_recorder->errors.size(), 1);
        QVERIFY2(m_recorder->errors[0].contains(QStringLiteral("broken.json")), qPrintable(m_recorder->errors[0]));
        // A field out of range.
        const QString badField = folder.filePath(QStringLiteral("bad_units.json"));
        writeFile(badField, R"({"model": {"layers": [{"type": "dense", "units": 0}]}})");
        QVERIFY(!window.openConfig(badField));
        QCOMPARE(m_recorder->errors.size(), 2);
        QVERIFY2(m_recorder->errors[1].contains(QStringLiteral("model.layers[0].units")), qPrintable(m_recorder->errors[1]));
        // A config whose data file is bad: reported once the loading fails.
        writeFile(folder.filePath(QStringLiteral("bad.csv")), "1,2,0\n3,abc,1\n");
        const QString badData = folder.filePath(QStringLiteral("bad_data.json"));
        writeFile(badData, R"({"model": {"layers": [{"type": "dense", "units": 2}]},
                              "data": {"source": "csv", "path": "bad.csv", "global_batch_size": 1}})");
        QVERIFY(window.openConfig(badData));
        QTRY_COMPARE_WITH_TIMEOUT(m_recorder->errors.size(), 3, kLoadTimeoutMs);
        QVERIFY2(m_recorder->errors[2].contains(QStringLiteral("bad.csv")), qPrintable(m_recorder->errors[2]));
        for (const QString& error : m_recorder->errors) qInfo("shown: %s", qPrintable(error));
        QVERIFY(window.controller().config() == before);
        QVERIFY(window.setup().draft(window.controller().config()) == before);
        // A bad weights file.
        const QString weights = folder.filePath(QStringLiteral("bad.safetensors"));
        writeFile(weights, "not a safetensors file");
        QVERIFY(!fileTaskSucceeds(window, [&] { window.loadWeights(weights); }));
        QCOMPARE(m_recorder->errors.size(), 4);
        QVERIFY2(m_recorder->errors[3].contains(QStringLiteral("bad.safetensors")), qPrintable(m_recorder->errors[3]));
        // The app is still usable: the same run trains.
        // As a person would: only once the button is enabled (the GUI has seen the run's state).
        QTRY_VERIFY_WITH_TIMEOUT(window.playAction()->isEnabled(), 5000);
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 20, 20000);
        QVERIFY(window.controller().config() == before);
    }

    void filesExportAfterARun() {
        MainWindow& window = *m_window;
        // As a person would: only once the button is enabled (the GUI has seen the run's state).
        QTRY_VERIFY_WITH_TIMEOUT(window.playAction()->isEnabled(), 5000);
        window.playAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 50, 20000);
        // As a person would: only once the button is enabled (the GUI has seen the run's state).
        QTRY_VERIFY_WITH_TIMEOUT(window.pauseAction()->isEnabled(), 5000);
        window.pauseAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
        window.controller().tick();
        QTemporaryDir folder;
        const QString weights = folder.filePath(QStringLiteral("w.safetensors"));
        QVERIFY(fileTaskSucceeds(window, [&] { window.saveWeights(weights); }));
        QVERIFY(fileTaskSucceeds(window, [&] { window.loadWeights(weights); }));
        const QString csv = folder.filePath(QStringLiteral("metrics.csv"));
        QVERIFY(window.exportMetrics(csv));
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csvFile.readAll().trimmed().split('\n');
        QCOMPARE(lines.front(), QByteArray("step,epoch,wall_seconds,loss,accuracy,learning_rate,step_ms,compute_ms,"
                                           "optimizer_ms,communication_ms,waiting_ms,samples_per_second,test_loss,test_accuracy"));
        QCOMPARE(lines.size() - 1, static_cast<qsizetype>(window.controller().history().stepsSeen()));
        QVERIFY(lines[1].startsWith("1,0,"));
        const QString trace = folder.filePath(QStringLiteral("trace.json"));
        QVERIFY(window.exportTrace(trace));
        QFile traceFile(trace);
        QVERIFY(traceFile.open(QIODevice::ReadOnly));
        const QByteArray traceText = traceFile.readAll();
        QVERIFY(traceText.contains("\"traceEvents\""));
        QVERIFY(traceText.contains("\"compute\""));
        const QString png = folder.filePath(QStringLiteral("view.png"));
        QVERIFY(window.saveViewPng(png));
        QVERIFY(!QImage(png).isNull());
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void explainFollowsTheFocusedControl() {
        MainWindow& window = *m_window;
        window.setup().strategyPanel().typeBox().setCurrentIndex(1);
        window.activateWindow();
        window.setup().pages().setCurrentIndex(2);
        QSpinBox& devices = window.setup().strategyPanel().devicesBox();
        QTRY_VERIFY(devices.isVisible());
        QEvent enter(QEvent::Enter);
        QCoreApplication::sendEvent(&devices, &enter);
        QCOMPARE(window.explainPanel().currentTopic(), QStringLiteral("strategy.devices"));
        QCoreApplication::sendEvent(&window.setup().strategyPanel().reductionBox(), &enter);
        QCOMPARE(window.explainPanel().currentTopic(), QStringLiteral("strategy.cross_device_ops.ring"));
    }

    void strategyPanelSaysWhatTheGpusCanDo() {
        MainWindow& window = *m_window;
        auto* note = window.setup().strategyPanel().findChild<GpuNote*>(QStringLiteral("gpuNote"));
        QVERIFY(note != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(note->probed(), 10000);
        // Here (CI, this machine) no GPU is usable: the reason the device probe gave is shown.
        const DeviceReport report = queryDevices();
        QCOMPARE(note->text(), GpuNote::describe(report));
        if (report.gpus.empty()) {
            QVERIFY(note->text().contains(QString::fromStdString(report.gpuUnavailableReason)));
            QVERIFY(!report.gpuUnavailableReason.empty());
        }
        DeviceReport withGpu;
        withGpu.gpus.push_back(GpuInfo{0, "NVIDIA H100 80GB HBM3", 85'520'809'984ull, 9, 0, 132});
        const QString found = GpuNote::describe(withGpu);
        QVERIFY2(found.contains(QStringLiteral("NVIDIA H100 80GB HBM3")) && found.contains(QStringLiteral("compute 9.0")),
                 qPrintable(found));
        QVERIFY(found.contains(QStringLiteral("logical CPU devices only")));
    }

    void tickStaysCheapAtEightReplicas() {
        MainWindow& window = *m_window;
        RunConfig config = MainWindow::defaultConfig();
        config.strategy.type = StrategyKind::Mirrored;
        for (int i = 0; i < 8; ++i) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, i});
        window.startRun(config, true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 200, 30000);
        // Each tab in turn, as a person clicking through them while training runs.
        double worstAverage = 0.0;
        for (int tab = 0; tab < window.views().count(); ++tab) {
            window.views().setCurrentIndex(tab);
            QTest::qWait(300);  // the first frame of a tab builds its series
            window.controller().resetTickStats();
            double total = 0.0;
            double totalCpu = 0.0;
            int ticks = 0;
            for (int i = 0; i < 30; ++i) {
                window.controller().tick();
                total += window.controller().lastTickMs();
                totalCpu += window.controller().lastTickCpuMs();
                ++ticks;
                QTest::qWait(33);
            }
            const double average = totalCpu / ticks;
            worstAverage = std::max(worstAverage, average);
            qInfo("tab %-18s drain+redraw tick: wall mean %.3f ms max %.3f ms; GUI-thread CPU mean %.3f ms max %.3f ms",
                  qPrintable(window.views().tabText(tab)), total / ticks, window.controller().maxTickMs(), average,
                  window.controller().maxTickCpuMs());
        }
        QVERIFY2(worstAverage <= 5.0, qPrintable(QStringLiteral("mean tick %1 ms").arg(worstAverage)));
    }

    void closingMidRunReturnsWithinASecond() {
        MainWindow& window = *m_window;
        RunConfig config = MainWindow::defaultConfig();
        config.strategy.type = StrategyKind::Mirrored;
        for (int i = 0; i < 8; ++i) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, i});
        window.startRun(config, true);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 50, 30000);
        QCOMPARE(window.controller().state(), SessionState::Running);
        // Reset during training stops the old session and starts the new one within a second.
        QElapsedTimer resetTimer;
        resetTimer.start();
        window.resetAction()->trigger();
        QVERIFY2(resetTimer.elapsed() < 1000, qPrintable(QStringLiteral("reset took %1 ms").arg(resetTimer.elapsed())));
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= 20, 30000);
        QCOMPARE(window.controller().state(), SessionState::Running);
        QElapsedTimer timer;
        timer.start();
        window.close();
        m_window.reset();
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QStringLiteral("%1 ms").arg(timer.elapsed())));
    }

    void commandLineFlags() {
        auto options =
            parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("run.json"), QStringLiteral("--autostart"),
                                QStringLiteral("--screenshot"), QStringLiteral("shot.png"), QStringLiteral("--screenshot-after-ms"),
                                QStringLiteral("1500"), QStringLiteral("--quit-after-ms"), QStringLiteral("2000")});
        QVERIFY(options.ok());
        QCOMPARE(options->config, QStringLiteral("run.json"));
        QVERIFY(options->autostart);
        QCOMPARE(options->screenshot, QStringLiteral("shot.png"));
        QCOMPARE(options->screenshotAfterMs, 1500);
        QCOMPARE(options->quitAfterMs, 2000);
        QVERIFY(options->compare.isEmpty());
        auto compare = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("run.distlab-run"), QStringLiteral("--compare"),
                                           QStringLiteral("before.distlab-run")});
        QVERIFY(compare.ok());
        QCOMPARE(compare->config, QStringLiteral("run.distlab-run"));
        QCOMPARE(compare->compare, QStringLiteral("before.distlab-run"));
        auto lesson = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--lesson"), QStringLiteral("a.lesson.json")});
        QVERIFY(lesson.ok());
        QCOMPARE(lesson->lesson, QStringLiteral("a.lesson.json"));
        auto bad = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--quit-after-ms"), QStringLiteral("soon")});
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().message, std::string("--quit-after-ms: \"soon\" is not a number of milliseconds >= 0"));
        auto unknown = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--fast")});
        QVERIFY(!unknown.ok());
        QCOMPARE(unknown.error().message, std::string("Unknown option 'fast'."));
        QVERIFY(!parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--screenshot")}).ok());
        QVERIFY(!parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("a.json"), QStringLiteral("b.json")}).ok());
        auto help = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--help")});
        QVERIFY(help.ok() && help->help && !help->version);
        QVERIFY(parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--help-all")})->help);
        auto version = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("--version")});
        QVERIFY(version.ok() && version->version);
        // Qt's own options are left to the QApplication, not refused.
        auto qt = parseLaunchOptions({QStringLiteral("distlab"), QStringLiteral("-platform"), QStringLiteral("offscreen"),
                                      QStringLiteral("-style"), QStringLiteral("fusion"), QStringLiteral("run.json")});
        QVERIFY2(qt.ok(), qt.ok() ? "" : qt.error().message.c_str());
        QCOMPARE(qt->config, QStringLiteral("run.json"));
    }

private:
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
