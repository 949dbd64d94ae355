// The equivalence lab (engine/include/distlab/study/equivalence.hpp): variants that must compute
// the baseline's update stay within float rounding of it, and not all at exactly zero where they
// add in another order; asynchronous parameter servers drift far more; the classification names
// why; the CSV holds every update; cancel stops the lockstep.
#include <distlab/study/equivalence.hpp>

#include <QtTest>

#include <cmath>
#include <thread>

using namespace distlab;

namespace {

// A small classifier with Adam: Adam divides by sqrt(v), which amplifies rounding more than SGD.
const std::string kBase = R"({"seed": 3, "model": {"layers": [{"units": 8, "activation": "tanh"}, {"units": 2}]},)"
                          R"( "data": {"kind": "spiral", "samples": 400, "noise": 0.05, "global_batch_size": 32},)"
                          R"( "optimizer": {"type": "adam", "learning_rate": 0.01}})";

Study makeStudy(std::int64_t steps, const std::string& extraVariant = "") {
    const std::string text =
        R"({"name": "eq", "equivalence": true, "base": )" + kBase + R"(, "steps": )" + std::to_string(steps) +
        R"(, "variants": [{"label": "one device", "set": {}},)"
        R"( {"label": "mirrored 2 ring", "set": {"strategy.type": "mirrored", "strategy.replicas": 2, "strategy.cross_device_ops": "ring"}},)"
        R"( {"label": "mirrored 4 hierarchical", "set": {"strategy.type": "mirrored", "strategy.replicas": 4,)"
        R"( "strategy.cross_device_ops": "hierarchical_copy", "strategy.num_packs": 2}},)"
        R"( {"label": "accumulation 2", "set": {"strategy.gradient_accumulation_steps": 2}})" +
        extraVariant + "]}";
    Result<Study> study = parseStudy(text, "eq.study.json", "/tmp");
    if (!study) qFatal("%s", study.error().message.c_str());
    return std::move(*study);
}

const std::string kAsync =
    R"(, {"label": "async ps", "set": {"strategy.type": "parameter_server", "strategy.workers": 2, "strategy.mode": "async"}})";

}  // namespace

class TestEquivalence : public QObject {
    Q_OBJECT

private slots:
    void theFileKeyRoundTrips() {
        const Study study = makeStudy(5);
        QVERIFY(study.spec.equivalence);
        QVERIFY(studyToJson(study.spec).find("\"equivalence\": true") != std::string::npos);
        auto again = parseStudy(studyToJson(study.spec), "eq.study.json", "/tmp");
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QVERIFY(again->spec.equivalence);
        auto wrong = parseStudy(
            R"({"equivalence": 1, "base": )" + kBase + R"(, "variants": [{"label": "a", "set": {}}, {"label": "b", "set": {}}]})",
            "w.study.json", "/tmp");
        QVERIFY(!wrong);
        QVERIFY2(wrong.error().message.find("w.study.json: equivalence") != std::string::npos, wrong.error().message.c_str());
    }

    void variantsAreClassifiedWithAReason() {
        EquivalenceRun run(makeStudy(5, kAsync + R"(, {"label": "batch 64", "set": {"data.global_batch_size": 64}})"));
        QCOMPARE(run.verdict(0).kind, EquivalenceClass::Baseline);
        for (int v = 1; v <= 3; ++v) {
            QCOMPARE(run.verdict(v).kind, EquivalenceClass::MustEqual);
            QVERIFY(run.verdict(v).orderDiffers);
            QVERIFY(run.verdict(v).explanation.find("not associative") != std::string::npos);
        }
        QVERIFY(run.verdict(1).summationOrder.find("ring") != std::string::npos);
        QVERIFY(run.verdict(2).summationOrder.find("hierarchical") != std::string::npos);
        QVERIFY(run.verdict(2).summationOrder.find("2 packs") != std::string::npos);
        QVERIFY(run.verdict(3).summationOrder.find("2 micro-batches of 16") != std::string::npos);
        QVERIFY(run.verdict(2).reason.find("docs/semantics.md §4.2") != std::string::npos);
        QCOMPARE(run.verdict(4).kind, EquivalenceClass::MayDiffer);
        QVERIFY(run.verdict(4).reason.find("staleness") != std::string::npos);
        QCOMPARE(run.verdict(5).kind, EquivalenceClass::MayDiffer);
        QVERIFY(run.verdict(5).reason.find("global batch (64 vs 32)") != std::string::npos);

        // The same config as the baseline: the same order, bit-identical expected.
        const RunConfig& one = run.study().variants[0].config;
        const EquivalenceVerdict same = classifyEquivalence(one, one, true);
        QCOMPARE(same.kind, EquivalenceClass::MustEqual);
        QVERIFY(!same.orderDiffers);
    }

    void mustEqualVariantsStayWithinRoundingAndAsyncDrifts() {
        constexpr std::int64_t kSteps = 50;
        EquivalenceRun run(makeStudy(kSteps, kAsync));
        run.run();
        double largestMustEqual = 0.0;
        bool someNonZero = false;
        for (int v = 0; v < run.variantCount(); ++v) {
            const EquivalenceProgress progress = run.progress(v);
            QCOMPARE(progress.state, VariantState::Finished);
            QCOMPARE(progress.stepsDone, kSteps);
            if (v == 0) continue;
            QVERIFY(progress.compared);
            QCOMPARE(run.history(v).size(), std::size_t(kSteps));  // every update while they fit
            QCOMPARE(run.history(v).back().step, kSteps);
            qInfo("%s: last rel %.3g abs %.3g at %s[%lld], worst rel %.3g at update %lld, loss diff %.3g",
                  run.study().variants[static_cast<std::size_t>(v)].label.c_str(), progress.latest.maxRelative, progress.latest.maxAbsolute,
                  run.parameterName(progress.latest.parameter).c_str(), static_cast<long long>(progress.latest.element),
                  progress.worst.maxRelative, static_cast<long long>(progress.worst.step), progress.latest.lossDifference);
            if (run.verdict(v).kind == EquivalenceClass::MustEqual) {
                QVERIFY2(progress.worst.maxRelative < 1e-5, run.study().variants[static_cast<std::size_t>(v)].label.c_str());
                largestMustEqual = std::max(largestMustEqual, progress.worst.maxRelative);
                someNonZero = someNonZero || progress.worst.maxAbsolute > 0.0;
                QVERIFY(!run.parameterName(progress.latest.parameter).empty());
            }
        }
        // Another order of additions shows in the last bits somewhere.
        QVERIFY(someNonZero);
        // Staleness is not rounding: far above every must-equal variant.
        const EquivalenceProgress async = run.progress(4);
        QVERIFY2(async.latest.maxRelative > 100 * std::max(largestMustEqual, 1e-7), std::to_string(async.latest.maxRelative).c_str());

        const std::string csv = equivalenceCsv(run);
        QVERIFY(csv.starts_with("step,variant,class,max_abs_diff,max_rel_diff,parameter,element,loss_diff\n"));
        QCOMPARE(std::count(csv.begin(), csv.end(), '\n'), std::ptrdiff_t(1 + 4 * kSteps));
        QVERIFY(csv.find("\n50,async ps,may differ,") != std::string::npos);
        QVERIFY(csv.find("\n1,mirrored 2 ring,must equal,") != std::string::npos);
    }

    void weightDifferenceFindsTheLargestRelativeElement() {
        const std::vector<ParameterInfo> infos{{"a", {}, 0, 2}, {"b", {}, 2, 2}};
        const std::vector<float> baseline{10.0f, -10.0f, 0.5f, 0.0f};
        const std::vector<float> variant{10.5f, -10.0f, 0.5f, 0.1f};
        const EquivalencePoint point = measureWeightDifference(variant, baseline, infos);
        QCOMPARE(point.maxAbsolute, double(10.5f) - 10.0);
        QCOMPARE(point.parameter, 1);  // 0.1 against b's scale 0.5 beats 0.5 against a's scale 10
        QCOMPARE(point.element, std::int64_t{1});
        QVERIFY(std::abs(point.maxRelative - 0.2) < 1e-6);
        const EquivalencePoint equal = measureWeightDifference(baseline, baseline, infos);
        QCOMPARE(equal.maxAbsolute, 0.0);
        QCOMPARE(equal.maxRelative, 0.0);
    }

    void theLabOfARunKeepsItsModelAndClassifiesEveryVariant() {
        RunConfig run = makeStudy(5).variants[2].config;  // mirrored 4 with 2 packs: the lab resets them
        run.data.globalBatchSize = 24;                    // divides by 2 and 4
        auto study = equivalenceStudyOf(run, 30);
        QVERIFY2(study, study ? "" : study.error().message.c_str());
        QVERIFY(study->spec.equivalence);
        QCOMPARE(study->variants.size(), std::size_t{5});
        EquivalenceRun lab(std::move(*study));
        QCOMPARE(lab.verdict(0).kind, EquivalenceClass::Baseline);
        for (int v = 1; v <= 3; ++v) QCOMPARE(lab.verdict(v).kind, EquivalenceClass::MustEqual);
        QCOMPARE(lab.verdict(4).kind, EquivalenceClass::MayDiffer);
        QCOMPARE(lab.study().variants[2].config.strategy.numPacks, std::int64_t{1});
        lab.run();
        QVERIFY(lab.progress(1).worst.maxRelative < 1e-5);
        run.strategy = StrategyConfig{};  // a valid run of an odd batch: only one device and the parameter servers
        run.data.globalBatchSize = 3;
        auto odd = equivalenceStudyOf(run, 30);
        QVERIFY2(odd, odd ? "" : odd.error().message.c_str());
        QCOMPARE(odd->variants.size(), std::size_t{2});
        // From a parameter-server run (workers, speeds, a partitioner): before, every variant kept the
        // run's parameter-server keys and the lab failed with "strategy.workers: unknown key".
        run.strategy.type = StrategyKind::ParameterServer;
        run.strategy.workers = 4;
        run.strategy.workerSpeed = {1.0, 1.0, 1.0, 0.5};
        run.strategy.partitioner.kind = PartitionerConfig::Kind::Fixed;
        run.strategy.partitioner.numShards = 2;
        run.data.globalBatchSize = 24;
        auto servers = equivalenceStudyOf(run, 30);
        QVERIFY2(servers, servers ? "" : servers.error().message.c_str());
        QCOMPARE(servers->variants.size(), std::size_t{5});
        QCOMPARE(servers->variants[0].config.strategy.type, StrategyKind::OneDevice);  // exactly one device
        QCOMPARE(servers->variants[0].config.strategy.replicaCount(), std::int64_t{1});
        QCOMPARE(servers->variants[0].config.strategy.gradientAccumulationSteps, std::int64_t{1});
        QCOMPARE(servers->variants[2].config.strategy.replicaCount(), std::int64_t{4});
        QCOMPARE(servers->variants[2].config.strategy.crossDeviceOps, CrossDeviceOps::HierarchicalCopy);
        QCOMPARE(servers->variants[3].config.strategy.gradientAccumulationSteps, std::int64_t{2});
        const StrategyConfig& async = servers->variants[4].config.strategy;
        QCOMPARE(async.type, StrategyKind::ParameterServer);
        QCOMPARE(async.workers, std::int64_t{2});
        QVERIFY(async.workerSpeed.empty());
    }

    void aVariantThatCannotBeBuiltFailsAlone() {
        EquivalenceRun run(makeStudy(
            10, R"(, {"label": "no data", "set": {"data.source": "csv", "data.path": "/nonexistent/d.csv", "data.label_column": 2}})"));
        QCOMPARE(run.verdict(4).kind, EquivalenceClass::MayDiffer);  // other data
        run.run();
        QCOMPARE(run.progress(4).state, VariantState::Failed);
        QVERIFY2(run.progress(4).message.find("d.csv") != std::string::npos, run.progress(4).message.c_str());
        for (int v = 0; v < 4; ++v) QCOMPARE(run.progress(v).state, VariantState::Finished);
    }

    void cancelStopsTheLockstep() {
        EquivalenceRun run(makeStudy(1'000'000));
        std::thread stepper([&] { run.run(); });
        QTRY_VERIFY_WITH_TIMEOUT(run.progress(0).stepsDone >= 5, 20000);
        run.cancel();
        stepper.join();
        const std::int64_t done = run.progress(0).stepsDone;
        QVERIFY(done < 1'000'000);
        for (int v = 0; v < run.variantCount(); ++v) {
            QCOMPARE(run.progress(v).state, VariantState::Cancelled);
            // Lockstep: nobody is more than the round in progress ahead.
            QVERIFY(std::abs(run.progress(v).stepsDone - done) <= 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestEquivalence)
#include "test_equivalence.moc"
