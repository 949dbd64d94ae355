// The study's step-time model (engine/include/distlab/study/step_time_model.hpp,
// step_time_cache.hpp): the alpha-beta fit, interpolation in rows, the cost formulas on made-up
// calibrations (exact numbers), the calibration cache on disk, and the strategies it refuses.
// How predictions are made, with exact numbers; how close they come to measured steps is measured
// by tests/bench/prediction_accuracy.py (tests/bench/RESULTS.md), not tested.
#include <distlab/config/run_config_json.hpp>
#include <distlab/study/step_time_cache.hpp>
#include <distlab/study/step_time_model.hpp>

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <vector>

using namespace distlab;

namespace {

RunConfig configWith(const std::vector<std::string>& overrides) {
    const std::string base = R"({"model": {"layers": [{"units": 16, "activation": "tanh"}, {"units": 2}]},)"
                             R"( "data": {"samples": 400, "global_batch_size": 32}})";
    auto text = applyOverrides(base, overrides, "t.json");
    if (!text) qFatal("%s", text.error().message.c_str());
    auto config = parseRunConfig(*text, "t.json");
    if (!config) qFatal("%s", config.error().message.c_str());
    return *config;
}

/// Two layers; every piece a round number so the formulas' results are exact.
MicroBatchTimes micro(double scale, double other) {
    MicroBatchTimes m;
    m.layers = {{100 * scale, 200 * scale}, {300 * scale, 400 * scale}};
    m.gatherNs = 50 * scale;
    m.lossNs = 150 * scale;
    m.otherNs = other;
    return m;
}

std::string readAll(const std::string& path) {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), {});
}

void writeAll(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

StepTimeCalibration sampleCalibration() {
    StepTimeCalibration calibration;
    ModelCalibration& model = calibration.models["model A x1"];
    model.parameters = 114;
    model.optimizerNs = 321.5;
    model.byRows[8] = micro(1, 400);
    model.byRows[16] = micro(2, 300);
    model.serverHandOffNs[64] = 17500.5;
    calibration.machine.reductions[reductionKey(CrossDeviceOps::Ring, 4, 512)] = {1500.25, 0.75};
    calibration.machine.mirroredProtocolNs[mirroredKey(CrossDeviceOps::Tree, 2, 1, 1)] = 2500;
    calibration.machine.serverUpdateNs[serverKey(ParameterServerMode::Sync, 4)] = 40000;
    calibration.machine.transport = {5, 0.0125};
    calibration.machine.transportMeasured = true;
    calibration.machine.sleepOvershootNs = 55000;
    return calibration;
}

}  // namespace

class TestStepTimeModel : public QObject {
    Q_OBJECT

private slots:
    void theFitGoesThroughALine() {
        const std::vector<std::pair<double, double>> points{{1000, 2500}, {2000, 4500}, {4000, 8500}};
        const AlphaBeta fit = fitAlphaBeta(points);
        QCOMPARE(fit.alphaNs, 500.0);
        QCOMPARE(fit.betaNsPerByte, 2.0);
        QCOMPARE(fit.ns(3000), 6500.0);
        // Noise that would give a negative latency or bandwidth cost is clamped.
        const std::vector<std::pair<double, double>> falling{{1000, 900}, {2000, 100}};
        QCOMPARE(fitAlphaBeta(falling).betaNsPerByte, 0.0);
        QCOMPARE(fitAlphaBeta({}).alphaNs, 0.0);
    }

    void rowsAreInterpolatedBetweenMeasuredSizes() {
        ModelCalibration calibration;
        calibration.byRows[8] = micro(1, 400);
        calibration.byRows[16] = micro(2, 300);
        QCOMPARE(interpolateRows(calibration, 8), micro(1, 400));         // a measured size as measured
        const MicroBatchTimes twelve = interpolateRows(calibration, 12);  // half way
        QCOMPARE(twelve.layers[1].backwardNs, 600.0);
        QCOMPARE(twelve.otherNs, 350.0);
        QCOMPARE(twelve.computeNs(), 1.5 * micro(1, 0).computeNs());
        QCOMPARE(interpolateRows(calibration, 32).gatherNs, 200.0);  // beyond: along the line through 8 and 16
        QCOMPARE(interpolateRows(calibration, 4).gatherNs, 25.0);
        ModelCalibration one;  // one size alone: its pieces scale with the rows, the bookkeeping does not
        one.byRows[8] = micro(1, 400);
        QCOMPARE(interpolateRows(one, 24).lossNs, 450.0);
        QCOMPARE(interpolateRows(one, 24).otherNs, 400.0);
    }

    void oneDeviceIsAccumulatedMicroBatchesUpdateAndBookkeeping() {
        // compute 1200 ns a micro-batch, update 300, bookkeeping 500
        const StepTimePrediction p = predictOneDevice(micro(1, 500), 300, 4);
        QCOMPARE(p.computeMs, 4 * 1200e-6);
        QCOMPARE(p.optimizerMs, 800e-6);
        QCOMPARE(p.communicationMs, 0.0);
        QCOMPARE(p.stepMs, 5600e-6);
    }

    void mirroredAddsTheProtocolAndTheBandwidthAndStretchesBeyondTheCores() {
        MirroredCosts costs;
        costs.micro = micro(1, 0);
        costs.optimizerNs = 300;
        costs.otherNs = 500;
        costs.reduction = {1000, 0.5};
        costs.packs = 2;
        costs.packBytes = 1024;
        costs.protocolNs = 4000;
        costs.protocolPackBytes = 24;
        const StepTimePrediction two = predictMirrored(costs, 2, 1, 2);
        QCOMPARE(two.computeMs, 1200e-6);
        QCOMPARE(two.communicationMs, (4000 + 2 * 0.5 * 1000) * 1e-6);  // 2 packs x beta x (1024 - 24) bytes
        QCOMPARE(two.optimizerMs, 800e-6);
        QCOMPARE(two.stepMs, two.computeMs + two.communicationMs + two.optimizerMs);
        // Eight replicas on two cores: each replica's compute and update take four turns.
        const StepTimePrediction eight = predictMirrored(costs, 8, 2, 2);
        QCOMPARE(eight.computeMs, 4 * 2 * 1200e-6);
        QCOMPARE(eight.optimizerMs, (4 * 300 + 500) * 1e-6);
        // One replica reduces nothing.
        QCOMPARE(predictMirrored(costs, 1, 1, 2).communicationMs, 0.0);
    }

    void parameterServersAsync() {
        ServerCosts costs;
        costs.gradientNs = 6000;
        costs.pullNs = 200;
        costs.pushNs = 100;
        costs.applyNs = 700;
        costs.protocolNs = 3000;
        costs.speeds = {1.0, 1.0};
        // Two workers on two cores: each cycles in 6300 + 2 x 3000 ns, together one update per 6150.
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Async, 0, 2).stepMs, 6150e-6);
        // On one core the two workers take turns: each gradient takes 12600, so (12600 + 6000) / 2.
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Async, 0, 1).stepMs, 9300e-6);
        // The hand-offs' cost lengthens each worker's cycle: 6300 + 6000 + 1700, together one per 7000;
        // on one core, where the two workers keep it busy, at half: (12600 + 6000 + 850) / 2.
        costs.handOffNs = 1700;
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Async, 0, 2).stepMs, 7000e-6);
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Async, 0, 1).stepMs, 9725e-6);
        costs.handOffNs = 0;
        // Instant gradients: the coordinator binds (protocol + apply).
        costs.gradientNs = 0;
        costs.pullNs = costs.pushNs = 0;
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Async, 0, 2).stepMs, 3700e-6);
    }

    void parameterServersSyncWaitForTheSlowestWanted() {
        ServerCosts costs;
        costs.gradientNs = 6000;
        costs.pullNs = 200;
        costs.pushNs = 100;
        costs.applyNs = 700;
        costs.protocolNs = 3000;
        costs.sleepOvershootNs = 50000;
        costs.speeds = {1.0, 1.0, 1.0, 0.5};
        // Four workers share two cores (6300 x 2 each); the straggler at 0.5 takes twice that and
        // oversleeps. Every gradient: protocol + 12600 / 0.5 + 50000 + 5 passes of 100 + apply.
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Sync, 0, 2).stepMs, (3000 + 25200 + 50000 + 500 + 700) * 1e-6);
        // Three of four: the straggler is left out; three gradients summed.
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Sync, 3, 2).stepMs, (3000 + 12600 + 400 + 700) * 1e-6);
        // The hand-offs' cost, at the share of the cores that can go idle (2 of 4 workers' worth).
        costs.handOffNs = 2000;
        QCOMPARE(predictParameterServer(costs, ParameterServerMode::Sync, 3, 2).stepMs, (3000 + 1000 + 12600 + 400 + 700) * 1e-6);
    }

    void aPipelineIsItsScheduleAtItsStagesTimesThenTheUpdates() {
        // GPipe, p = 2, m = 2, stage 0 F 1 B 2, stage 1 F 2 B 4 ns (worked by hand): cpu:0 F0 [0, 1],
        // F1 [1, 2], B0 [9, 11], B1 [13, 15]; cpu:1 F0 [1, 3], F1 [3, 5], B0 [5, 9], B1 [9, 13]. With
        // updates of 1 and 3 ns, both end at 16; then 0.5 ns of bookkeeping: 16.5 ns a step.
        PipelineCosts costs;
        costs.schedule = PipelineSchedule::GPipe;
        costs.shape = PipelineShape{2, 2, 1};
        costs.stages = {PassTimes{1.0, 2.0, 1.0, 1.0}, PassTimes{2.0, 4.0, 2.0, 2.0}};
        costs.deviceOptimizerNs = {1.0, 3.0};
        costs.otherNs = 0.5;
        auto p = predictPipeline(costs);
        QVERIFY(p.ok());
        QVERIFY(qAbs(p->computeMs - 15e-6) < 1e-15);
        QVERIFY(qAbs(p->stepMs - 16.5e-6) < 1e-15);
        QCOMPARE(p->communicationMs, 0.0);
        // Data-parallel copies: cpu:1's all-reduce of 4 ns after its last pass (13) makes it end at
        // 13 + 4 + 3 = 20, the step 20.5.
        costs.deviceReductionNs = {1.0, 4.0};
        p = predictPipeline(costs);
        QVERIFY(p.ok());
        QVERIFY(qAbs(p->stepMs - 20.5e-6) < 1e-15);
        QVERIFY(qAbs(p->communicationMs - 4e-6) < 1e-15);
        costs.stages.pop_back();
        QVERIFY(!predictPipeline(costs).ok());
    }

    void theCacheRoundTrips() {
        const StepTimeCalibration calibration = sampleCalibration();
        const std::string text = calibrationToJson(calibration, "machine M");
        auto back = calibrationFromJson(text, "machine M");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
        QVERIFY(*back == calibration);
        // Another machine's file is not this machine's calibration.
        QVERIFY(!calibrationFromJson(text, "machine N").ok());
        // Through a file, in a folder that does not exist yet.
        QTemporaryDir dir;
        const std::string path = dir.filePath("cache/distlab/step_times.json").toStdString();
        QVERIFY(saveCalibration(path, calibration, "machine M").ok());
        QVERIFY(loadCalibration(path, "machine M") == calibration);
        QVERIFY(loadCalibration(path, "machine N") == StepTimeCalibration{});
    }

    void aCorruptCacheIsIgnored() {
        const std::string good = calibrationToJson(sampleCalibration(), "machine M");
        for (const std::string& bad : {std::string(), std::string("{"), good.substr(0, good.size() / 2), std::string("[1, 2]"),
                                       std::string(R"({"format": 1, "machine": "machine M"})"),
                                       std::string(R"({"format": 2, "machine": "machine M", "models": {}})"), [&] {
                                           std::string negative = good;
                                           negative.replace(negative.find("321.5"), 5, "-32.5");
                                           return negative;
                                       }()}) {
            QVERIFY2(!calibrationFromJson(bad, "machine M").ok(), bad.c_str());
        }
        QTemporaryDir dir;
        QVERIFY(loadCalibration(dir.path().toStdString(), "machine M") == StepTimeCalibration{});  // a folder, not a file
        QVERIFY(loadCalibration(dir.filePath("missing.json").toStdString(), "machine M") == StepTimeCalibration{});
    }

    void theModelUsesRewritesAndRecalibratesItsCache() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("step_times.json").toStdString();
        const RunConfig config = configWith({});
        writeAll(path, "not json at all");  // corrupt: ignored, measured, replaced
        double first = 0;
        {
            StepTimeModel model({2, path});
            auto predicted = model.predict(config);
            QVERIFY2(predicted.ok(), predicted.ok() ? "" : predicted.error().message.c_str());
            QVERIFY(model.measurementsMade() > 0);
            first = predicted->stepMs;
        }
        auto saved = calibrationFromJson(readAll(path), machineKey());
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().message.c_str());
        QCOMPARE(saved->models.size(), std::size_t(1));
        QVERIFY(saved->models.begin()->second.byRows.contains(32));
        {
            // A second model finds everything in the file: the same prediction, nothing measured.
            StepTimeModel model({2, path});
            auto again = model.predict(config);
            QVERIFY(again.ok());
            QCOMPARE(model.measurementsMade(), 0);
            QCOMPARE(again->stepMs, first);
            // Another model (its key differs) is measured and added beside the first.
            QVERIFY(model.predict(configWith({"model.layers[0].units=8"})).ok());
            QVERIFY(model.measurementsMade() > 0);
        }
        QCOMPARE(calibrationFromJson(readAll(path), machineKey())->models.size(), std::size_t(2));
        // A file of another machine is ignored and replaced by this machine's.
        writeAll(path, calibrationToJson(sampleCalibration(), "another machine"));
        StepTimeModel model({2, path});
        QVERIFY(model.predict(config).ok());
        QVERIFY(model.measurementsMade() > 0);
        QVERIFY(calibrationFromJson(readAll(path), machineKey()).ok());
    }

    void everyStrategyOfTheIssueIsPredicted() {
        StepTimeModel model({2, ""});
        for (const std::vector<std::string>& overrides : std::vector<std::vector<std::string>>{
                 {},
                 {"strategy.gradient_accumulation_steps=4"},
                 {"strategy.type=mirrored", "strategy.replicas=2", "strategy.cross_device_ops=tree"},
                 {"strategy.type=mirrored", "strategy.replicas=4", "strategy.num_packs=2"},
                 {"strategy.type=parameter_server", "strategy.workers=2"},
                 {"strategy.type=parameter_server", "strategy.workers=2", "strategy.mode=sync"},
                 {"strategy.type=pipeline", "strategy.stages=2", "strategy.micro_batches=2", "clock=virtual"},
                 {"strategy.type=pipeline", "strategy.stages=2", "strategy.micro_batches=2", "strategy.schedule=zb-h1",
                  "strategy.data_parallel=2", "clock=virtual"}}) {
            auto predicted = model.predict(configWith(overrides));
            QVERIFY2(predicted.ok(), predicted.ok() ? "" : predicted.error().message.c_str());
            QVERIFY(predicted->stepMs > 0);
            QVERIFY(predicted->computeMs > 0);
            QVERIFY(qAbs(predicted->stepMs - predicted->computeMs - predicted->communicationMs - predicted->optimizerMs) < 1e-9);
        }
    }

    void strategiesNotModelledAreSaidSo() {
        StepTimeModel model({2, ""});
        auto central = model.predict(configWith({"strategy.type=central_storage", "strategy.replicas=2"}));
        QVERIFY(!central.ok());
        QCOMPARE(QString::fromStdString(central.error().message), QStringLiteral("the step-time model does not cover central_storage yet"));
        // Four pipeline devices (2 copies of 2) on these 2 cores' wall clock take turns in a way the model does not cover.
        auto crowded = model.predict(
            configWith({"strategy.type=pipeline", "strategy.stages=2", "strategy.micro_batches=4", "strategy.data_parallel=2"}));
        QVERIFY(!crowded.ok());
        QVERIFY2(crowded.error().message.find("on the virtual clock, or with no more devices than cores") != std::string::npos,
                 crowded.error().message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStepTimeModel)
#include "test_step_time_model.moc"
