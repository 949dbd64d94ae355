// The views and the exports agree (issue item 6): the loss and accuracy charts share their x
// axis, the timeline names the step its times count from, phase colours are not replica colours,
// every legend lists the same phases, the step-time axis is not set by a rare spike, a
// parameter-server run's CSV is consistent with the phase split (step_ms >= compute_ms, worker
// and staleness columns, the test loss), and the Chrome trace holds more than the timeline's
// 256 steps. Also item 9: a communication view opened late shows an early all-reduce, relative
// to its largest value.
#include <QtTest>

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QTemporaryDir>

#include <cmath>
#include <memory>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/run_history.hpp"
#include "charts/line_chart.hpp"
#include "charts/stacked_bar_chart.hpp"
#include "main_window.hpp"
#include "run_palette.hpp"
#include "views/communication_view.hpp"
#include "views/learning_view.hpp"
#include "views/throughput_view.hpp"
#include "views/timeline_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

double distance(const QColor& a, const QColor& b) { return std::hypot(a.red() - b.red(), a.green() - b.green(), a.blue() - b.blue()); }

QList<QByteArray> csvLines(MainWindow& window, QTemporaryDir& folder) {
    const QString path = folder.filePath(QStringLiteral("metrics.csv"));
    if (!window.exportMetrics(path)) return {};
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return file.readAll().trimmed().split('\n');
}

void trainFor(MainWindow& window, std::int64_t steps, int timeoutMs = 60000) {
    window.controller().play();
    QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= steps, timeoutMs);
    window.controller().pause();
    QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
    window.controller().tick();
}

}  // namespace

class TestViewsAgree : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-views-agree")); }

    void lossAndAccuracyShareTheirXAxis() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        LearningView& view = window->learningView();
        window->views().setCurrentWidget(&view);
        window->controller().setSpeedLimit(400.0);  // a few thousand steps over many frames
        window->controller().play();
        // While the run grows, after every frame in which both charts have an axis, they agree.
        int compared = 0;
        QElapsedTimer clock;
        clock.start();
        while (window->controller().history().stepsSeen() < 2500 && clock.elapsed() < 15000) {
            QTest::qWait(15);
            const auto loss = view.lossChart().xRange();
            const auto accuracy = view.accuracyChart().xRange();
            if (loss.second <= loss.first || accuracy.second <= accuracy.first) continue;
            ++compared;
            QVERIFY2(loss == accuracy, qPrintable(QStringLiteral("loss x to %1, accuracy x to %2 at step %3")
                                                      .arg(loss.second)
                                                      .arg(accuracy.second)
                                                      .arg(window->controller().history().stepsSeen())));
        }
        window->controller().pause();
        QVERIFY(compared > 10);
    }

    void theTimelineNamesTheStepItsTimesCountFrom() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->views().setCurrentWidget(&window->timelineView());
        trainFor(*window, 1500);
        QTest::qWait(100);
        const RunHistory& history = window->controller().history();
        const QString oldest = QLocale().toString(history.timelineStep(0).step);
        QLabel& origin = window->timelineView().originLabel();
        QTRY_VERIFY(origin.text().contains(oldest));
        QVERIFY2(origin.heightForWidth(origin.width()) <= origin.height() + 1, qPrintable(origin.text()));
    }

    void phaseColoursAreNotReplicaColours() {
        for (Phase phase : kPhases) {
            for (int replica = 0; replica < 10; ++replica) {
                QVERIFY2(distance(phaseColor(phase), replicaColor(replica)) >= kMinColourDistance,
                         qPrintable(QStringLiteral("%1 vs replica %2").arg(phaseLabel(phase)).arg(replica)));
            }
        }
    }

    void everyLegendListsThePhasesAlike() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->views().setCurrentWidget(&window->throughputView());
        trainFor(*window, 200);
        ThroughputView& view = window->throughputView();
        QTRY_VERIFY_WITH_TIMEOUT(view.splitChart().seriesNames().size() == kPhaseCount, 5000);
        QStringList phases;
        for (Phase phase : kPhases) phases.append(phaseLabel(phase));
        QCOMPARE(view.splitChart().seriesNames(), phases);
        QStringList lines = view.timeChart().seriesNames();
        lines.removeAll(QStringLiteral("whole step"));
        QCOMPARE(lines, phases);
    }

    void aRareSpikeDoesNotSetTheStepTimeAxis() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        LineChart& chart = window->throughputView().timeChart();
        QList<QPointF> points;
        for (int i = 0; i < 400; ++i) points.append(QPointF(i, i == 200 || i == 300 ? 12.0 : 0.03));
        chart.setSeries(QStringLiteral("whole step"), points, Qt::black);
        chart.fitAxes();
        QVERIFY2(chart.yRange().second < 0.5, qPrintable(QString::number(chart.yRange().second)));
        QCOMPARE(chart.cutPeak(), 12.0);
    }

    void aParameterServerCsvAgreesWithThePhaseSplit() {
        RunConfig config = MainWindow::defaultConfig();
        config.name = "ps-csv";
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        config.evalEvery = 50;
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), config);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        trainFor(*window, 1200);
        QTest::qWait(700);  // the live evaluation comes every half second
        window->controller().tick();
        QTemporaryDir folder;
        const QList<QByteArray> lines = csvLines(*window, folder);
        QVERIFY(lines.size() > 100);
        const QList<QByteArray> header = lines.front().split(',');
        const auto column = [&](const char* name) { return header.indexOf(QByteArray(name)); };
        QVERIFY(column("worker") >= 0);
        QVERIFY(column("staleness") >= 0);
        int withTestLoss = 0;
        int workersSeen = 0;
        QSet<QByteArray> workers;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QList<QByteArray> cells = lines[i].split(',');
            QCOMPARE(cells.size(), header.size());
            const double step = cells[column("step_ms")].toDouble();
            double parts = 0.0;
            for (const char* part : {"compute_ms", "optimizer_ms", "communication_ms", "waiting_ms"}) {
                parts += cells[column(part)].toDouble();
                QVERIFY2(step + 1e-6 >= cells[column(part)].toDouble(), lines[i].constData());
            }
            QVERIFY2(step + 1e-3 >= parts, lines[i].constData());
            if (!cells[column("test_loss")].isEmpty()) ++withTestLoss;
            workers.insert(cells[column("worker")]);
            QVERIFY(cells[column("staleness")].toLongLong() >= 0);
        }
        workersSeen = static_cast<int>(workers.size());
        QVERIFY2(withTestLoss > 0, "no row carries the test loss");
        QVERIFY(workersSeen > 1);
    }

    void theTraceHoldsMoreThanTheTimeline() {
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        trainFor(*window, 1000);
        QTemporaryDir folder;
        const QString path = folder.filePath(QStringLiteral("trace.json"));
        QVERIFY(window->exportTrace(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray text = file.readAll();
        const qsizetype compute = text.count("\"name\":\"compute\"");
        QVERIFY2(compute >= 1000, qPrintable(QString::number(compute)));
    }

    void aLateLookAtCommunicationShowsAnEarlyAllReduce() {
        RunConfig config = MainWindow::defaultConfig();
        config.strategy.type = StrategyKind::Mirrored;
        config.strategy.devices.clear();
        for (int r = 0; r < 2; ++r) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, r});
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1600, 900), config);
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        window->views().setCurrentWidget(&window->learningView());
        QTest::qWait(300);  // a person looks at the loaded run before pressing Play
        trainFor(*window, 400);
        CommunicationView& view = window->communicationView();
        window->views().setCurrentWidget(&view);
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        QVERIFY2(view.capture().trainingStep() <= 20, qPrintable(QString::number(view.capture().trainingStep())));
        // Values relative to the largest input element: within [-1, 1], and the explanation says so.
        QVERIFY(view.relativeBox().isChecked());
        QVERIFY(view.largestInput() > 0.0);
        QTableWidget& values = view.valueTable();
        QTRY_VERIFY(values.rowCount() > 0);
        for (int row = 0; row < values.rowCount(); ++row)
            for (int column = 0; column + 1 < values.columnCount(); ++column)
                QVERIFY(std::abs(values.item(row, column)->text().toDouble()) <= 1.0 + 1e-9);
        view.relativeBox().setChecked(false);
        QCOMPARE(values.item(0, 0)->text().toDouble(),
                 static_cast<double>(QString::number(view.capture().value(0, 0, view.sampleElements()[0]), 'g', 5).toDouble()));
    }
};

QTEST_MAIN(TestViewsAgree)
#include "test_views_agree.moc"
