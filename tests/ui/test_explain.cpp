// Explain follows the current tab and describes exactly what the engine offers (issue item 7),
// and the window title names the app once (item 9).
#include <QtTest>

#include <QGuiApplication>
#include <QTabWidget>
#include <QTextBrowser>

#include <memory>

#include <distlab/config/run_config.hpp>

#include "config/run_config_enum_names.hpp"  // the engine's one list of activations (what configs accept)

#include "main_window.hpp"
#include "panels/explain_panel.hpp"
#include "panels/explanations.hpp"
#include "views/parameter_server_view.hpp"
#include "views/timeline_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
/// What the window system shows for `title` (QPlatformWindow::formatWindowTitle).
QString shownTitle(const QString& title) {
    const QString app = QGuiApplication::applicationDisplayName();
    if (title.endsWith(app)) return title;
    return title.isEmpty() ? app : title + QStringLiteral(" — ") + app;
}
}  // namespace

class TestExplain : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        useIsolatedSettings(QStringLiteral("distlab-test-explain"));
        QGuiApplication::setApplicationDisplayName(QStringLiteral("DistLab"));  // as runApp does
    }

    void explainFollowsTheCurrentTab() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QTabWidget& tabs = window->views();
        auto* text = window->explainPanel().findChild<QTextBrowser*>(QStringLiteral("explainText"));
        QVERIFY(text != nullptr);
        window->views().setCurrentWidget(&window->parameterServerView());
        QCOMPARE(window->explainPanel().currentTopic(), QStringLiteral("view.parameter_servers"));
        tabs.setCurrentIndex(tabs.count() - 1);  // Variable lab
        QCOMPARE(tabs.tabText(tabs.currentIndex()), QStringLiteral("Variable lab"));
        QCOMPARE(window->explainPanel().currentTopic(), QStringLiteral("view.variable_lab"));
        QVERIFY(text->toPlainText().startsWith(QStringLiteral("Variable lab")));
        QVERIFY(!text->toPlainText().contains(QStringLiteral("Parameter servers")));
        window->views().setCurrentWidget(&window->timelineView());
        QCOMPARE(window->explainPanel().currentTopic(), QStringLiteral("view.timeline"));
        // Every tab has its own text.
        for (int tab = 0; tab < tabs.count(); ++tab) {
            tabs.setCurrentIndex(tab);
            QVERIFY2(explanationFor(window->explainPanel().currentTopic()).valid(), qPrintable(tabs.tabText(tab)));
            QCOMPARE(window->explainPanel().currentTopic(), explainKeyOf(tabs.widget(tab)));
        }
    }

    void theActivationTextNamesExactlyTheEngineActivations() {
        const QString body = explanationFor(QStringLiteral("model.activation")).body;
        const auto& activations = distlab::run_config_detail::kActivationNames;
        for (const auto& activation : activations) {
            const QString name = QString::fromLatin1(activation.name);
            QVERIFY2(body.contains(QStringLiteral("<b>%1</b>").arg(name)), qPrintable(name));
        }
        QCOMPARE(body.count(QStringLiteral("<b>")), static_cast<qsizetype>(activations.size()));
    }

    void theSpeedTextSaysTheDefaultPaceAndHowServersTakeIt() {
        const QString body = explanationFor(QStringLiteral("run.speed")).body;
        QVERIFY(body.contains(QStringLiteral("%1 steps per second").arg(MainWindow::kDefaultStepsPerSecond)));
        QVERIFY(body.contains(QStringLiteral("No limit")));
        QVERIFY(body.contains(QStringLiteral("<b>workers</b>")));
    }

    void theWindowTitleNamesTheAppOnce() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        const QString title = shownTitle(window->windowTitle());
        QCOMPARE(title.count(QStringLiteral("DistLab")), 1);
        QVERIFY(title.contains(QString::fromStdString(window->controller().config().name)));
    }
};

QTEST_MAIN(TestExplain)
#include "test_explain.moc"
