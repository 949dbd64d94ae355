// Pipeline schedules against their closed forms: every device's order holds each pass once, the
// discrete-event timeline of equal stages has exactly the bubble the formulas give, (p − 1)/(m + p − 1)
// for GPipe and 1F1B, (p − 1)/(v·m + p − 1) for interleaved and (p − 1)/(3m + p − 1) for ZB-H1 once
// m ≥ p, GPipe holds m
// micro-batches' activations and 1F1B at most p, and the shapes a schedule cannot run are refused.
#include <QtTest>

#include <algorithm>
#include <set>
#include <tuple>

#include "distlab/distribute/pipeline_placement.hpp"
#include "distlab/distribute/pipeline_schedule.hpp"

using namespace distlab;

namespace {

/// The most micro-batches whose forward has run and backward (or B) has not, at any point of
/// `passes`: the activations a device holds at once.
int peakInFlight(const std::vector<PipelinePass>& passes) {
    int inFlight = 0, peak = 0;
    for (const PipelinePass& pass : passes) {
        if (pass.kind == PassKind::Forward) ++inFlight;
        if (pass.kind == PassKind::Backward || pass.kind == PassKind::BackwardInput) --inFlight;
        peak = std::max(peak, inFlight);
    }
    return peak;
}

/// Every (kind, micro-batch, chunk) once on each device: a forward and a backward of each, or a
/// forward, a B and a W (`kinds` 3).
bool eachPassOnce(const std::vector<PipelinePass>& passes, const PipelineShape& shape, int kinds = 2) {
    std::set<std::tuple<int, int, int>> seen;
    for (const PipelinePass& pass : passes) seen.insert({static_cast<int>(pass.kind), pass.microBatch, pass.chunk});
    return seen.size() == passes.size() && passes.size() == static_cast<std::size_t>(kinds * shape.microBatches * shape.virtualStages);
}

}  // namespace

class TestPipelineSchedule : public QObject {
    Q_OBJECT
private slots:
    void gpipeAndOneFOneBHaveTheBubbleOfTheFormula() {
        // A backward takes twice a forward, as a dense layer's does; the formula holds for any ratio.
        for (const PipelineSchedule schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
            for (int p = 2; p <= 8; ++p) {
                for (int m = 1; m <= 16; ++m) {
                    const PipelineShape shape{p, m, 1};
                    const auto order = pipelineOrder(schedule, shape);
                    QVERIFY2(order.ok(), order ? "" : order.error().message.c_str());
                    const auto timeline = simulatePipeline(*order, shape, PassTimes{});
                    QVERIFY2(timeline.ok(), timeline ? "" : timeline.error().message.c_str());
                    // (m + p − 1) forward-and-backward times: m of work, p − 1 of filling and draining.
                    QCOMPARE(timeline->makespan, 3.0 * (m + p - 1));
                    for (int d = 0; d < p; ++d) {
                        QVERIFY(eachPassOnce((*order)[d], shape));
                        QVERIFY(qAbs(timeline->bubbleFraction(d) - theoreticalBubbleFraction(schedule, shape)) < 1e-12);
                        // GPipe keeps every micro-batch's activations until its backward; 1F1B at most
                        // p − d (its warm-up forwards and the one in flight).
                        const int expected = schedule == PipelineSchedule::GPipe ? m : std::min(m, p - d);
                        QCOMPARE(peakInFlight((*order)[d]), expected);
                    }
                }
            }
        }
    }

    void interleavingShrinksTheBubbleAsTheFormulaSays() {
        // v chunks a device, each a v-th of the device's layers: a chunk's pass takes 1/v of a stage's.
        for (int p = 2; p <= 8; ++p) {
            for (int v = 2; v <= 4; ++v) {
                for (int m = p; m <= 16; m += p) {
                    const PipelineShape shape{p, m, v};
                    const auto order = pipelineOrder(PipelineSchedule::Interleaved, shape);
                    QVERIFY2(order.ok(), order ? "" : order.error().message.c_str());
                    const auto timeline = simulatePipeline(*order, shape, PassTimes{1.0 / v, 2.0 / v});
                    QVERIFY2(timeline.ok(), timeline ? "" : timeline.error().message.c_str());
                    const double theory = theoreticalBubbleFraction(PipelineSchedule::Interleaved, shape);
                    const double oneFOneB = theoreticalBubbleFraction(PipelineSchedule::OneFOneB, PipelineShape{p, m, 1});
                    for (int d = 0; d < p; ++d) {
                        QVERIFY(eachPassOnce((*order)[d], shape));
                        const double bubble = timeline->bubbleFraction(d);
                        QVERIFY2(
                            qAbs(bubble - theory) < 1e-12,
                            qPrintable(
                                QString("p %1, v %2, m %3, device %4: %5 against %6").arg(p).arg(v).arg(m).arg(d).arg(bubble).arg(theory)));
                        QVERIFY(bubble < oneFOneB);
                    }
                }
            }
        }
    }

    void zeroBubbleH1FillsTheRampWithWeightGradients() {
        // B and W a forward's time each: a whole backward's two split in two.
        for (int p = 2; p <= 8; ++p) {
            for (int m = 1; m <= 16; ++m) {
                const PipelineShape shape{p, m, 1};
                const auto order = pipelineOrder(PipelineSchedule::ZeroBubbleH1, shape);
                QVERIFY2(order.ok(), order ? "" : order.error().message.c_str());
                const auto timeline = simulatePipeline(*order, shape, PassTimes{});
                QVERIFY2(timeline.ok(), timeline ? "" : timeline.error().message.c_str());
                const double theory = theoreticalBubbleFraction(PipelineSchedule::ZeroBubbleH1, shape);
                const double oneFOneB = theoreticalBubbleFraction(PipelineSchedule::OneFOneB, shape);
                for (int d = 0; d < p; ++d) {
                    QVERIFY(eachPassOnce((*order)[d], shape, 3));
                    // 1F1B's memory: at most p − d micro-batches between their forward and their B.
                    QVERIFY(peakInFlight((*order)[d]) <= std::min(m, p - d));
                    const double bubble = timeline->bubbleFraction(d);
                    const QString where = QString("p %1, m %2, device %3: %4 against %5").arg(p).arg(m).arg(d).arg(bubble).arg(theory);
                    // The closed form holds once there is a steady phase (m >= p); below it the
                    // bubble is larger, still smaller than 1F1B's.
                    if (m >= p)
                        QVERIFY2(qAbs(bubble - theory) < 1e-12, qPrintable(where));
                    else
                        QVERIFY2(bubble > theory && bubble < oneFOneB, qPrintable(where));
                }
            }
        }
    }

    void shapesAScheduleCannotRunAreRefusedWithTheReason_data() {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("microBatches");
        QTest::addColumn<int>("virtualStages");
        QTest::addColumn<QString>("reason");
        QTest::newRow("no device") << int(PipelineSchedule::GPipe) << 0 << 4 << 1 << "at least one device";
        QTest::newRow("no micro-batch") << int(PipelineSchedule::OneFOneB) << 2 << 0 << 1 << "at least one micro-batch";
        QTest::newRow("chunks without interleaving") << int(PipelineSchedule::OneFOneB) << 2 << 4 << 2 << "for the interleaved schedule";
        QTest::newRow("zero bubble with chunks") << int(PipelineSchedule::ZeroBubbleH1) << 2 << 4 << 2 << "for the interleaved schedule";
        QTest::newRow("interleaving one chunk") << int(PipelineSchedule::Interleaved) << 2 << 4 << 1 << "at least 2 virtual stages";
        QTest::newRow("micro-batches not in rounds") << int(PipelineSchedule::Interleaved) << 4 << 6 << 2 << "a multiple of the 4 devices";
    }
    void shapesAScheduleCannotRunAreRefusedWithTheReason() {
        QFETCH(int, schedule);
        QFETCH(int, devices);
        QFETCH(int, microBatches);
        QFETCH(int, virtualStages);
        QFETCH(QString, reason);
        const auto order = pipelineOrder(static_cast<PipelineSchedule>(schedule), PipelineShape{devices, microBatches, virtualStages});
        QVERIFY(!order.ok());
        QVERIFY2(QString::fromStdString(order.error().message).contains(reason), order.error().message.c_str());
    }

    void aRunsStagePassTimesGiveItsScheduleAtThoseTimes() {
        // Two lanes' spans: stage 0 forwards of 10 and 12 ns and a backward of 30; stage 1 a forward of 20.
        StepReport report;
        report.replicas.resize(2);
        const std::vector<Span> first = {
            Span{0, 10, 0, 0, 0, -1, SpanKind::Forward, false, 0}, Span{10, 22, 0, 0, 1, -1, SpanKind::Forward, false, 0},
            Span{22, 52, 0, 0, 0, -1, SpanKind::Backward, false, 0}, Span{52, 57, 0, 0, -1, -1, SpanKind::Optimizer}};
        const std::vector<Span> second = {Span{10, 30, 0, 0, 0, -1, SpanKind::Forward, false, 1}};
        report.replicas[0].spans = first;
        report.replicas[1].spans = second;
        BubbleMeter meter;
        meter.add(report);
        const std::vector<PassTimes> stages = meter.meanStageTimes();
        QCOMPARE(stages.size(), std::size_t{2});
        QCOMPARE(stages[0].forward, 11.0);
        QCOMPARE(stages[0].backward, 30.0);
        QCOMPARE(stages[0].backwardWeight, 11.0);  // not run: PassTimes{}'s ratio to the stage's forward
        QCOMPARE(stages[1].forward, 20.0);
        QCOMPARE(stages[1].backward, 40.0);

        // Equal stages: GPipe's and 1F1B's bubble is (p − 1)(F + B) of (m + p − 1)(F + B), whatever
        // F : B: 2/6 for p = 3, m = 4, on each device of each data-parallel copy.
        RunConfig config;
        config.strategy.type = StrategyKind::Pipeline;
        config.strategy.stages = 3;
        config.strategy.microBatches = 4;
        config.strategy.dataParallel = 2;
        const std::vector<PassTimes> equal(3, PassTimes{1.0, 5.0, 1.0, 1.0});
        for (const PipelineSchedule schedule : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
            config.strategy.schedule = schedule;
            const std::vector<double> lanes = simulatedBubbles(config, equal);
            QCOMPARE(lanes.size(), std::size_t{6});
            for (const double bubble : lanes) QVERIFY2(qAbs(bubble - 2.0 / 6.0) < 1e-12, qPrintable(QString::number(bubble)));
        }
        // Unequal stages (worked by hand): GPipe, p = 2, m = 2, stage 0 F 1 B 2, stage 1 F 2 B 4.
        // cpu:0 F0 [0, 1], F1 [1, 2]; cpu:1 F0 [1, 3], F1 [3, 5], B0 [5, 9], B1 [9, 13]; cpu:0 B0
        // [9, 11], B1 [13, 15]. Makespan 15: cpu:0 busy 6 (bubble 0.6), cpu:1 busy 12 (0.2).
        config.strategy.schedule = PipelineSchedule::GPipe;
        config.strategy.stages = 2;
        config.strategy.microBatches = 2;
        config.strategy.dataParallel = 1;
        const std::vector<PassTimes> unequal = {PassTimes{1.0, 2.0, 1.0, 1.0}, PassTimes{2.0, 4.0, 2.0, 2.0}};
        const std::vector<double> lanes = simulatedBubbles(config, unequal);
        QCOMPARE(lanes.size(), std::size_t{2});
        QVERIFY2(qAbs(lanes[0] - 0.6) < 1e-12 && qAbs(lanes[1] - 0.2) < 1e-12,
                 qPrintable(QStringLiteral("%1 %2").arg(lanes[0]).arg(lanes[1])));
        // ZB-H1's formula is for equal F, B and W, which the simulation at equal times reproduces.
        config.strategy.schedule = PipelineSchedule::ZeroBubbleH1;
        config.strategy.microBatches = 4;
        const std::vector<double> zeroBubble = simulatedBubbles(config, std::vector<PassTimes>(2, PassTimes{}));
        const double formula = theoreticalBubbleFraction(PipelineSchedule::ZeroBubbleH1, PipelineShape{2, 4, 1});
        for (const double bubble : zeroBubble) QVERIFY2(qAbs(bubble - formula) < 1e-12, qPrintable(QString::number(bubble)));
        // Too few stages' times, or model_parallel (no closed-form schedule): nothing.
        QVERIFY(simulatedBubbles(config, std::vector<PassTimes>(1)).empty());
        config.strategy.type = StrategyKind::ModelParallel;
        QVERIFY(simulatedBubbles(config, equal).empty());
    }

    void anOrderThatCannotFinishIsAnErrorNotAHang() {
        // Device 1 (the last stage) would run micro-batch 0's backward before its forward.
        const PipelineShape shape{2, 1, 1};
        const std::vector<std::vector<PipelinePass>> order{{{PassKind::Forward, 0, 0}, {PassKind::Backward, 0, 0}},
                                                           {{PassKind::Backward, 0, 0}, {PassKind::Forward, 0, 0}}};
        const auto timeline = simulatePipeline(order, shape, PassTimes{});
        QVERIFY(!timeline.ok());
        QVERIFY(QString::fromStdString(timeline.error().message).contains("cannot finish"));
    }
};

QTEST_APPLESS_MAIN(TestPipelineSchedule)
#include "test_pipeline_schedule.moc"
