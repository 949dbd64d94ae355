// Views a careful user reads at the default pace (issue 40, items 8, 13 and 14): the Throughput
// chart's scale is not set by the first, warm-up window; the Communication view says what a
// device sends beyond its links; the Timeline draws the newest step readably and "Zoom in" while
// following keeps it in view; counts are written in the right number.
#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "panels/run_setup_panel.hpp"
#include "views/comm_link_table.hpp"
#include "views/communication_view.hpp"
#include "views/throughput_view.hpp"
#include "views/timeline_canvas.hpp"
#include "views/timeline_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

/// A shown window training `config` at the window's own default pace (20 steps a second).
std::unique_ptr<MainWindow> pacedWindow(Recorder& recorder, const RunConfig& config) {
    auto window = openWindow(recorder, QSize(1280, 800), config);
    if (window->noLimitAction()->isChecked()) window->noLimitAction()->trigger();  // back to the pace
    return window;
}

void trainSteps(MainWindow& window, std::int64_t steps) {
    QTRY_VERIFY_WITH_TIMEOUT(loaded(window), kLoadTimeoutMs);
    window.controller().play();
    QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= steps, 60000);
    window.controller().pause();
    QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
}

void showTab(MainWindow& window, QWidget& view) {
    window.views().setCurrentWidget(&view);
    for (int i = 0; i < 10; ++i) {
        window.controller().tick();
        QTest::qWait(20);
    }
}

RunConfig mirroredFour() {
    RunConfig config = MainWindow::defaultConfig();
    config.strategy.type = StrategyKind::Mirrored;
    config.strategy.devices.clear();
    for (int r = 0; r < 4; ++r) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, r});
    return config;
}

}  // namespace

class TestViewScales : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-view-scales")); }

    void throughputIgnoresTheWarmUpWindow() {
        // Steps of about 0.1 GFLOP (milliseconds), paced at about 4 a second: the first throughput
        // window closes after the first step alone (it lasts over the 2 ms a first window needs),
        // without the pace's pause, so it reads many times the paced rate of 256 × 4 = 1,024
        // samples/s (while the first step, warm-up included, takes well under 40 ms, as it does on
        // a 2-core Zen 3 busy with another test).
        RunConfig config = MainWindow::defaultConfig();
        config.model.layers[0].units = 256;
        config.model.layers[1].units = 256;
        config.data.globalBatchSize = 256;
        config.data.samples = 2048;
        Recorder recorder;
        auto window = pacedWindow(recorder, config);
        window->speedSlider().setValue(27);  // 0.5 × 2000^(27/99) ≈ 3.97 steps/s
        QVERIFY2(window->speedText().startsWith(QStringLiteral("4.0 steps/s")), qPrintable(window->speedText()));
        trainSteps(*window, 24);
        showTab(*window, window->throughputView());
        const DecimatedSeries& rate = window->controller().history().series(GlobalSeries::SamplesPerSecond);
        QVERIFY(rate.heldCount() >= 20);
        const double paced = 256.0 * 3.97;
        const double firstWindow = rate.first().high;
        // Only a machine whose first step takes under 2 ms (no warm-up window), or one so slow that the
        // step nears the pace, has no outlier to cut.
        if (firstWindow < 6.0 * paced) {  // short of that, the chart rightly keeps it (2 x its 98th percentile)
            QSKIP(qPrintable(QStringLiteral("no warm-up outlier on this machine (first window %1 samples/s)").arg(firstWindow)));
        }
        LineChart* chart = nullptr;
        for (LineChart* one : window->throughputView().findChildren<LineChart*>())
            if (one->title() == QStringLiteral("Throughput")) chart = one;
        QVERIFY(chart != nullptr);
        const double top = chart->yRange().second;
        QVERIFY2(
            top < firstWindow && top < 3.0 * paced,
            qPrintable(QStringLiteral("axis top %1 beside a first window of %2 and a pace of %3").arg(top).arg(firstWindow).arg(paced)));
        QVERIFY(top >= 0.5 * paced);
        const auto* summary = window->throughputView().findChild<QLabel*>();
        QVERIFY(summary != nullptr);
        QVERIFY2(summary->text().contains(QStringLiteral("throughput peaks up to")), qPrintable(summary->text()));
    }

    void theCommunicationViewExplainsTheStepFigures() {
        // Four devices: each sends its links' gradient bytes plus the step's loss sum, correct and
        // example counts (3 float32 = 12 B) to each of its 3 peers: 36 B a step.
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1920, 1080), mirroredFour());
        trainSteps(*window, 30);
        CommunicationView& view = window->communicationView();
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        showTab(*window, view);
        auto* table = view.findChild<CommLinkTable*>();
        QVERIFY(table != nullptr);
        const AllReduceCapture& capture = view.capture();
        for (int r = 0; r < 4; ++r) {
            std::int64_t links = 0;
            for (int to = 0; to < 4; ++to) links += capture.linkBytes(r, to);
            const QString sent = table->devices().item(r, 1)->text();
            QCOMPARE(sent, QStringLiteral("%1 B").arg(links + 36));
        }
        // ... and the links table says so: a row for the step figures after the 4 ring links.
        QTableWidget& links = table->links();
        QCOMPARE(links.rowCount(), 5);
        QVERIFY2(links.item(4, 0)->text().contains(QStringLiteral("step figures")), qPrintable(links.item(4, 0)->text()));
        QCOMPARE(links.item(4, 1)->text(), QStringLiteral("12 B"));
        QVERIFY2(links.item(4, 1)->toolTip().contains(QStringLiteral("36 B")), qPrintable(links.item(4, 1)->toolTip()));
    }

    void theTimelineDrawsTheNewestStepAtTheDefaultPace() {
        Recorder recorder;
        auto window = pacedWindow(recorder, mirroredFour());
        trainSteps(*window, 20);
        TimelineView& timeline = window->timelineView();
        showTab(*window, timeline);
        const RunHistory& history = window->controller().history();
        const TimelineStep newest = history.timelineStep(history.timelineCount() - 1);
        TimelineCanvas& canvas = timeline.canvas();
        const auto pixels = [&](std::int64_t ns) {
            return static_cast<double>(ns) * canvas.width() / static_cast<double>(canvas.windowSpanNs());
        };
        // The newest step is drawn across most of the canvas, not as a hairline among 50 ms gaps.
        QVERIFY2(
            pixels(newest.endNs - newest.startNs) >= 0.5 * canvas.width(),
            qPrintable(QStringLiteral("the newest step is %1 px of %2").arg(pixels(newest.endNs - newest.startNs)).arg(canvas.width())));
        // "Zoom in" while following keeps the newest step in the window (not the empty middle).
        QVERIFY(timeline.following());
        QPushButton* zoomIn = nullptr;
        for (QPushButton* button : timeline.findChildren<QPushButton*>())
            if (button->text() == QStringLiteral("Zoom in")) zoomIn = button;
        QVERIFY(zoomIn != nullptr);
        for (int click = 0; click < 3; ++click) {
            QTest::mouseClick(zoomIn, Qt::LeftButton);
            QVERIFY(canvas.windowStartNs() < newest.endNs && canvas.windowStartNs() + canvas.windowSpanNs() > newest.startNs);
            canvas.repaint();
            QVERIFY2(canvas.spansPainted() > 0, "zoomed onto an empty gap");
        }
    }

    void countsAreSingularOrPlural() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        auto* accumulation = window->setup().findChild<QSpinBox*>(QStringLiteral("accumulationBox"));
        QVERIFY(accumulation != nullptr);
        accumulation->setValue(1);
        QCOMPARE(accumulation->text(), QStringLiteral("1 micro-step"));
        accumulation->stepBy(1);
        QCOMPARE(accumulation->text(), QStringLiteral("2 micro-steps"));
        accumulation->stepBy(-1);
        QCOMPARE(accumulation->text(), QStringLiteral("1 micro-step"));
        window->controller().tick();
        QTRY_VERIFY(window->statusText().contains(QStringLiteral("1 replica on")));
        QVERIFY(!window->statusText().contains(QStringLiteral("(s)")));
        QStringList slips;
        for (const QLabel* label : window->findChildren<QLabel*>())
            if (label->text().contains(QStringLiteral("(s)")) || label->text().contains(QStringLiteral("1 micro-steps")))
                slips.append(label->text());
        QVERIFY2(slips.isEmpty(), qPrintable(slips.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestViewScales)  // a QSKIP shows as a skip in ctest (tests/CMakeLists.txt)
#include "test_view_scales.moc"
