// The GUI's data path without widgets: bounded decimated series, TensorBoard smoothing, the
// two-points-per-column renderer, joining telemetry rings into the run history.
#include <QtTest>

#include <cmath>

#include "bridge/comm_stats.hpp"
#include "bridge/decimated_series.hpp"
#include "charts/chart_axis.hpp"
#include "bridge/run_history.hpp"
#include "bridge/series_renderer.hpp"
#include "bridge/telemetry_drain.hpp"
#include "bridge/update_tally.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "distlab/telemetry/step_records.hpp"

using namespace distlab;
using namespace distlab::ui;

namespace {
ReplicaRecord replicaRecord(std::int64_t step, int replica) {
    ReplicaRecord record;
    record.step = step;
    record.replica = replica;
    record.startNs = 0;
    record.computeEndNs = 2'000'000;  // compute 2 ms
    record.commEndNs = 5'000'000;     // communication 3 ms, of which 1 ms waiting
    record.commWaitNs = 1'000'000;
    record.updateEndNs = 6'000'000;  // optimizer 1 ms
    record.stepEndNs = 7'000'000;    // idle 1 ms
    record.gradNormBefore = 1.0f + static_cast<float>(replica);
    record.gradNormAfter = 10.0f;
    record.watched[0] = 0.5f + static_cast<float>(replica);
    return record;
}

StepRecord stepRecord(std::int64_t step) {
    StepRecord record;
    record.step = step;
    record.epoch = step / 10;
    record.loss = 1.0 / static_cast<double>(step);
    record.accuracy = 0.5;
    record.learningRate = 0.1f;
    record.startNs = (step - 1) * 10'000'000;
    record.endNs = record.startNs + 7'000'000;
    // What the engine works out from the two lanes of replicaRecord: each splits its 7 ms alike.
    record.durationNs = 7'000'000;
    record.phases[Phase::Compute] = 2'000'000;
    record.phases[Phase::Communication] = 2'000'000;
    record.phases[Phase::Waiting] = 1'000'000;
    record.phases[Phase::Optimizer] = 1'000'000;
    record.phases[Phase::Idle] = 1'000'000;
    record.watchedSpread = 1.0f;  // 1.5 - 0.5
    record.hasLanes = true;
    record.samples = 32;
    return record;
}
}  // namespace

class TestUiBridge : public QObject {
    Q_OBJECT

private slots:
    // The window's largest staleness is the largest value counted in it, also beyond the last bin
    // (which holds kBins - 1 and more), and leaves the window with the update that brought it.
    void theLargestStalenessIsTheWindowsOwn() {
        UpdateTally tally(2);
        StepRecord step;
        step.worker = 0;
        const std::int64_t stalenesses[] = {3, 118, 7, 40};
        for (std::int64_t staleness : stalenesses) {
            step.staleness = staleness;
            tally.add(step, {});
        }
        QCOMPARE(tally.windowMax(), std::int64_t{118});
        QCOMPARE(tally.bin(UpdateTally::kBins - 1), std::int64_t{2});  // 118 and 40 share the last bin
        step.staleness = 2;
        for (int i = 0; i < UpdateTally::kWindow; ++i) tally.add(step, {});  // pushes the four out
        QCOMPARE(tally.windowMax(), std::int64_t{2});
    }

    void seriesStaysBoundedOverAMillionSteps() {
        DecimatedSeries series(4096);
        for (int i = 1; i <= 1'000'000; ++i) series.append(i, i * 0.001, i == 123 ? 100.0f : 1.0f);
        QCOMPARE(series.appendedCount(), 1'000'000);
        QVERIFY(series.heldCount() <= 4096 + 1);
        QVERIFY(series.heldCount() >= 4096 / 2);  // still more than two points per pixel column
        QCOMPARE(series.first().step, 1.0);
        QCOMPARE(series.last().step, 1'000'000.0);
        // The spike survives decimation (min/max buckets), and x stays increasing.
        float highest = 0.0f;
        double previous = 0.0;
        std::int64_t samples = 0;
        bool increasing = true;
        series.forEach([&](const SeriesPoint& point) {
            highest = std::max(highest, point.high);
            increasing = increasing && point.step > previous;
            previous = point.step;
            samples += point.samples;
        });
        QCOMPARE(highest, 100.0f);
        QVERIFY(increasing);
        QCOMPARE(samples, 1'000'000);
        // Means stay exact through the merges: the spike's bucket is barely above 1.
        float largestMean = 0.0f;
        series.forEach([&](const SeriesPoint& point) { largestMean = std::max(largestMean, point.mean); });
        QVERIFY(largestMean > 1.0f && largestMean < 1.0f + 100.0f / 200.0f);
    }

    void seriesKeepsRawSamplesUntilItFillsUp() {
        DecimatedSeries series(64);
        for (int i = 0; i < 63; ++i) series.append(i, i, static_cast<float>(i % 5));
        QCOMPARE(series.heldCount(), std::size_t{63});
        QCOMPARE(series.bucketWidth(), 1);
        int index = 0;
        series.forEach([&](const SeriesPoint& point) {
            QCOMPARE(point.step, double(index));
            QCOMPARE(point.low, float(index % 5));
            QCOMPARE(point.high, point.low);
            ++index;
        });
        series.append(63, 63, 7.0f);  // full: pairs merge, the width doubles
        QCOMPARE(series.bucketWidth(), 2);
        QCOMPARE(series.heldCount(), std::size_t{32});
        SeriesPoint newestBucket;
        series.forEach([&](const SeriesPoint& point) { newestBucket = point; });
        QCOMPARE(newestBucket.step, 62.0);
        QCOMPARE(newestBucket.low, 2.0f);
        QCOMPARE(newestBucket.high, 7.0f);
        QCOMPARE(newestBucket.samples, 2);
        QCOMPARE(newestBucket.mean, 4.5f);   // (2 + 7) / 2: smoothing follows the mean
        QCOMPARE(series.last().step, 63.0);  // the newest sample itself
        QCOMPARE(series.last().high, 7.0f);
        series.append(64, 64, -1.0f);  // half a bucket: shown as the newest point
        QCOMPARE(series.heldCount(), std::size_t{33});
        series.forEach([&](const SeriesPoint& point) { newestBucket = point; });
        QCOMPARE(newestBucket.low, -1.0f);
        QCOMPARE(newestBucket.samples, 1);
        QCOMPARE(series.last().step, 64.0);
        series.clear();
        QVERIFY(series.empty());
        QCOMPARE(series.bucketWidth(), 1);
    }

    void axisLabelsTellNeighbouringTicksApart() {
        ChartAxis axis;
        double low = -0.0191055;
        double high = -0.0191049;
        axis.set(low, high, ChartAxis::niceRange(low, high));
        const std::vector<double> ticks = axis.ticks();
        QVERIFY(ticks.size() >= 3);
        for (std::size_t i = 1; i < ticks.size(); ++i)
            QVERIFY2(axis.label(ticks[i]) != axis.label(ticks[i - 1]), qPrintable(axis.label(ticks[i])));
        // Ordinary ranges keep short labels.
        axis.set(0.0, 1.5, 0.5);
        QCOMPARE(axis.label(0.5), QStringLiteral("0.5"));
        QCOMPARE(axis.label(1.5), QStringLiteral("1.5"));
        axis.set(0.0, 1.0, 0.25);
        QCOMPARE(axis.label(0.25), QStringLiteral("0.25"));
        axis.set(0.0, 8000.0, 2000.0);
        QCOMPARE(axis.label(6000.0), QStringLiteral("6000"));
        axis.set(0.0, 2'500'000.0, 500'000.0);
        QCOMPARE(axis.label(2'500'000.0), QStringLiteral("2.5M"));
        QCOMPARE(axis.label(0.0), QStringLiteral("0"));
        axis.set(0.0, 150'000.0, 50'000.0);
        QCOMPARE(axis.label(50'000.0), QStringLiteral("50k"));
        QCOMPARE(axis.label(100'000.0), QStringLiteral("100k"));
        QCOMPARE(axis.label(150'000.0), QStringLiteral("150k"));
        axis.set(1'000'000.0, 1'000'050.0, 10.0);  // a narrow window far out: every digit counts
        QVERIFY(axis.label(1'000'010.0) != axis.label(1'000'020.0));
    }

    void debiasedEmaMatchesTensorBoard() {
        DebiasedEma ema(0.6);
        QCOMPARE(ema.add(1.0), 1.0);
        QVERIFY(std::abs(ema.add(2.0) - 1.625) < 1e-12);
        QVERIFY(std::abs(ema.add(3.0) - 1.824 / 0.784) < 1e-12);
        DebiasedEma none(0.0);
        QCOMPARE(none.add(7.0), 7.0);
        // k samples of one bucket count as k samples.
        DebiasedEma bucket(0.5);
        DebiasedEma single(0.5);
        single.add(4.0);
        QCOMPARE(bucket.add(4.0, 2), single.add(4.0));
    }

    void rendererGivesAtMostTwoPointsPerColumn() {
        DecimatedSeries series;
        for (int i = 0; i < 10'000; ++i) series.append(i, i, static_cast<float>(std::sin(i * 0.01)) + (i == 5000 ? 10.0f : 0.0f));
        QList<QPointF> points;
        renderMinMax(series, RenderWindow{XAxis::Step, 0.0, 9999.0, 100}, points);
        QVERIFY(points.size() <= 200);
        QVERIFY(points.size() >= 100);
        double highest = -1e9;
        for (const QPointF& point : points) highest = std::max(highest, point.y());
        QVERIFY(highest > 9.0);  // the single-sample spike is kept
        for (qsizetype i = 1; i < points.size(); ++i) QVERIFY(points[i].x() >= points[i - 1].x());
    }

    void smoothingALongSpikyRunFollowsItsMean() {
        // A loss that is 0 except for a spike of 10 every 50 steps has mean 0.2; once decimated
        // into wide buckets, the smoothed curve must stay near 0.2, not jump with the extremes.
        DecimatedSeries series(4096);
        for (int i = 0; i < 1'000'000; ++i) series.append(i, i, i % 50 == 0 ? 10.0f : 0.0f);
        QVERIFY(series.bucketWidth() >= 128);
        QList<QPointF> points;
        renderSmoothed(series, RenderWindow{XAxis::Step, 0.0, 999'999.0, 500}, 0.9, points);
        QVERIFY(points.size() >= 500);
        for (const QPointF& point : points) {
            if (point.x() < 100'000.0) continue;
            QVERIFY2(std::abs(point.y() - 0.2) < 0.05, qPrintable(QString::number(point.y())));
        }
    }

    void drainJoinsStepsWithEveryReplica() {
        TelemetryHub hub(2, 64);
        RunHistory history(2);
        TelemetryDrain drain(2);
        hub.steps().tryPush(stepRecord(1));
        hub.replica(0).tryPush(replicaRecord(1, 0));
        QCOMPARE(drain.drain(hub, history, false), std::size_t{0});  // replica 1 not there yet
        hub.replica(1).tryPush(replicaRecord(1, 1));
        QCOMPARE(drain.drain(hub, history, false), std::size_t{1});
        QCOMPARE(history.stepsSeen(), 1);
        // Early in a run throughput windows are short (2 ms): this 7 ms step closes one.
        QVERIFY(std::abs(history.samplesPerSecond() - 32.0 / 0.007) < 1e-6);
        QCOMPARE(history.series(GlobalSeries::SamplesPerSecond).appendedCount(), 1);
        QCOMPARE(history.timelineCount(), 1);
        QCOMPARE(history.timelineRecord(0, 1).replica, 1);
        const StepSplit split = history.stepSplit(1);
        QCOMPARE(split.computeMs, 2.0);
        QCOMPARE(split.communicationMs, 2.0);
        QCOMPARE(split.waitingMs, 1.0);
        QCOMPARE(split.optimizerMs, 1.0);
        QCOMPARE(split.idleMs, 1.0);
        QCOMPARE(history.series(GlobalSeries::Divergence).last().high, 1.0f);  // 1.5 - 0.5
        QCOMPARE(history.replicaSeries(1, ReplicaSeries::GradNormBefore).last().high, 2.0f);
        QCOMPARE(history.rows().size(), std::size_t{1});
        QCOMPARE(history.rows().front().computeMs, 2.0);

        // A step whose replica 1 record was lost: handed over partially once the run has ended.
        hub.steps().tryPush(stepRecord(2));
        hub.replica(0).tryPush(replicaRecord(2, 0));
        QCOMPARE(drain.drain(hub, history, false), std::size_t{0});
        QCOMPARE(drain.drain(hub, history, true), std::size_t{1});
        QCOMPARE(history.stepsSeen(), 2);
        QCOMPARE(history.timelineRecord(1, 1).step, 0);  // not reported
    }

    void stepsTheRingHadNoRoomForStillReachTheHistory() {
        // The GUI thread busy while 1,000 steps go by: rings of 64. Every step reaches the rows
        // and the curves with its own numbers (the step's record carries them); only per-replica
        // detail is missing for steps whose replica records were dropped.
        TelemetryHub hub(2, 64);
        RunHistory history(2);
        TelemetryDrain drain(2);
        for (int s = 1; s <= 1000; ++s) {
            StepRecord record = stepRecord(s);
            if (s % 10 == 0) record.evaluation = EvalRecord{s, 2.0, 0.75, true, record.endNs};
            hub.stepChannel().publish(record);
            hub.replica(0).tryPush(replicaRecord(s, 0));
            hub.replica(1).tryPush(replicaRecord(s, 1));
        }
        // Drains as the timer does, with the session paused (it hands its backlog over meanwhile).
        for (int tick = 0; tick < 4; ++tick) {
            drain.drain(hub, history, false);
            hub.stepChannel().flush();
        }
        QCOMPARE(history.stepsSeen(), 1000);
        const std::vector<MetricRow> rows = history.rows();
        QCOMPARE(rows.size(), std::size_t{1000});
        for (std::size_t i = 0; i < rows.size(); ++i) {
            QCOMPARE(rows[i].step, static_cast<std::int64_t>(i + 1));
            QCOMPARE(rows[i].computeMs, 2.0);
            QCOMPARE(rows[i].stepMs, 7.0);
            QCOMPARE(std::isnan(rows[i].testLoss), rows[i].step % 10 != 0);
        }
        QCOMPARE(history.series(GlobalSeries::TrainLoss).appendedCount(), 1000);
        QCOMPARE(history.series(GlobalSeries::ComputeMs).appendedCount(), 1000);
        QCOMPARE(history.series(GlobalSeries::TestLoss).appendedCount(), 100);
        QCOMPARE(drain.backfilledSteps(), std::int64_t{1000 - 64});
        QCOMPARE(history.replicaSeries(0, ReplicaSeries::LocalLoss).appendedCount(), 64);  // the ring's 64
        QCOMPARE(drain.droppedCount(hub), std::uint64_t{2 * (1000 - 64)});
        // ... and the history says where: steps 65 to 1,000 came without any replica's record.
        QCOMPARE(history.detailGaps(), (std::vector<StepRange>{{65, 1000}}));

        // A session whose thread ended with steps still on its side: the last drain takes them.
        for (int s = 1001; s <= 1100; ++s) hub.stepChannel().publish(stepRecord(s));
        hub.stepChannel().closeProducer();
        drain.drain(hub, history, true);
        QCOMPARE(history.stepsSeen(), 1100);
        QCOMPARE(history.rows().back().step, std::int64_t{1100});
        QCOMPARE(history.detailGaps(), (std::vector<StepRange>{{65, 1100}}));  // these came without replica records too
    }

    void theAppAndTheCliSplitAStepAlike() {
        // One StepReport, two replicas with different timings: the CLI writes splitStep(report)
        // into its metrics; the app turns the report into ring records (as the session does) and
        // its history and CSV rows must carry the same numbers.
        StepReport report;
        report.step = 1;
        report.startNs = 0;
        report.endNs = 9'000'000;
        report.replicas.resize(2);
        const std::int64_t stamps[2][5] = {{0, 3'000'000, 5'000'000, 6'000'000, 500'000}, {0, 1'000'000, 5'000'000, 8'000'000, 2'500'000}};
        for (int r = 0; r < 2; ++r) {
            ReplicaStepStats& s = report.replicas[static_cast<std::size_t>(r)];
            s.startNs = stamps[r][0];
            s.computeEndNs = stamps[r][1];
            s.commEndNs = stamps[r][2];
            s.updateEndNs = stamps[r][3];
            s.commWaitNs = stamps[r][4];
        }
        const PhaseSplit cli = splitStep(report);
        RunHistory history(2);
        const ReplicaRecord records[2] = {toReplicaRecord(report, 0, 1), toReplicaRecord(report, 1, 1)};
        const ReplicaRecord* pointers[2] = {&records[0], &records[1]};
        report.samples = 32;
        history.addStep(toStepRecord(report), pointers);
        const MetricRow row = history.rows().front();
        QCOMPARE(row.computeMs, cli[Phase::Compute] / 1e6);
        QCOMPARE(row.optimizerMs, cli[Phase::Optimizer] / 1e6);
        QCOMPARE(row.communicationMs, cli[Phase::Communication] / 1e6);
        QCOMPARE(row.waitingMs, (cli[Phase::Waiting] + cli[Phase::Idle]) / 1e6);
        QCOMPARE(row.computeMs, 2.0);  // worked: (3 + 1) / 2 ms
        QCOMPARE(row.waitingMs, 3.5);  // waiting (0.5 + 2.5) / 2 plus idle (3 + 1) / 2
    }

    // A GPU run's bytes are the ring's formula, not a count: the flag rides from the StepReport
    // through the ring records to the communication view's statistics, which label the bytes.
    void ringFormulaBytesReachTheViewsMarked() {
        for (const bool formula : {false, true}) {
            StepReport report;
            report.step = 1;
            report.endNs = 2'000'000;
            report.bytesFromRingFormula = formula;
            report.replicas.resize(2);
            for (ReplicaStepStats& s : report.replicas) {
                s.computeEndNs = 500'000;
                s.commEndNs = 1'000'000;
                s.updateEndNs = 1'500'000;
                s.bytesSent = 1536;
            }
            RunHistory history(2);
            const ReplicaRecord records[2] = {toReplicaRecord(report, 0, 1), toReplicaRecord(report, 1, 1)};
            const ReplicaRecord* pointers[2] = {&records[0], &records[1]};
            history.addStep(toStepRecord(report), pointers);
            CommStats stats;
            QCOMPARE(stats.update(history, 2048), 1);
            QCOMPARE(stats.lastBytesSent(1), std::int64_t{1536});
            QCOMPARE(stats.bytesFromRingFormula(), formula);
        }
    }

    void oneDrainOfManyStepsKeepsEveryStepAndTheNewestDetail() {
        // A frame's worth of a fast run: every step reaches the series; the timeline and the
        // step-split window hold the newest steps (the older ones of the batch skip them).
        constexpr int kSteps = 3000;
        TelemetryHub hub(2, 4096);
        RunHistory history(2);
        TelemetryDrain drain(2);
        for (int step = 1; step <= kSteps; ++step) {
            hub.steps().tryPush(stepRecord(step));
            ReplicaRecord slow = replicaRecord(step, 1);
            if (step > kSteps - RunHistory::kSplitWindow) slow.computeEndNs = 4'000'000;  // the newest steps compute 4 ms
            if (step % 7 != 0) hub.replica(0).tryPush(replicaRecord(step, 0));            // replica 0 skips some steps
            hub.replica(1).tryPush(slow);
        }
        QCOMPARE(drain.drain(hub, history, false), std::size_t{kSteps});
        QCOMPARE(hub.steps().readable(), std::size_t{0});
        QCOMPARE(hub.replica(0).readable(), std::size_t{0});
        QCOMPARE(history.series(GlobalSeries::TrainLoss).appendedCount(), kSteps);
        QCOMPARE(history.replicaSeries(0, ReplicaSeries::GradNormBefore).appendedCount(), kSteps - kSteps / 7);
        QCOMPARE(history.replicaSeries(1, ReplicaSeries::GradNormBefore).appendedCount(), kSteps);
        QCOMPARE(history.timelineCount(), RunHistory::kTimelineSteps);
        QCOMPARE(history.timelineStep(0).step, kSteps - RunHistory::kTimelineSteps + 1);
        QCOMPARE(history.timelineStep(RunHistory::kTimelineSteps - 1).step, kSteps);
        QCOMPARE(history.timelineRecord(RunHistory::kTimelineSteps - 1, 1).step, kSteps);
        QCOMPARE(history.stepSplit(1).computeMs, 4.0);  // the window is the newest kSplitWindow steps
        QCOMPARE(history.stepSplit(0).computeMs, 2.0);
        QCOMPARE(history.rows().size(), std::size_t{kSteps});
    }

    void throughputWindowsGrowWithTheRun() {
        auto pointsFor = [](int steps, std::int64_t stepNs) {
            RunHistory history(1);
            std::vector<const ReplicaRecord*> none;
            for (int i = 1; i <= steps; ++i) {
                StepRecord step = stepRecord(i);
                step.startNs = (i - 1) * stepNs;
                step.endNs = i * stepNs;
                history.addStep(step, none);
            }
            return history.series(GlobalSeries::SamplesPerSecond).appendedCount();
        };
        // A run over in a tenth of a second (100 steps of 1 ms) still draws a curve...
        QVERIFY(pointsFor(100, 1'000'000) >= 20);
        // ... and a long one (100 s) settles at four points a second, plus its first moments.
        const std::int64_t longRun = pointsFor(10'000, 10'000'000);
        QVERIFY2(longRun >= 400 && longRun <= 560, qPrintable(QString::number(longRun)));
    }

    void historyMemoryIsFlatOverAMillionSteps() {
        RunHistory history(8);
        std::vector<ReplicaRecord> records(8);
        std::vector<const ReplicaRecord*> pointers;
        for (int r = 0; r < 8; ++r) pointers.push_back(&records[static_cast<std::size_t>(r)]);
        for (std::int64_t step = 1; step <= 1'000'000; ++step) {
            for (int r = 0; r < 8; ++r) records[static_cast<std::size_t>(r)] = replicaRecord(step, r);
            history.addStep(stepRecord(step), pointers);
        }
        QCOMPARE(history.stepsSeen(), 1'000'000);
        QVERIFY(history.rows().size() < 50'000);
        QCOMPARE(history.rows().back().step, 1'000'000);
        QVERIFY(history.series(GlobalSeries::TrainLoss).heldCount() <= 8192 + 1);
        QVERIFY(history.replicaSeries(7, ReplicaSeries::Watched).heldCount() <= 8192 + 1);
        QCOMPARE(history.timelineCount(), RunHistory::kTimelineSteps);
        QCOMPARE(history.timelineStep(RunHistory::kTimelineSteps - 1).step, 1'000'000);
    }
};

QTEST_GUILESS_MAIN(TestUiBridge)
#include "test_ui_bridge.moc"
