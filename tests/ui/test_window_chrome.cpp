// What surrounds the views (issue 40, items 10 and 14): the window's first size on a 1920×1080
// screen (this test's offscreen screen, tests/ui/CMakeLists.txt) with the Explain dock shown, the
// person's layout kept from one launch to the next, View ▸ Diagnostics, and the Help menu: the
// README's topics, the keyboard shortcuts read from the menus, About with the versions in use.
#include <QtTest>

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <QTableWidget>

#include <Eigen/Core>

#include <distlab/device/device_info.hpp>

#include "help/about_dialog.hpp"
#include "help/help_browser.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"
#include "window_size.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

QMenu* menuNamed(QMenuBar& bar, const QString& title) {
    for (QAction* action : bar.actions())
        if (action->menu() != nullptr && action->text().remove(QLatin1Char('&')) == title) return action->menu();
    return nullptr;
}

QAction* actionNamed(QMenu& menu, const QString& text) {
    for (QAction* action : menu.actions())
        if (action->text().remove(QLatin1Char('&')) == text) return action;
    return nullptr;
}

/// The status bar's texts that are shown.
QStringList shownStatusTexts(MainWindow& window) {
    QStringList texts;
    for (const QLabel* label : window.statusBar()->findChildren<QLabel*>())
        if (label->isVisible()) texts.append(label->text());
    return texts;
}

/// The README's "### Lessons" section's first line of text, read from the source tree.
QString readmeLessonsLine() {
    QFile file(QStringLiteral(DISTLAB_EXAMPLES_DIR "/../../README.md"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    const auto heading = lines.indexOf(QStringLiteral("### Lessons"));
    return heading < 0 ? QString() : lines.value(heading + 2);
}

}  // namespace

class TestWindowChrome : public QObject {
    Q_OBJECT

private slots:
    void init() { useIsolatedSettings(QStringLiteral("distlab-test-window-chrome")); }

    void theFirstWindowSuitsTheScreen() {
        // 92 % of the screen, never under 1280×800 where the screen has room for it.
        QCOMPARE(initialWindowSize(QRect(0, 0, 1920, 1080)), QSize(1766, 993));
        QCOMPARE(initialWindowSize(QRect(0, 0, 1280, 800)), QSize(1280, 800));
        QCOMPARE(initialWindowSize(QRect(0, 0, 1366, 768)), QSize(1280, 768));
        // A first launch on this 1920×1080 screen: a window wide enough for Explain, which is shown.
        QCOMPARE(QGuiApplication::primaryScreen()->availableGeometry().size(), QSize(1920, 1080));
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.size(), QSize(1766, 993));
        QTRY_VERIFY(window.explainDock().isVisible());
        QVERIFY(window.explainDock().width() >= 160);
    }

    void thePersonsLayoutIsKept() {
        {
            MainWindow window;
            window.resize(1300, 820);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QTRY_VERIFY(!window.explainDock().isVisible());      // folded in a narrow window...
            window.explainDock().toggleViewAction()->trigger();  // ... until the person shows it
            QTRY_VERIFY(window.explainDock().isVisible());
            window.close();
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QCOMPARE(again.size(), QSize(1300, 820));
        QCoreApplication::processEvents();
        QVERIFY2(again.explainDock().isVisible(), "the Explain dock the person showed is folded away again");
    }

    void diagnosticsAreAViewOption() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->controller().play();
        QTRY_VERIFY_WITH_TIMEOUT(window->controller().stepsDone() >= 20, 20000);
        QTest::qWait(400);
        const auto frameTimes = [&] { return shownStatusTexts(*window).filter(QStringLiteral("GUI frame")); };
        QVERIFY2(frameTimes().isEmpty(), qPrintable(frameTimes().join(QLatin1Char('|'))));
        QMenu* view = menuNamed(*window->menuBar(), QStringLiteral("View"));
        QVERIFY(view != nullptr);
        QAction* diagnostics = actionNamed(*view, QStringLiteral("Diagnostics"));
        QVERIFY(diagnostics != nullptr && diagnostics->isCheckable());
        diagnostics->trigger();
        QTRY_VERIFY(!frameTimes().isEmpty());
        window->controller().pause();
        window->close();  // remembered
        MainWindow again;
        QVERIFY(again.diagnosticsAction()->isChecked());
    }

    void theGuideShowsTheReadmesSections() {
        MainWindow window;
        QMenu* help = menuNamed(*window.menuBar(), QStringLiteral("Help"));
        QVERIFY(help != nullptr);
        QMenu* guide = window.findChild<QMenu*>(QStringLiteral("guideMenu"));
        QVERIFY(guide != nullptr);
        QStringList titles;
        for (QAction* action : guide->actions())
            if (!action->isSeparator()) titles.append(action->text());
        for (const QString& expected : {QStringLiteral("The app"), QStringLiteral("Lessons"), QStringLiteral("Run configs"),
                                        QStringLiteral("The command line"), QStringLiteral("Installing the package")})
            QVERIFY2(titles.contains(expected), qPrintable(titles.join(QStringLiteral(", "))));
        QVERIFY(!titles.contains(QStringLiteral("Tests")));  // for the project's developers
        // Every topic shows text: no menu item that does nothing.
        for (QAction* action : guide->actions()) {
            if (action->isSeparator()) continue;
            action->trigger();
            QVERIFY(window.helpBrowser() != nullptr && window.helpBrowser()->isVisible());
            QTRY_VERIFY2(window.helpBrowser()->plainText().size() > 100, qPrintable(action->text()));
        }
        actionNamed(*guide, QStringLiteral("Lessons"))->trigger();
        const QString line = readmeLessonsLine();
        QVERIFY(!line.isEmpty());
        // The section's opening words, as the README has them (Markdown marks aside).
        QVERIFY2(window.helpBrowser()->plainText().simplified().contains(QStringLiteral("opens guided lessons in a dock beside Explain")),
                 qPrintable(window.helpBrowser()->plainText().left(300)));
        QVERIFY(line.contains(QStringLiteral("opens guided lessons in a dock beside Explain")));
    }

    void theShortcutsAreTheMenusOwn() {
        MainWindow window;
        // A command added to a menu after the window was built is listed too: the list is read
        // from the menus, not written by hand.
        QMenu* run = menuNamed(*window.menuBar(), QStringLiteral("Run"));
        QAction* extra = run->addAction(QStringLiteral("Extra command"));
        extra->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7));
        QMenu* help = menuNamed(*window.menuBar(), QStringLiteral("Help"));
        actionNamed(*help, QStringLiteral("Keyboard shortcuts…"))->trigger();
        QTableWidget* table = nullptr;
        QTRY_VERIFY((table = window.findChild<QTableWidget*>(QStringLiteral("shortcutsTable"))) != nullptr);
        QStringList rows;
        for (int row = 0; row < table->rowCount(); ++row)
            rows.append(table->item(row, 0)->text() + QStringLiteral(" = ") + table->item(row, 1)->text());
        const QString native = QKeySequence(Qt::CTRL | Qt::Key_Return).toString(QKeySequence::NativeText);
        QVERIFY2(rows.contains(QStringLiteral("Run ▸ Play = ") + native), qPrintable(rows.join(QLatin1Char('\n'))));
        QVERIFY2(rows.contains(QStringLiteral("File ▸ Open run config = ") +
                               QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)),
                 qPrintable(rows.join(QLatin1Char('\n'))));
        QVERIFY2(rows.contains(QStringLiteral("Run ▸ Extra command = ") +
                               QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F7).toString(QKeySequence::NativeText)),
                 qPrintable(rows.join(QLatin1Char('\n'))));
    }

    void aboutNamesTheVersionsAndKernels() {
        MainWindow window;
        QMenu* help = menuNamed(*window.menuBar(), QStringLiteral("Help"));
        actionNamed(*help, QStringLiteral("About DistLab…"))->trigger();
        AboutDialog* about = nullptr;
        QTRY_VERIFY((about = window.findChild<AboutDialog*>()) != nullptr);
        const QString text = about->text();
        QVERIFY2(text.contains(QStringLiteral("DistLab " DISTLAB_VERSION)), qPrintable(text));
        QVERIFY(text.contains(QString::fromLatin1(qVersion())));
        QVERIFY(text.contains(QStringLiteral("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION)));
        QVERIFY(text.contains(QStringLiteral("packed-avx512")) || text.contains(QStringLiteral("packed-avx2")) ||
                text.contains(QStringLiteral("openblas")));
        QVERIFY(text.contains(QStringLiteral("NCCL")) && text.contains(QStringLiteral("CUDA")));
        // Which OpenBLAS, its kernels and who chose them; and why the CUDA backend did not load, where it did not.
        const DeviceReport report = queryDevices();
        QVERIFY2(text.contains(QString::fromStdString(report.cpuOpenBlasLibrary)), qPrintable(text));
        QVERIFY2(text.contains(QString::fromStdString(report.cpuOpenBlasKernels) + QStringLiteral(" (chosen by ")), qPrintable(text));
        if (!report.gpuBackendLoaded)
            QVERIFY2(text.contains(QString::fromStdString(report.gpuBackendError).toHtmlEscaped()), qPrintable(text));
    }
};

QTEST_MAIN(TestWindowChrome)
#include "test_window_chrome.moc"
