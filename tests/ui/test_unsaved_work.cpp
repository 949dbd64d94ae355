// Work is never lost without a question, driven as a person would: a wheel turned over the Run
// set-up to scroll it edits nothing (and so discards no run); an edit to a paused run that trained
// waits for a new run and Play asks first; File ▸ Quit (closing the window) asks Save / Discard /
// Cancel naming the run and the study that would be lost, and Save saves them; a study with
// results is not replaced by another without the same question.
#include <QtTest>

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolBox>
#include <QWheelEvent>
#include <QtTest/qtestspontaneevent.h>

#include <memory>

#include <distlab/config/run_config_json.hpp>

#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "panels/parameter_server_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

/// A parameter-server run (4 workers, 2 servers), as the Servers example has it.
RunConfig parameterServerConfig() {
    RunConfig config = MainWindow::defaultConfig();
    config.name = "wheel-test";
    config.strategy = StrategyConfig{};
    config.strategy.type = StrategyKind::ParameterServer;
    config.strategy.workers = 4;
    config.strategy.parameterServers = 2;
    return config;
}

/// One notch of the wheel (down) over the middle of `widget`, as the window system delivers it:
/// spontaneous, through QApplication, so focus-on-wheel and the passing up to the parents (which
/// Qt does only for spontaneous wheel events) happen as for a person.
void turnWheelOver(QWidget* widget) {
    const QPointF local(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent wheel(local, widget->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QSpontaneKeyEvent::setSpontaneous(&wheel);
    qApp->notify(widget, &wheel);  // as QTest delivers its key events: sendEvent would unmark it spontaneous
}

/// The scroll area that holds `widget` in the set-up dock.
QAbstractScrollArea* scrollAreaOf(QWidget* widget) {
    for (QWidget* parent = widget->parentWidget(); parent != nullptr; parent = parent->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(parent)) return area;
    return nullptr;
}

/// Trains `steps` steps (at least), then pauses and waits until the run is paused.
void trainAndPause(MainWindow& window, std::int64_t steps) {
    window.controller().play();
    QTRY_VERIFY_WITH_TIMEOUT(window.controller().stepsDone() >= steps, kLoadTimeoutMs);
    window.controller().pause();
    QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
}

/// A study of two short variants of the default run (two learning rates), built as the app's
/// "New study from this run" builds one.
Study twoVariantStudy(const std::string& name) {
    StudySpec spec;
    spec.name = name;
    spec.baseConfigJson = runConfigToJson(MainWindow::defaultConfig());
    spec.steps = 30;
    for (const char* rate : {"0.1", "0.2"})
        spec.variants.push_back(StudyVariantSpec{std::string("lr ") + rate, {}, {{"optimizer.learning_rate", rate}}});
    auto study = buildStudy(spec, "test", ".");
    if (!study) qFatal("%s", study.error().message.c_str());
    return std::move(*study);
}

}  // namespace

class TestUnsavedWork : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-unsaved-work-test")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1280, 800), parameterServerConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
        // The parameter-server options are on the set-up's Strategy page, as a person finds them.
        RunSetupPanel& setup = m_window->setup();
        QWidget* servers = &setup.strategyPanel().parameterServerOptions().serversBox();
        for (int page = 0; page < setup.pages().count(); ++page)
            if (setup.pages().widget(page)->isAncestorOf(servers)) setup.pages().setCurrentIndex(page);
        QTRY_VERIFY(servers->isVisible());
    }

    void cleanup() {
        m_window->closeWithoutAsking();
        m_window.reset();
        m_recorder.reset();
    }

    void wheelOverTheSetUpScrollsItAndEditsNothing() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        const std::int64_t trained = window.controller().stepsDone();
        QSpinBox& servers = window.setup().strategyPanel().parameterServerOptions().serversBox();
        QComboBox& mode = window.setup().strategyPanel().parameterServerOptions().modeBox();
        QAbstractScrollArea* area = scrollAreaOf(&servers);
        QVERIFY(area != nullptr);
        window.setFocus();
        QVERIFY(!servers.hasFocus());
        const int scrolled = area->verticalScrollBar()->value();
        const int serverCount = servers.value();
        const int modeIndex = mode.currentIndex();
        turnWheelOver(&servers);
        turnWheelOver(servers.findChild<QLineEdit*>());  // the spin box's text: the same spin box
        turnWheelOver(&mode);
        QCOMPARE(servers.value(), serverCount);
        QCOMPARE(mode.currentIndex(), modeIndex);
        QVERIFY(!servers.hasFocus());
        // The wheel went to the panel: it scrolled.
        QVERIFY(area->verticalScrollBar()->maximum() > 0);  // at 1280 x 800 the Strategy page scrolls
        QVERIFY(area->verticalScrollBar()->value() > scrolled);
        QTest::qWait(500);  // past the set-up's apply delay
        QCOMPARE(window.controller().stepsDone(), trained);
        QCOMPARE(window.controller().config().strategy.parameterServers, serverCount);
        QVERIFY(!window.controller().isLoading());
        QVERIFY(m_recorder->questions.isEmpty());
    }

    void wheelOverAFocusedBoxEditsItButDiscardsNoRun() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        const std::int64_t trained = window.controller().stepsDone();
        QSpinBox& servers = window.setup().strategyPanel().parameterServerOptions().serversBox();
        servers.setFocus(Qt::MouseFocusReason);  // clicked into: the wheel is meant for it
        QVERIFY(servers.hasFocus());
        const int serverCount = servers.value();
        turnWheelOver(&servers);
        QCOMPARE(servers.value(), serverCount - 1);
        QTest::qWait(500);  // past the set-up's apply delay: the edit waits, the run stays
        QCOMPARE(window.controller().stepsDone(), trained);
        QCOMPARE(window.controller().config().strategy.parameterServers, serverCount);
        QVERIFY(!window.controller().isLoading());
        QVERIFY(window.setup().hasPendingNote());
        QVERIFY(m_recorder->questions.isEmpty());
    }

    void anEditToATrainedRunAsksBeforeItIsDiscarded() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        const std::int64_t trained = window.controller().stepsDone();
        QSpinBox& servers = window.setup().strategyPanel().parameterServerOptions().serversBox();
        servers.setValue(1);
        QTest::qWait(500);
        QCOMPARE(window.controller().stepsDone(), trained);  // not rebuilt by the edit itself
        // Play asks, naming the steps; Cancel keeps the run and puts the set-up back.
        m_recorder->saveChoice = SaveChoice::Cancel;
        window.playAction()->trigger();
        QCOMPARE(m_recorder->questions.size(), 1);
        QVERIFY2(m_recorder->questions.front().contains(QLocale().toString(trained) + QStringLiteral(" trained steps")),
                 qPrintable(m_recorder->questions.front()));
        QCOMPARE(window.controller().config().strategy.parameterServers, 2);
        QCOMPARE(servers.value(), 2);
        window.controller().pause();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
        // The same edit, and Discard: the new run has one server.
        servers.setValue(1);
        m_recorder->saveChoice = SaveChoice::Discard;
        window.applySetupNow();
        QCOMPARE(m_recorder->questions.size(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().config().strategy.parameterServers == 1, kLoadTimeoutMs);
    }

    void quitAsksAndCancelKeepsTheWindow() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        m_recorder->saveChoice = SaveChoice::Cancel;
        QVERIFY(!window.close());
        QVERIFY(window.isVisible());
        QCOMPARE(m_recorder->questions.size(), 1);
        QVERIFY2(m_recorder->questions.front().contains(QStringLiteral("\"wheel-test\"")), qPrintable(m_recorder->questions.front()));
        QVERIFY(window.controller().hasRun());
        m_recorder->saveChoice = SaveChoice::Discard;
        QVERIFY(window.close());
    }

    void quitWithSaveSavesTheRunFirst() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        window.controller().play();  // still training when Quit is chosen: paused to be saved
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().state() == SessionState::Running, 5000);
        QTemporaryDir folder;
        m_recorder->saveChoice = SaveChoice::Save;
        m_recorder->savePath.clear();  // the save dialog cancelled: nothing closes
        QVERIFY(!window.close());
        QCOMPARE(m_recorder->savePaths.size(), 1);
        m_recorder->savePath = folder.filePath(QStringLiteral("kept.distlab-run"));
        QVERIFY(window.close());
        QVERIFY(QFile::exists(m_recorder->savePath));
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void aSavedRunClosesWithoutAQuestion() {
        MainWindow& window = *m_window;
        trainAndPause(window, 20);
        QTemporaryDir folder;
        QVERIFY(fileTaskSucceeds(window, [&] { window.saveRun(folder.filePath(QStringLiteral("saved.distlab-run"))); }));
        QVERIFY(!window.runHasUnsavedSteps());
        QVERIFY(window.close());
        QVERIFY(m_recorder->questions.isEmpty());
    }

    void aStudysResultsAreNamedAndNotReplacedUnasked() {
        MainWindow& window = *m_window;
        QVERIFY(window.showStudy(twoVariantStudy("first study"), {}));
        StudyWindow& studies = *window.studyWindow();
        studies.run();
        QTRY_VERIFY_WITH_TIMEOUT(!studies.controller().isRunning() && !studies.unsavedResults().isEmpty(), 60000);
        // Another study: asked first; Cancel keeps the results.
        m_recorder->saveChoice = SaveChoice::Cancel;
        QVERIFY(!window.showStudy(twoVariantStudy("second study"), {}));
        QCOMPARE(studies.controller().study().spec.name, std::string("first study"));
        QCOMPARE(m_recorder->questions.size(), 1);
        // Quit names them (the run trained nothing: only the study).
        QVERIFY(!window.close());
        QCOMPARE(m_recorder->questions.size(), 2);
        QVERIFY2(m_recorder->questions.back().contains(QStringLiteral("\"first study\"")), qPrintable(m_recorder->questions.back()));
        QVERIFY(!m_recorder->questions.back().contains(QStringLiteral("the run")));
        // Save exports the table; then the study is replaced without a question.
        QTemporaryDir folder;
        m_recorder->saveChoice = SaveChoice::Save;
        m_recorder->savePath = folder.filePath(QStringLiteral("results.csv"));
        QVERIFY(window.showStudy(twoVariantStudy("second study"), {}));
        QVERIFY(QFile::exists(m_recorder->savePath));
        QCOMPARE(studies.controller().study().spec.name, std::string("second study"));
        QVERIFY(studies.unsavedResults().isEmpty());
    }

private:
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestUnsavedWork)
#include "test_unsaved_work.moc"
