// Every view is readable at 1280×800 (issue item 5): with a four-device mirrored run trained a
// little and an all-reduce captured, each tab of a 1280×800 window is checked as a person would
// look at it: every tab visible, no label cut or elided, no chart title elided, no table column
// narrower than its contents, the Explain dock folded away (and back at 1920).
#include <QtTest>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QBoxLayout>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBox>
#include <QTableWidget>
#include <QTextDocument>
#include <QStatusBar>
#include <QToolBar>

#include <memory>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "panels/run_setup_panel.hpp"
#include "views/communication_view.hpp"
#include "views/comm_link_table.hpp"
#include "views/parameter_server_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

RunConfig mirroredFour() {
    RunConfig config = MainWindow::defaultConfig();
    config.name = "layout";
    config.strategy.type = StrategyKind::Mirrored;
    config.strategy.devices.clear();
    for (int r = 0; r < 4; ++r) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, r});
    return config;
}

/// Is `widget` shown inside the window (it and every ancestor visible, and not scrolled away: a
/// widget inside a scroll area is checked against its own width, since it can be scrolled to)?
bool shown(const QWidget* widget) { return widget->isVisibleTo(widget->window()) && widget->width() > 0; }

/// The text of `label` is drawn whole at its size.
QString cutLabel(const QLabel& label) {
    if (!shown(&label) || label.text().isEmpty() || !label.pixmap().isNull()) return {};
    const QRect room = label.contentsRect();
    if (label.wordWrap()) {
        const int needed = label.heightForWidth(label.width());
        if (needed > label.height() + 1)
            return QStringLiteral("wrapped label needs %1 px, has %2: %3").arg(needed).arg(label.height()).arg(label.text().left(80));
        return {};
    }
    const int needed = label.textFormat() == Qt::PlainText || !Qt::mightBeRichText(label.text())
                           ? label.fontMetrics().horizontalAdvance(label.text())
                           : label.sizeHint().width() - 2 * label.margin();
    if (needed > room.width() + 1)
        return QStringLiteral("label needs %1 px, has %2: %3").arg(needed).arg(room.width()).arg(label.text().left(80));
    return {};
}

/// The controls of `area`'s page (labels, buttons, boxes) that reach past its right edge: clipped,
/// since the set-up pages scroll only up and down.
QStringList clippedInScrollArea(const QScrollArea& area) {
    QStringList problems;
    const QWidget* viewport = area.viewport();
    for (const QWidget* widget : area.widget()->findChildren<QWidget*>()) {
        if (!shown(widget) || !widget->isVisible()) continue;
        if (qobject_cast<const QLabel*>(widget) == nullptr && qobject_cast<const QAbstractButton*>(widget) == nullptr &&
            qobject_cast<const QAbstractSpinBox*>(widget) == nullptr && qobject_cast<const QComboBox*>(widget) == nullptr)
            continue;
        const QRect inViewport(widget->mapTo(viewport, QPoint(0, 0)), widget->size());
        if (inViewport.right() > viewport->width() + 1)
            problems.append(QStringLiteral("%1 \"%2\" reaches %3 px past the set-up's edge")
                                .arg(QString::fromLatin1(widget->metaObject()->className()), widget->objectName())
                                .arg(inViewport.right() - viewport->width()));
        else if (qobject_cast<const QAbstractSpinBox*>(widget) != nullptr || qobject_cast<const QComboBox*>(widget) != nullptr) {
            if (widget->width() + 1 < widget->minimumSizeHint().width())
                problems.append(QStringLiteral("%1 \"%2\" squeezed to %3 of %4 px")
                                    .arg(QString::fromLatin1(widget->metaObject()->className()), widget->objectName())
                                    .arg(widget->width())
                                    .arg(widget->minimumSizeHint().width()));
        }
    }
    return problems;
}

/// Every tab of the views' tab bar is drawn whole inside the window.
QStringList cutTabs(MainWindow& window) {
    QStringList problems;
    QTabBar* bar = window.views().tabBar();
    const QRect visible = window.views().rect();
    for (int tab = 0; tab < bar->count(); ++tab) {
        if (!bar->isTabVisible(tab)) continue;  // a tab the run has no use for (Tasks without a cluster)
        const QRect rect(bar->mapTo(&window.views(), bar->tabRect(tab).topLeft()), bar->tabRect(tab).size());
        if (!visible.contains(rect) || !bar->rect().contains(bar->tabRect(tab)))
            problems.append(QStringLiteral("tab %1 cut: %2..%3 of %4 px")
                                .arg(bar->tabText(tab))
                                .arg(rect.left())
                                .arg(rect.right())
                                .arg(visible.width()));
    }
    return problems;
}

QStringList problemsIn(QWidget& view) {
    QStringList problems;
    for (const QLabel* label : view.findChildren<QLabel*>()) {
        if (label->parentWidget() != nullptr && qobject_cast<LineChart*>(label->parentWidget()) != nullptr) continue;  // empty text overlay
        if (const QString cut = cutLabel(*label); !cut.isEmpty()) problems.append(cut);
    }
    for (const LineChart* chart : view.findChildren<LineChart*>()) {
        if (shown(chart) && !chart->titleFits()) problems.append(QStringLiteral("chart title elided: %1").arg(chart->title()));
    }
    for (const QAbstractButton* button : view.findChildren<QAbstractButton*>()) {
        if (!shown(button) || button->text().isEmpty() || qobject_cast<const QTabBar*>(button->parentWidget()) != nullptr) continue;
        if (button->width() + 1 < button->sizeHint().width())
            problems.append(QStringLiteral("button narrower than its text: %1").arg(button->text()));
    }
    // Widgets side by side in one box layout never overlap (a layout squeezed below its minimum
    // by a wrapped label's height draws its widgets over each other).
    for (const QWidget* parent : view.findChildren<QWidget*>()) {
        const auto* box = qobject_cast<const QBoxLayout*>(parent->layout());
        if (box == nullptr || !shown(parent)) continue;
        QList<const QWidget*> children;
        for (int i = 0; i < box->count(); ++i)
            if (const QWidget* child = box->itemAt(i)->widget();
                child != nullptr && child->isVisibleTo(parent) && !child->geometry().isEmpty())
                children.append(child);
        for (int a = 0; a < children.size(); ++a)
            for (int b = a + 1; b < children.size(); ++b)
                if (children[a]->geometry().intersects(children[b]->geometry()))
                    problems.append(QStringLiteral("%1 and %2 overlap in %3")
                                        .arg(QString::fromLatin1(children[a]->metaObject()->className()),
                                             QString::fromLatin1(children[b]->metaObject()->className()),
                                             QString::fromLatin1(parent->metaObject()->className())));
    }
    for (const QTableWidget* table : view.findChildren<QTableWidget*>()) {
        if (!shown(table)) continue;
        if (table->width() < 160)
            problems.append(QStringLiteral("table %1 is a sliver: %2 px").arg(table->objectName()).arg(table->width()));
        // A short table (a row per link or device) shows every row without scrolling.
        if (table->rowCount() > 0 && table->rowCount() <= 8 && table->viewport()->height() + 1 < table->verticalHeader()->length())
            problems.append(QStringLiteral("table %1 shows %2 of %3 px of its %4 rows")
                                .arg(table->objectName())
                                .arg(table->viewport()->height())
                                .arg(table->verticalHeader()->length())
                                .arg(table->rowCount()));
        for (int column = 0; column < table->columnCount(); ++column) {
            int needed = table->horizontalHeader()->sectionSizeHint(column);
            for (int row = 0; row < table->rowCount(); ++row) {
                if (const QTableWidgetItem* item = table->item(row, column))
                    needed = std::max(needed, table->fontMetrics().horizontalAdvance(item->text()) + 8);
            }
            if (table->columnWidth(column) + 1 < needed)
                problems.append(QStringLiteral("table %1 column %2 cut: %3 of %4 px")
                                    .arg(table->objectName())
                                    .arg(column)
                                    .arg(table->columnWidth(column))
                                    .arg(needed));
        }
    }
    return problems;
}

}  // namespace

class TestLayout : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-layout")); }

    void everyTabIsVisibleAt1280() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QCoreApplication::processEvents();
        // The window really is 1280 wide: no view's minimum size forces it wider.
        QStringList wide;
        for (int tab = 0; tab < window->views().count(); ++tab)
            wide.append(
                QStringLiteral("%1: %2").arg(window->views().tabText(tab)).arg(window->views().widget(tab)->minimumSizeHint().width()));
        QVERIFY2(window->width() <= 1280, qPrintable(QStringLiteral("window %1 px wide; views need %2, toolbar %3, set-up %4")
                                                         .arg(window->width())
                                                         .arg(wide.join(QStringLiteral(", ")))
                                                         .arg(window->findChild<QToolBar*>()->minimumSizeHint().width())
                                                         .arg(window->setup().minimumSizeHint().width()) +
                                                     QStringLiteral(" window min %1, central %2, status %3, docks %4")
                                                         .arg(window->minimumSizeHint().width())
                                                         .arg(window->views().minimumSizeHint().width())
                                                         .arg(window->statusBar()->minimumSizeHint().width())
                                                         .arg([&] {
                                                             QStringList d;
                                                             for (auto* k : window->findChildren<QDockWidget*>())
                                                                 d.append(QString::number(k->minimumSizeHint().width()) + "/" +
                                                                          QString::number(k->minimumWidth()) +
                                                                          (k->isVisible() ? "v" : "h"));
                                                             return d.join(",");
                                                         }())));
        QVERIFY(window->height() <= 800);
        QTabBar* bar = window->views().tabBar();
        for (int tab = 0; tab < bar->count(); ++tab) {
            if (!bar->isTabVisible(tab)) continue;  // a tab the run has no use for (Tasks without a cluster)
            const QRect rect = bar->tabRect(tab);
            QVERIFY2(bar->rect().contains(rect), qPrintable(bar->tabText(tab)));
            QVERIFY2(rect.width() >= bar->fontMetrics().horizontalAdvance(bar->tabText(tab)), qPrintable(bar->tabText(tab)));
        }
        QVERIFY(bar->tabText(bar->count() - 1).contains(QStringLiteral("Variable lab")));
    }

    void theExplainDockFoldsInANarrowWindow() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QTRY_VERIFY(!window->explainDock().isVisible());
        // ... a button on the run toolbar brings it back, and a wide window shows it.
        QToolBar* bar = window->findChild<QToolBar*>(QStringLiteral("runToolBar"));
        QVERIFY(bar->actions().contains(window->explainDock().toggleViewAction()));
        window->resize(1920, 1080);
        QTRY_VERIFY(window->explainDock().isVisible());
        window->resize(1280, 800);
        QTRY_VERIFY(!window->explainDock().isVisible());
        window->explainDock().toggleViewAction()->trigger();  // the person's choice wins
        QTRY_VERIFY(window->explainDock().isVisible());
        window->resize(1270, 800);
        QCoreApplication::processEvents();
        QVERIFY(window->explainDock().isVisible());
    }

    void everyViewIsReadableAt1280x800() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), mirroredFour());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->controller().play();
        QTRY_VERIFY_WITH_TIMEOUT(window->controller().history().stepsSeen() >= 60, 30000);
        window->controller().pause();
        QTRY_COMPARE_WITH_TIMEOUT(window->controller().state(), SessionState::Paused, 5000);
        CommunicationView& communication = window->communicationView();
        QTRY_VERIFY_WITH_TIMEOUT(!communication.capture().empty(), 10000);
        QStringList problems;
        for (int tab = 0; tab < window->views().count(); ++tab) {
            window->views().setCurrentIndex(tab);
            for (int i = 0; i < 10; ++i) {
                window->controller().tick();
                QTest::qWait(20);
            }
            for (const QString& problem : problemsIn(*window->views().currentWidget()))
                problems.append(window->views().tabText(tab) + QStringLiteral(": ") + problem);
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void theServersDescriptionIsWholeAt1280() {
        // The Servers tab of a run without parameter servers: its description, then its buttons.
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->views().setCurrentWidget(&window->parameterServerView());
        QCoreApplication::processEvents();
        auto* intro = window->parameterServerView().findChild<QLabel*>(QStringLiteral("parameterServerIntro"));
        QVERIFY(intro != nullptr);
        QTRY_VERIFY(intro->isVisible() && !intro->text().isEmpty());
        QVERIFY2(cutLabel(*intro).isEmpty(), qPrintable(cutLabel(*intro)));
        const QStringList problems = problemsIn(window->parameterServerView());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void theParameterServerSetUpFitsAt1280() {
        // The Strategy page of a parameter-server run: every label, box and speed control whole.
        Recorder recorder;
        RunConfig config = MainWindow::defaultConfig();
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        config.strategy.mode = ParameterServerMode::Sync;
        auto window = openWindow(recorder, QSize(1280, 800), config);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QToolBox& pages = window->setup().pages();
        int strategyPage = -1;
        for (int page = 0; page < pages.count(); ++page)
            if (pages.itemText(page) == QStringLiteral("Strategy")) strategyPage = page;
        QVERIFY(strategyPage >= 0);
        pages.setCurrentIndex(strategyPage);
        QTest::qWait(200);  // the tool box animates nothing, but lays out on the next events
        auto* area = qobject_cast<QScrollArea*>(pages.widget(strategyPage));
        QVERIFY(area != nullptr);
        QStringList problems = clippedInScrollArea(*area);
        problems += problemsIn(*area->widget());
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void everyTabShowsWithTheLessonDockOpenAt1280() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        const QStringList lessons =
            QDir(QStringLiteral(DISTLAB_EXAMPLES_DIR "/../lessons")).entryList({QStringLiteral("*.lesson.json")}, QDir::Files, QDir::Name);
        QVERIFY(!lessons.isEmpty());
        QVERIFY(window->openLesson(QStringLiteral(DISTLAB_EXAMPLES_DIR "/../lessons/") + lessons.front()));
        QTRY_VERIFY(window->findChild<QDockWidget*>(QStringLiteral("lessonDock"))->isVisible());
        QTest::qWait(200);
        QVERIFY(window->width() <= 1280);
        const QStringList problems = cutTabs(*window);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void theOptimizerFieldsLineUp() {
        // Momentum's box starts where the learning rate's does (one column of fields on the page).
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QToolBox& pages = window->setup().pages();
        pages.setCurrentIndex(pages.count() - 1);  // Optimizer and run
        QTest::qWait(100);
        auto* rate = window->setup().findChild<QDoubleSpinBox*>(QStringLiteral("learningRateBox"));
        auto* momentum = window->setup().findChild<QDoubleSpinBox*>(QStringLiteral("momentumBox"));
        QVERIFY(rate != nullptr && momentum != nullptr);
        QTRY_VERIFY(momentum->isVisible());
        const int rateLeft = rate->mapTo(window.get(), QPoint(0, 0)).x();
        const int momentumLeft = momentum->mapTo(window.get(), QPoint(0, 0)).x();
        QCOMPARE(momentumLeft, rateLeft);
        QCOMPARE(momentum->width(), rate->width());
    }
};

QTEST_MAIN(TestLayout)
#include "test_layout.moc"
