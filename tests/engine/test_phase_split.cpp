// The one phase split (compute / communication / waiting / optimizer / idle) on worked numbers:
// one replica, a step's mean over its active replicas, the timeline spans, odd timestamps.
#include <QtTest>

#include "distlab/telemetry/step_report.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "distlab/telemetry/step_records.hpp"

using namespace distlab;

namespace {
ReplicaStepStats stats(std::int64_t start, std::int64_t computeEnd, std::int64_t commEnd, std::int64_t updateEnd, std::int64_t wait,
                       bool active = true) {
    ReplicaStepStats s;
    s.startNs = start;
    s.computeEndNs = computeEnd;
    s.commEndNs = commEnd;
    s.updateEndNs = updateEnd;
    s.commWaitNs = wait;
    s.active = active;
    return s;
}
}  // namespace

class TestPhaseSplit : public QObject {
    Q_OBJECT
private slots:
    void oneReplicaWorkedNumbers() {
        // compute 0-20, reduction 20-50 of which 10 waiting, optimizer 50-60, idle 60-75.
        const PhaseSplit split = splitPhases(stepTimes(stats(0, 20, 50, 60, 10), 75));
        QCOMPARE(split[Phase::Compute], 20.0);
        QCOMPARE(split[Phase::Communication], 20.0);
        QCOMPARE(split[Phase::Waiting], 10.0);
        QCOMPARE(split[Phase::Optimizer], 10.0);
        QCOMPARE(split[Phase::Idle], 15.0);
        QCOMPARE(split.total(), 75.0);
    }

    void aStepIsTheMeanOverItsActiveReplicas() {
        StepReport report;
        report.endNs = 100;
        report.replicas = {stats(0, 40, 60, 70, 5), stats(0, 20, 60, 80, 30), stats(0, 99, 99, 99, 0, /*active=*/false)};
        const PhaseSplit split = splitStep(report);
        QCOMPARE(split[Phase::Compute], 30.0);        // (40 + 20) / 2
        QCOMPARE(split[Phase::Waiting], 17.5);        // (5 + 30) / 2
        QCOMPARE(split[Phase::Communication], 12.5);  // (15 + 10) / 2
        QCOMPARE(split[Phase::Optimizer], 15.0);      // (10 + 20) / 2
        QCOMPARE(split[Phase::Idle], 25.0);           // (30 + 20) / 2
        report.replicas = {stats(0, 1, 2, 3, 0, false)};
        QCOMPARE(splitStep(report).total(), 0.0);  // nobody took part
    }

    void oddTimestampsNeverGiveNegativeTimes() {
        // A wait longer than the reduction (clock granularity) and a replica done after the step.
        const PhaseSplit split = splitPhases(stepTimes(stats(10, 5, 30, 40, 100), 35));
        for (double value : split.ns) QVERIFY(value >= 0.0);
        QCOMPARE(split[Phase::Compute], 0.0);
        QCOMPARE(split[Phase::Waiting], 25.0);
        QCOMPARE(split[Phase::Communication], 0.0);
        QCOMPARE(split[Phase::Idle], 0.0);
    }

    void aStepLastsFromItsEarliestLaneToItsEnd() {
        // A parameter-server update at 100-110 applied a gradient pulled at 40 (the active lane),
        // while another lane's older times do not count: the step lasted 70, not 10.
        StepReport report;
        report.startNs = 100;
        report.endNs = 110;
        report.replicas = {stats(40, 80, 95, 108, 0), stats(5, 6, 7, 8, 0)};
        report.replicas[1].active = false;
        QCOMPARE(stepDurationNs(report), std::int64_t{70});
        QVERIFY(double(stepDurationNs(report)) >= splitStep(report).total() - 1e-9);
        // The record the app drains carries the same length.
        QCOMPARE(toStepRecord(report).durationNs, std::int64_t{70});
        // Mirrored: the lanes lie inside the step.
        report.startNs = 0;
        report.endNs = 120;
        QCOMPARE(stepDurationNs(report), std::int64_t{120});
    }

    void timestampsComeFromSpans() {
        // Two micro-batches, two packs (waiting 3 and 4 ns inside them), the update.
        const Span spans[] = {
            {10, 20, 0, 0, 0, -1, SpanKind::Forward},     {20, 35, 0, 0, 0, -1, SpanKind::Backward},
            {35, 45, 0, 0, 1, -1, SpanKind::Forward},     {45, 60, 0, 0, 1, -1, SpanKind::Backward},
            {60, 70, 100, 3, -1, 0, SpanKind::AllReduce}, {70, 82, 50, 4, -1, 1, SpanKind::AllReduce},
            {82, 90, 0, 0, -1, -1, SpanKind::Optimizer},
        };
        const StepTimes t = stepTimes(8, spans, 100);
        QCOMPARE(t.startNs, std::int64_t{8});
        QCOMPARE(t.computeEndNs, std::int64_t{60});
        QCOMPARE(t.commEndNs, std::int64_t{82});
        QCOMPARE(t.commWaitNs, std::int64_t{7});
        QCOMPARE(t.updateEndNs, std::int64_t{90});
        const PhaseSplit split = splitPhases(t);
        QCOMPARE(split[Phase::Compute], 52.0);
        QCOMPARE(split[Phase::Communication], 15.0);
        QCOMPARE(split[Phase::Waiting], 7.0);
        QCOMPARE(split[Phase::Optimizer], 8.0);
        QCOMPARE(split[Phase::Idle], 10.0);
        // One replica, no collectives: the reduction takes no time.
        const Span alone[] = {
            {0, 5, 0, 0, 0, -1, SpanKind::Forward}, {5, 9, 0, 0, 0, -1, SpanKind::Backward}, {9, 11, 0, 0, -1, -1, SpanKind::Optimizer}};
        const StepTimes a = stepTimes(0, alone, 11);
        QCOMPARE(a.commEndNs, std::int64_t{9});
        QCOMPARE(splitPhases(a)[Phase::Communication], 0.0);
        QCOMPARE(phaseOf(SpanKind::AllReduce), Phase::Communication);
        QCOMPARE(QString(spanKindName(SpanKind::AllReduce)), QString("all_reduce"));
    }

    void aNetworkHopCountsOnceWithinItsAllReduce() {
        // A multi-worker lead's pack: the all-reduce 60-80 waiting 5, its network hop 64-78
        // waiting the same 5 (Gloo's part of the all-reduce). The hop adds no time and no wait.
        const Span spans[] = {
            {0, 20, 0, 0, 0, -1, SpanKind::Forward},      {20, 60, 0, 0, 0, -1, SpanKind::Backward},
            {60, 80, 300, 5, -1, 0, SpanKind::AllReduce}, {64, 78, 200, 5, -1, 0, SpanKind::Network},
            {80, 90, 0, 0, -1, -1, SpanKind::Optimizer},
        };
        const StepTimes t = stepTimes(0, spans, 90);
        QCOMPARE(t.commEndNs, std::int64_t{80});
        QCOMPARE(t.commWaitNs, std::int64_t{5});
        const PhaseSplit split = splitPhases(t);
        QCOMPARE(split[Phase::Communication], 15.0);
        QCOMPARE(split[Phase::Waiting], 5.0);
        QCOMPARE(split.total(), 90.0);
        QCOMPARE(phaseOf(SpanKind::Network), Phase::Communication);
        QCOMPARE(QString(spanKindName(SpanKind::Network)), QString("network"));
    }

    void spansFollowTheTimestamps() {
        const auto spans = phaseSpans(stepTimes(stats(0, 20, 50, 60, 10), 75));
        QCOMPARE(spans[0].phase, Phase::Compute);
        QCOMPARE(spans[1].phase, Phase::Communication);
        QCOMPARE(spans[1].beginNs, std::int64_t{20});
        QCOMPARE(spans[1].endNs, std::int64_t{50});
        QCOMPARE(spans[2].phase, Phase::Optimizer);
        QCOMPARE(spans[3].phase, Phase::Idle);
        QCOMPARE(spans[3].endNs, std::int64_t{75});
        QCOMPARE(QString(phaseName(Phase::Waiting)), QString("waiting"));
    }
};

QTEST_APPLESS_MAIN(TestPhaseSplit)
#include "test_phase_split.moc"
