// Running a study (engine/include/distlab/study/study_runner.hpp): every variant trains its steps,
// its row's phase shares are the phase split of the very reports it trained on, cancelling one
// variant or all stops them and leaves the others, and the curves stay bounded.
#include <distlab/study/study_job.hpp>
#include <distlab/study/study_runner.hpp>
#include <distlab/study/study_table.hpp>

#include <QtTest>

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>

using namespace distlab;

namespace {

const std::string kBase = R"({"seed": 5, "model": {"layers": [{"units": 6, "activation": "tanh"}, {"units": 2}]},)"
                          R"( "data": {"samples": 300, "noise": 0.05, "global_batch_size": 16}, "optimizer": {"learning_rate": 0.1}})";

Study makeStudy(std::int64_t steps, const std::string& mode = "sequential", const std::string& extra = "") {
    const std::string text = R"({"name": "t", "base": )" + kBase + R"(, "steps": )" + std::to_string(steps) + R"(, "mode": ")" + mode +
                             "\"" + (extra.empty() ? "" : ", " + extra) +
                             R"(, "variants": [{"label": "one", "set": {}},)"
                             R"( {"label": "two", "set": {"strategy.type": "mirrored", "strategy.replicas": 2}}]})";
    Result<Study> study = parseStudy(text, "t.study.json", "/tmp");
    if (!study) qFatal("%s", study.error().message.c_str());
    return std::move(*study);
}

/// Sums the phase split of every report it hears, per variant, as an independent witness; and
/// cancels a variant after a given update when asked.
class Witness : public StudyObserver {
public:
    explicit Witness(StudyRunner* runner = nullptr, int cancelVariant = -1, std::int64_t cancelAt = 0)
        : m_runner(runner), m_cancelVariant(cancelVariant), m_cancelAt(cancelAt) {}
    void onVariantState(int variant, VariantState state, const std::string&) override {
        const std::lock_guard lock(m_mutex);
        states[variant].push_back(state);
    }
    void onStep(int variant, const StepReport& report, const std::optional<EvalResult>& test) override {
        const std::lock_guard lock(m_mutex);
        split[variant].add(splitStep(report));
        ++steps[variant];
        if (test) ++evaluations[variant];
        if (variant == m_cancelVariant && report.step == m_cancelAt) m_runner->cancel(variant);
    }
    void onPredicted(int variant) override {
        const std::lock_guard lock(m_mutex);
        predicted.push_back(variant);
        predictedBeforeTraining = predictedBeforeTraining && steps.empty();
    }
    std::vector<int> predicted;
    bool predictedBeforeTraining = true;
    std::map<int, PhaseSplit> split;
    std::map<int, std::int64_t> steps;
    std::map<int, std::int64_t> evaluations;
    std::map<int, std::vector<VariantState>> states;

private:
    std::mutex m_mutex;
    StudyRunner* m_runner;
    int m_cancelVariant;
    std::int64_t m_cancelAt;
};

}  // namespace

class TestStudyRunner : public QObject {
    Q_OBJECT

private slots:
    void everyVariantRunsAndItsSharesComeFromThePhaseSplit() {
        StudyRunner runner(makeStudy(40, "sequential", R"("target_accuracy": 0.55, "eval_every": 10)"));
        Witness witness;
        const std::vector<StudyRow> rows = runner.run(&witness);
        QCOMPARE(rows.size(), std::size_t{2});
        for (int v = 0; v < 2; ++v) {
            const StudyRow& row = rows[static_cast<std::size_t>(v)];
            QCOMPARE(row.state, VariantState::Finished);
            QCOMPARE(row.steps, std::int64_t{40});
            QCOMPARE(witness.steps[v], std::int64_t{40});
            QCOMPARE(witness.evaluations[v], std::int64_t{4});  // updates 10, 20, 30 and the last
            // The same reports, the same function, the same order of additions: equal to the bit.
            for (Phase phase : kPhases) QCOMPARE(row.phaseTotalsNs[phase], witness.split[v][phase]);
            const PhaseShares expected = phaseShares(witness.split[v]);
            QCOMPARE(row.shares.compute, expected.compute);
            QCOMPARE(row.shares.communication, expected.communication);
            QCOMPARE(row.shares.waiting, expected.waiting);
            QCOMPARE(row.shares.optimizer, expected.optimizer);
            QVERIFY(std::abs(row.shares.compute + row.shares.communication + row.shares.waiting + row.shares.optimizer - 1.0) < 1e-9);
            QVERIFY(row.samplesPerSecond > 0);
            QVERIFY(row.testLoss.has_value());
            QVERIFY(row.accuracy >= 0 && row.accuracy <= 1);
            QVERIFY(row.peakMemoryBytes.has_value() && *row.peakMemoryBytes > 0);
            QVERIFY(row.stepsToTarget.has_value());              // circle data passes 55 % within 40 updates
            QCOMPARE(*row.stepsToTarget % 10, std::int64_t{0});  // found at an evaluation
            QCOMPARE(witness.states[v], (std::vector<VariantState>{VariantState::Loading, VariantState::Running, VariantState::Finished}));
            QCOMPARE(runner.progress(v).state, VariantState::Finished);
            QCOMPARE(runner.progress(v).stepsDone, std::int64_t{40});
            QCOMPARE(runner.curves(v).steps.points().size(), std::size_t{40});
            QCOMPARE(runner.curves(v).evaluations.points().size(), std::size_t{4});
            // The last 32 updates' timelines, oldest first, one entry per lane.
            const std::vector<StudyTimelineStep> timelines = runner.curves(v).timelines.ordered();
            QCOMPARE(timelines.size(), std::size_t{32});
            QCOMPARE(timelines.front().step, std::int64_t{9});
            QCOMPARE(timelines.back().step, std::int64_t{40});
            QCOMPARE(timelines.back().lanes.size(), std::size_t(v + 1));
            const StudyTimelineStep& last = timelines.back();
            for (std::size_t lane = 0; lane < last.lanes.size(); ++lane) {
                QCOMPARE(last.lanes[lane].replica, static_cast<int>(lane));
                QVERIFY(last.lanes[lane].times.computeEndNs > last.lanes[lane].times.startNs);
                QVERIFY(last.lanes[lane].times.startNs >= last.startNs);
                QVERIFY(last.lanes[lane].times.updateEndNs <= last.endNs);
            }
            QCOMPARE(last.lanes[0].bytesSent > 0, v == 1);  // the mirrored variant sends, one device does not
        }
        QCOMPARE(rows[0].bytesPerStep, 0.0);  // one device reduces nothing
        QVERIFY(rows[1].bytesPerStep > 0);
        // Same seed and data, same global batch: the two strategies compute the same first loss (up
        // to the order of the float additions).
        QVERIFY(std::abs(runner.curves(0).steps.points()[0].loss - runner.curves(1).steps.points()[0].loss) < 1e-5);
    }

    void pipelineVariantsCarryTheirBubbleBesideTheFormula() {
        // One device, and 1F1B over 2 devices with 4 micro-batches (formula 1/5) on the virtual clock:
        // the table gains bubble columns; the pipeline's is its devices' mean, from its own steps.
        const std::string text = R"({"name": "t", "base": )" + kBase +
                                 R"(, "steps": 12, "variants": [{"label": "one", "set": {}},)"
                                 R"( {"label": "1f1b", "set": {"strategy.type": "pipeline", "strategy.stages": 2,)"
                                 R"( "strategy.micro_batches": 4, "clock": "virtual"}}]})";
        Result<Study> study = parseStudy(text, "t.study.json", "/tmp");
        QVERIFY2(study, study ? "" : study.error().message.c_str());
        StudyRunner runner(std::move(*study));
        const std::vector<StudyRow> rows = runner.run(nullptr);
        QVERIFY(!rows[0].bubble.has_value());
        QVERIFY(rows[1].bubble.has_value());
        QVERIFY2(*rows[1].bubble > 0.0 && *rows[1].bubble < 1.0, qPrintable(QString::number(*rows[1].bubble)));
        QCOMPARE(rows[1].bubbleTheory.value_or(-1.0), 1.0 / 5.0);
        const StudyTable table = makeStudyTable(rows, 0, {});
        QCOMPARE(table.header.back(), std::string("bubble_theory"));
        QCOMPARE(table.header[table.header.size() - 2], std::string("bubble"));
        QCOMPARE(table.rows[0].back(), std::string());
        QCOMPARE(table.rows[1].back(), std::string("0.200"));
        QVERIFY(!table.rows[1][table.header.size() - 2].empty());
    }

    void cancellingOneVariantLeavesTheOther() {
        StudyRunner runner(makeStudy(30));
        Witness witness(&runner, 0, 5);
        const std::vector<StudyRow> rows = runner.run(&witness);
        QCOMPARE(rows[0].state, VariantState::Cancelled);
        QCOMPARE(rows[0].steps, std::int64_t{5});
        QVERIFY(rows[0].testLoss.has_value());  // a stopped variant still gets its test figures
        QCOMPARE(rows[1].state, VariantState::Finished);
        QCOMPARE(rows[1].steps, std::int64_t{30});
    }

    void cancellingAllBeforeTheRunRunsNothing() {
        StudyRunner runner(makeStudy(30));
        runner.cancelAll();
        Witness witness;
        const std::vector<StudyRow> rows = runner.run(&witness);
        for (const StudyRow& row : rows) {
            QCOMPARE(row.state, VariantState::Cancelled);
            QCOMPARE(row.steps, std::int64_t{0});
        }
        QVERIFY(witness.steps.empty());
        QCOMPARE(makeStudyTable(rows, 0).rows[0][1], std::string("cancelled"));
    }

    void simultaneousVariantsRunAtOnce() {
        StudyRunner runner(makeStudy(25, "simultaneous"));
        Witness witness(&runner, 1, 10);
        const std::vector<StudyRow> rows = runner.run(&witness);
        QCOMPARE(rows[0].state, VariantState::Finished);
        QCOMPARE(rows[0].steps, std::int64_t{25});
        QCOMPARE(rows[1].state, VariantState::Cancelled);
        QCOMPARE(rows[1].steps, std::int64_t{10});
        QVERIFY(!rows[0].peakMemoryBytes.has_value());  // the accounting cannot tell variants apart
        for (Phase phase : kPhases) QCOMPARE(rows[0].phaseTotalsNs[phase], witness.split[0][phase]);
    }

    void aVariantThatCannotBeBuiltFailsAlone() {
        const std::string text = R"({"base": )" + kBase +
                                 R"(, "steps": 5, "variants": [{"label": "ok", "set": {}},)"
                                 R"( {"label": "no data", "set": {"data.source": "csv", "data.path": "/nonexistent/d.csv"}}]})";
        Result<Study> study = parseStudy(text, "t.study.json", "/tmp");
        QVERIFY2(study.ok(), study.ok() ? "" : study.error().message.c_str());
        StudyRunner runner(std::move(*study));
        const std::vector<StudyRow> rows = runner.run();
        QCOMPARE(rows[0].state, VariantState::Finished);
        QCOMPARE(rows[1].state, VariantState::Failed);
        QVERIFY(rows[1].buildFailed);
        QVERIFY2(rows[1].message.find("data.path") != std::string::npos, rows[1].message.c_str());
    }

    void aJobRunsOnItsOwnThread() {
        Witness witness;
        StudyJob job(makeStudy(20), &witness);
        QTRY_VERIFY_WITH_TIMEOUT(job.finished(), 30000);
        for (int v = 0; v < 2; ++v) {
            QCOMPARE(job.runner().row(v).state, VariantState::Finished);
            QCOMPARE(job.runner().row(v).steps, std::int64_t{20});
            // The curves carry each update's phase split, the one the row sums.
            double compute = 0;
            const StudyCurves curves = job.runner().curves(v);
            for (const StudyCurvePoint& point : curves.steps.points()) compute += point.computeMs;
            QVERIFY(std::abs(compute * 1e6 - job.runner().row(v).phaseTotalsNs[Phase::Compute]) < 1e-3 * compute * 1e6 + 1.0);
        }
    }

    void droppingAJobCancelsIt() {
        Witness witness;  // outlives the job: what it heard is read after the job is gone
        std::optional<StudyJob> job(std::in_place, makeStudy(100'000'000), &witness);
        QTRY_VERIFY_WITH_TIMEOUT(job->runner().progress(0).stepsDone > 0, 30000);
        QVERIFY(!job->finished());
        QElapsedTimer dropping;
        dropping.start();
        job.reset();  // cancels and joins within an update (an update of this model takes microseconds)
        const qint64 droppedMs = dropping.elapsed();
        QVERIFY2(droppedMs < 5000, qPrintable(QString("dropping the job took %1 ms").arg(droppedMs)));
        // The running variant ended cancelled, far short of its 100,000,000 updates; none finished.
        QVERIFY(!witness.states[0].empty());
        QCOMPARE(witness.states[0].back(), VariantState::Cancelled);
        for (const auto& [variant, states] : witness.states)
            QVERIFY2(std::find(states.begin(), states.end(), VariantState::Finished) == states.end(), qPrintable(QString::number(variant)));
        QVERIFY(witness.steps[0] > 0 && witness.steps[0] < 100'000'000);
    }

    void stepTimesArePredictedBeforeTraining() {
        const std::string text = R"({"base": )" + kBase +
                                 R"(, "steps": 5, "variants": [{"label": "one", "set": {}},)"
                                 R"( {"label": "two", "set": {"strategy.type": "mirrored", "strategy.replicas": 2}},)"
                                 R"( {"label": "central", "set": {"strategy.type": "central_storage", "strategy.replicas": 2}},)"
                                 R"( {"label": "pipe", "set": {"strategy.type": "pipeline", "strategy.stages": 2,)"
                                 R"( "strategy.micro_batches": 4, "clock": "virtual"}}]})";
        Result<Study> study = parseStudy(text, "t.study.json", "/tmp");
        QVERIFY(study.ok());
        StudyRunner runner(std::move(*study));
        runner.setPredictStepTimes(true);
        Witness witness;
        const std::vector<StudyRow> rows = runner.run(&witness);
        QCOMPARE(witness.predicted, (std::vector<int>{0, 1, 2, 3}));
        // The pipeline's: its passes placed by the schedule at its stages' calibrated times, then the updates.
        QVERIFY2(runner.prediction(3).has_value(), runner.predictionNote(3).c_str());
        QVERIFY(runner.prediction(3)->computeMs > 0 && runner.prediction(3)->stepMs > runner.prediction(3)->computeMs);
        QVERIFY(witness.predictedBeforeTraining);
        QVERIFY(runner.prediction(0).has_value() && runner.prediction(0)->stepMs > 0);
        QVERIFY(runner.prediction(1).has_value() && runner.prediction(1)->communicationMs > 0);
        QVERIFY(!runner.prediction(2).has_value());
        QCOMPARE(QString::fromStdString(runner.predictionNote(2)),
                 QStringLiteral("the step-time model does not cover central_storage yet"));
        const StudyTable table = makeStudyTable(rows, 0, runner.predictions());
        const auto error = std::find(table.header.begin(), table.header.end(), std::string("prediction_error")) - table.header.begin();
        QVERIFY(error < std::ssize(table.header));
        QVERIFY(!table.rows[0][static_cast<std::size_t>(error)].empty());
        QVERIFY(table.rows[2][static_cast<std::size_t>(error)].empty());
    }

    // The example that compares async with sync parameter servers (4 workers, batch 64 each): a sync
    // update averages 4 workers' batches (256 samples; "3 of 4": 192), an async one applies one
    // worker's (64). samples/s counts them all, so the table's ranking is the truth in samples/s
    // (before, every update counted 64 samples and sync read 0.397x async where it was 1.6x).
    void parameterServerSamplesCountEveryAveragedGradient() {
        Result<Study> study = loadStudy(std::string(DISTLAB_EXAMPLES_DIR) + "/parameter-server-sync-async.study.json");
        QVERIFY2(study.ok(), study ? "" : study.error().message.c_str());
        for (StudyVariant& variant : study->variants) variant.config.steps = 60;
        StudyRunner runner(std::move(*study));
        const std::vector<StudyRow> rows = runner.run(nullptr);
        QCOMPARE(rows.size(), std::size_t{3});
        const std::int64_t perUpdate[3] = {64, 4 * 64, 3 * 64};  // async, sync, sync 3 of 4
        for (std::size_t v = 0; v < rows.size(); ++v) {
            QCOMPARE(rows[v].state, VariantState::Finished);
            QCOMPARE(rows[v].steps, std::int64_t{60});
            QCOMPARE(rows[v].samples, 60 * perUpdate[v]);
            QCOMPARE(rows[v].samplesPerSecond, double(60 * perUpdate[v]) / rows[v].trainingSeconds);
            QCOMPARE(runner.study().variants[v].config.samplesPerUpdate(), perUpdate[v]);
        }
        const StudyTable table = makeStudyTable(rows, 0);
        const auto speedColumn = std::find(table.header.begin(), table.header.end(), "speed_vs_baseline") - table.header.begin();
        const double syncRatio = std::stod(table.rows[1][static_cast<std::size_t>(speedColumn)]);
        const double truth = (60.0 * 256 / rows[1].trainingSeconds) / (60.0 * 64 / rows[0].trainingSeconds);
        // The table prints the ratio with three decimals: equal up to that rounding.
        QVERIFY2(std::abs(syncRatio - truth) <= 0.0005 + 1e-9, qPrintable(QStringLiteral("%1 vs %2").arg(syncRatio).arg(truth)));
    }

    void thinnedCurvesStayBoundedAndSpanTheRun() {
        ThinnedSeries<std::int64_t> series(16);
        for (std::int64_t i = 0; i < 10000; ++i) series.add(i);
        const auto& points = series.points();
        QVERIFY(points.size() >= 8 && points.size() <= 16);
        QCOMPARE(points.front(), std::int64_t{0});
        const std::int64_t stride = points[1] - points[0];
        for (std::size_t i = 1; i < points.size(); ++i) QCOMPARE(points[i] - points[i - 1], stride);  // evenly spaced
        QVERIFY(points.back() + 2 * stride > 9999);                                                   // up to the end of the run
    }
};

QTEST_GUILESS_MAIN(TestStudyRunner)
#include "test_study_runner.moc"
