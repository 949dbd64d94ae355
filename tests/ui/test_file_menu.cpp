// The File menu as a person uses it: opening a config, an example or Reset asks before throwing a
// trained run away; a save says where it wrote; a saved config holds only what its run uses and
// opens as the same run; File ▸ Examples lists the examples of the source tree or of the package.
// A run without a step limit ("until paused") is saved and exported with the steps it trained.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QMenu>
#include <QComboBox>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>

#include <memory>

#include <distlab/config/run_config_json.hpp>

#include "bridge/cluster_run.hpp"
#include "file_dialogs.hpp"
#include "main_window.hpp"
#include "panels/cluster_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "run_files.hpp"
#include "tensorflow_code_dialog.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

QString examplesDir() { return QStringLiteral(DISTLAB_EXAMPLES_DIR); }

QString readText(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

QAction* actionNamed(MainWindow& window, const QString& text) {
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == text) return action;
    return nullptr;
}

}  // namespace

class TestFileMenu : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;

    /// One Step, as a person clicks it, and the step has trained.
    void trainOneStep() {
        MainWindow& window = *m_window;
        QTRY_VERIFY_WITH_TIMEOUT(window.stepAction()->isEnabled(), kLoadTimeoutMs);
        const std::int64_t before = window.controller().stepsDone();
        window.stepAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() > before, kLoadTimeoutMs);
    }
    QAction* exampleAction(const QString& name) {
        QMenu* menu = m_window->examplesMenu();
        if (menu == nullptr) return nullptr;
        for (QAction* action : menu->actions())
            if (action->text() == name) return action;
        return nullptr;
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-file-menu")); }

    void saveDialogsProposeTheRunsNameMadeFileSafe() {
        QCOMPARE(suggestedFileName("spiral-mirrored-4", QStringLiteral("py")), QStringLiteral("spiral-mirrored-4.py"));
        QCOMPARE(suggestedFileName("my run/2: ä", QStringLiteral("study.json")), QStringLiteral("my_run_2____.study.json"));
        QCOMPARE(suggestedFileName("", QStringLiteral("csv")), QStringLiteral("run.csv"));
    }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1200, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    // File ▸ Export as PyTorch script writes the script with its weights and data beside it; an
    // asynchronous parameter-server run cannot be exported and the item says so.
    void exportsAPyTorchScript() {
        trainOneStep();  // the window's run has no step limit: it exports what it has trained
        QTemporaryDir dir;
        const QString script = dir.filePath(QStringLiteral("circle.py"));
        QAction* action = m_window->findChild<QAction*>(QStringLiteral("exportPyTorchAction"));
        QVERIFY(action != nullptr && action->isEnabled());
        QVERIFY2(m_window->exportPyTorchScript(script, /*wait=*/true), qPrintable(m_recorder->errors.join('\n')));
        QVERIFY(QFile::exists(script));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("circle.init.safetensors"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("circle.data.safetensors"))));
        QVERIFY(readText(script).contains(QStringLiteral("import torch")));
        QVERIFY(m_window->statusBar()->currentMessage().contains(QStringLiteral("circle.py")));

        QVERIFY(m_window->openConfig(examplesDir() + QStringLiteral("/circle-parameter-server-4.json")));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->controller().config().strategy.type == StrategyKind::ParameterServer, kLoadTimeoutMs);
        QTRY_VERIFY(!action->isEnabled());
        QVERIFY2(action->statusTip().contains(QStringLiteral("asynchronous parameter-server runs cannot be exported")),
                 qPrintable(action->statusTip()));
    }

    void examplesMenuListsAndOpensTheExamples() {
        QMenu* menu = m_window->examplesMenu();
        QVERIFY(menu != nullptr);
        // It hangs under File.
        QMenu* file = m_window->menuBar()->findChild<QMenu*>();
        QVERIFY(file != nullptr);
        QVERIFY(file->actions().contains(menu->menuAction()));
        // The run configs, then (under a "Studies" section) the studies by name.
        QStringList expected;
        QStringList studies;
        for (const QFileInfo& entry : QDir(examplesDir()).entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            if (entry.fileName().endsWith(QStringLiteral(".study.json")))
                studies.append(entry.fileName().chopped(11));
            else
                expected.append(entry.completeBaseName());
        }
        QVERIFY(expected.size() >= 4);
        QVERIFY(studies.size() >= 3);
        expected.append(QStringLiteral("Studies"));
        expected += studies;
        QStringList shown;
        for (QAction* action : menu->actions()) shown.append(action->text());
        QCOMPARE(shown, expected);

        // Nothing trained yet: it opens without a question.
        QAction* example = exampleAction(QStringLiteral("spiral-mirrored-4"));
        QVERIFY(example != nullptr);
        example->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(QString::fromStdString(m_window->controller().config().name), QStringLiteral("spiral-mirrored-4"),
                                  kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
        QVERIFY(m_recorder->questions.isEmpty());
        QVERIFY(m_recorder->errors.isEmpty());
        QCOMPARE(m_window->currentFile(), QFileInfo(example->data().toString()).absoluteFilePath());
    }

    void examplesAreFoundWhereThePackageInstallsThem() {
        // cmake/DistlabPackaging.cmake installs them to <prefix>/share/distlab/examples, the app to
        // <prefix>/bin.
        QTemporaryDir prefix;
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("bin")));
        QVERIFY(QDir(prefix.path()).mkpath(QStringLiteral("share/distlab/examples")));
        const QString installed = prefix.filePath(QStringLiteral("share/distlab/examples"));
        QVERIFY(QFile::copy(examplesDir() + "/circle-one-device.json", installed + "/circle-one-device.json"));
        QVERIFY(QFile::copy(examplesDir() + "/circle-one-device.json", installed + "/only-installed.json"));
        const QString bin = prefix.filePath(QStringLiteral("bin"));
        QCOMPARE(exampleFolders(bin).value(0), QDir::cleanPath(installed));
        const QStringList files = exampleFiles(bin);
        QVERIFY2(files.contains(installed + "/only-installed.json"), qPrintable(files.join(", ")));
        QVERIFY(files.contains(installed + "/circle-one-device.json"));  // the installed copy comes first
        QVERIFY(!files.contains(QDir(examplesDir()).absoluteFilePath("circle-one-device.json")));
        QVERIFY(files.contains(QDir(examplesDir()).absoluteFilePath("spiral-mirrored-4.json")));
    }

    void openingAsksBeforeDiscardingATrainedRun() {
        MainWindow& window = *m_window;
        trainOneStep();
        const std::int64_t trained = window.controller().stepsDone();
        const std::string name = window.controller().config().name;

        // File ▸ Examples: "no" keeps the run as it is.
        m_recorder->answer = false;
        QAction* example = exampleAction(QStringLiteral("circle-parameter-server-4"));
        QVERIFY(example != nullptr);
        example->trigger();
        QCOMPARE(m_recorder->questions.size(), 1);
        QVERIFY2(m_recorder->questions.front().contains(QLocale().toString(trained)), qPrintable(m_recorder->questions.front()));
        QTest::qWait(300);
        QCOMPARE(window.controller().config().name, name);
        QCOMPARE(window.controller().stepsDone(), trained);

        // File ▸ Open (and Open recent): the same question, the same answer.
        QVERIFY(!window.openConfig(examplesDir() + "/spiral-mirrored-4.json"));
        QCOMPARE(m_recorder->questions.size(), 2);
        QVERIFY(m_recorder->errors.isEmpty());
        QTest::qWait(300);
        QCOMPARE(window.controller().config().name, name);
        QCOMPARE(window.controller().stepsDone(), trained);

        // "Yes" opens it.
        m_recorder->answer = true;
        example->trigger();
        QCOMPARE(m_recorder->questions.size(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().name, std::string("circle-parameter-server-4"), kLoadTimeoutMs);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void resetAsksBeforeDiscardingATrainedRun() {
        MainWindow& window = *m_window;
        // Untrained: Reset needs no question.
        window.resetAction()->trigger();
        QVERIFY(m_recorder->questions.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        trainOneStep();
        trainOneStep();
        const std::int64_t trained = window.controller().stepsDone();
        m_recorder->answer = false;
        window.resetAction()->trigger();
        QCOMPARE(m_recorder->questions.size(), 1);
        QTest::qWait(300);
        QCOMPARE(window.controller().stepsDone(), trained);
        m_recorder->answer = true;
        window.resetAction()->trigger();
        QCOMPARE(m_recorder->questions.size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().stepsDone(), std::int64_t{0}, kLoadTimeoutMs);
    }

    void untilPausedRunsAreSavedAndExportedWithTheStepsTheyTrained() {
        MainWindow& window = *m_window;
        QCOMPARE(window.controller().config().steps, std::int64_t{0});  // until paused
        QTemporaryDir dir;
        // Not trained yet: there is nothing to export, and the window says why.
        QVERIFY(!window.exportPyTorchScript(dir.filePath(QStringLiteral("none.py")), /*wait=*/true));
        QVERIFY2(!m_recorder->errors.isEmpty() && m_recorder->errors.back().contains(QStringLiteral("has not trained yet")),
                 qPrintable(m_recorder->errors.join('\n')));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.py"))));
        m_recorder->errors.clear();
        for (int i = 0; i < 3; ++i) trainOneStep();
        QCOMPARE(window.controller().stepsDone(), std::int64_t{3});
        const QString note = QStringLiteral("steps 3: the 3 updates this run trained until paused");

        // File ▸ Save run config writes steps 3, and opens as a run that trains those 3.
        const QString config = dir.filePath(QStringLiteral("trained.json"));
        QVERIFY(window.saveConfig(config));
        QVERIFY2(window.statusBar()->currentMessage().contains(note), qPrintable(window.statusBar()->currentMessage()));
        auto reopened = openRunConfigFile(config);
        QVERIFY(reopened);
        QCOMPARE(reopened->steps, std::int64_t{3});

        // The PyTorch script runs the 3 updates, its data file holds their batches.
        const QString script = dir.filePath(QStringLiteral("trained.py"));
        QVERIFY2(window.exportPyTorchScript(script, /*wait=*/true), qPrintable(m_recorder->errors.join('\n')));
        QVERIFY2(readText(script).contains(QRegularExpression(QStringLiteral("[\"']steps[\"']: 3[,}]"))),
                 qPrintable(readText(script).left(2000)));
        QVERIFY2(window.statusBar()->currentMessage().contains(note), qPrintable(window.statusBar()->currentMessage()));

        // The TensorFlow code trains them too.
        window.showTensorFlowCode();
        auto* code = window.findChild<TensorFlowCodeDialog*>();
        QVERIFY(code != nullptr);
        QVERIFY2(code->code().contains(QStringLiteral("STEPS = 3 ")), qPrintable(code->code().left(3000)));
        code->close();
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void saveSaysWhereItWrote() {
        MainWindow& window = *m_window;
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("mine.json"));
        QVERIFY(window.saveConfig(path));
        QVERIFY2(window.statusBar()->currentMessage().contains(QDir::toNativeSeparators(path)),
                 qPrintable(window.statusBar()->currentMessage()));
        // Save again with File ▸ Save (the current file now): the same confirmation.
        window.statusBar()->clearMessage();
        QAction* save = actionNamed(window, MainWindow::tr("&Save run config"));
        QVERIFY(save != nullptr);
        save->trigger();
        QVERIFY2(window.statusBar()->currentMessage().contains(QDir::toNativeSeparators(path)),
                 qPrintable(window.statusBar()->currentMessage()));
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void aMultiWorkerConfigOpensAsAClusterNotYetStarted() {
        MainWindow& window = *m_window;
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("cluster.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"model": {"layers": [{"units": 2}]}, "strategy": {"type": "multi_worker_mirrored", "local_replicas": 2},
                       "cluster": {"worker": ["localhost:23901", "localhost:23902"]}})");
        file.close();
        QVERIFY(window.openConfig(path));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window) && window.controller().cluster() != nullptr, kLoadTimeoutMs);
        QVERIFY2(m_recorder->errors.isEmpty(), qPrintable(m_recorder->errors.join('\n')));
        // Loaded as the cluster it names, its tasks not started until Play.
        const ClusterRun& cluster = *window.controller().cluster();
        QCOMPARE(window.controller().state(), SessionState::Paused);
        QCOMPARE(cluster.tasks().size(), std::size_t{2});
        QCOMPARE(cluster.tasks()[1].address, QStringLiteral("localhost:23902"));
        for (const ClusterRun::Task& task : cluster.tasks()) QCOMPARE(task.pid, qint64{0});
        QCOMPARE(window.setup().strategyPanel().clusterOptions().workersBox().value(), 2);
        QCOMPARE(window.setup().strategyPanel().devicesBox().value(), 2);
    }

    void savedParameterServerConfigHoldsOnlyWhatTheRunUses() {
        MainWindow& window = *m_window;
        // As a person would: the built-in example (synthetic circle, one device) switched to
        // parameter servers in the set-up.
        window.setup().strategyPanel().typeBox().setCurrentIndex(3);
        window.applySetupNow();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("ps.json"));
        QVERIFY(window.saveConfig(path));
        const QString text = readText(path);
        for (const char* unused : {"\"path\"", "\"test_path\"", "\"label_column\"", "\"images\"", "\"labels\"", "\"features\"",
                                   "\"devices\"", "\"num_packs\"", "\"gradient_accumulation_steps\""}) {
            QVERIFY2(!text.contains(QLatin1String(unused)), qPrintable(QLatin1String(unused) + " in\n" + text));
        }
        QVERIFY(text.contains(QLatin1String("\"workers\"")));
        QVERIFY(text.contains(QLatin1String("\"kind\": \"circle\"")));

        // It reads back to the same run, and opens as it.
        auto reloaded = loadRunConfig(path.toStdString());
        QVERIFY2(reloaded.ok(), reloaded.ok() ? "" : reloaded.error().message.c_str());
        RunConfig expected = withUnusedKeysReset(window.controller().config());
        expected.baseDirectory = reloaded->baseDirectory;
        QVERIFY(*reloaded == expected);
        QCOMPARE(reloaded->strategy.workers, window.controller().config().strategy.workers);
        QVERIFY(window.openConfig(path));
        QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        QVERIFY(m_recorder->errors.isEmpty());
    }
};

QTEST_MAIN(TestFileMenu)
#include "test_file_menu.moc"
