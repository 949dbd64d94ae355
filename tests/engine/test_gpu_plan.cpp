// The host-side GPU planner on fabricated machines (0, 1 and 2 physical GPUs): placement of
// logical GPUs and their memory limits, the reduction path, graph-capture eligibility and every
// refusal, all without a GPU; and the GPU trainer's host-side rules: when a step is eager, captured
// or replayed, when the host mirror is downloaded or uploaded, and how device-timed phases become spans.
#include <QtTest>

#include "distlab/device/gpu_plan.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "distribute/gpu_mirror_state.hpp"
#include "distribute/gpu_step_timing.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/config/run_config_json.hpp"

using namespace distlab;

namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

DeviceReport machineWith(int gpus, bool nccl = true) {
    DeviceReport report;
    report.cudaBuiltIn = true;
    report.ncclBuiltIn = nccl;
    report.ncclVersion = nccl ? "2.28.9" : "not built in";
    for (int i = 0; i < gpus; ++i) report.gpus.push_back(GpuInfo{i, "NVIDIA H100 80GB HBM3", 80'000ull * kMiB, 9, 0, 132});
    if (gpus == 0) report.gpuUnavailableReason = "CUDA driver not found (cudaErrorInsufficientDriver)";
    return report;
}

RunConfig gpuConfig(std::vector<int> gpus, std::int64_t perPhysical = 1, std::int64_t limitMb = 0) {
    RunConfig config;
    config.model.layers = {{"dense", 16, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
    config.strategy.type = gpus.size() == 1 ? StrategyKind::OneDevice : StrategyKind::Mirrored;
    for (int k : gpus) config.strategy.devices.push_back(Device::gpu(k));
    config.strategy.gpu = {perPhysical, limitMb};
    config.data.globalBatchSize = 8;
    return config;
}

QString errorOf(const Result<GpuPlan>& plan) {
    return plan.ok() ? QStringLiteral("(no error)") : QString::fromStdString(plan.error().message);
}

}  // namespace

class TestGpuPlan : public QObject {
    Q_OBJECT
private slots:
    void noGpuSaysWhy() {
        const auto plan = planGpuRun(gpuConfig({0}), machineWith(0));
        QCOMPARE(errorOf(plan), QStringLiteral("strategy.devices[0]: gpu:0: no usable GPU here: CUDA driver not found "
                                               "(cudaErrorInsufficientDriver)"));
    }

    void oneDeviceOnOneGpu() {
        const auto plan = planGpuRun(gpuConfig({0}), machineWith(1));
        QVERIFY2(plan.ok(), qPrintable(errorOf(plan)));
        QCOMPARE(plan->replicas.size(), std::size_t{1});
        QVERIFY((plan->replicas[0] == LogicalGpuPlacement{0, 0, 0}));
        QCOMPARE(plan->reduction, GpuReduction::None);
        QVERIFY(plan->graph.eligible);
    }

    void fourLogicalGpusOnOnePhysical() {
        const auto plan = planGpuRun(gpuConfig({0, 1, 2, 3}, 4, 2048), machineWith(1));
        QVERIFY2(plan.ok(), qPrintable(errorOf(plan)));
        for (int k = 0; k < 4; ++k) QVERIFY((plan->replicas[k] == LogicalGpuPlacement{k, 0, 2048 * kMiB}));
        QCOMPARE(plan->reduction, GpuReduction::LogicalRing);
        QCOMPARE(QString(gpuReductionName(plan->reduction)), QStringLiteral("logical_ring"));
        QVERIFY(!plan->graph.eligible);
        QVERIFY(plan->graph.reason.find("streams") != std::string::npos);
    }

    void carvingMapsToPhysicalGpus() {
        // gpu:K is logical K mod L of physical K / L: with L = 2 on two GPUs, gpu:2 and gpu:3 are on GPU 1.
        const auto plan = planGpuRun(gpuConfig({2, 3}, 2), machineWith(2));
        QVERIFY2(plan.ok(), qPrintable(errorOf(plan)));
        QCOMPARE(plan->replicas[0].physical, 1);
        QCOMPARE(plan->replicas[1].physical, 1);
        QCOMPARE(plan->reduction, GpuReduction::LogicalRing);
    }

    void distinctPhysicalGpusUseNccl() {
        RunConfig config = gpuConfig({0, 1});
        const auto plan = planGpuRun(config, machineWith(2));
        QVERIFY2(plan.ok(), qPrintable(errorOf(plan)));
        QCOMPARE(plan->reduction, GpuReduction::Nccl);
        QVERIFY(!plan->graph.eligible);
        QVERIFY(plan->graph.reason.find("graph per GPU") != std::string::npos);
        config.strategy.crossDeviceOps = CrossDeviceOps::Nccl;
        QVERIFY(planGpuRun(config, machineWith(2)).ok());
        // Carved in two, gpu:0 and gpu:2 are the first logical GPU of each physical one.
        QCOMPARE(planGpuRun(gpuConfig({0, 2}, 2), machineWith(2))->reduction, GpuReduction::Nccl);
    }

    void ncclNotBuiltIn() {
        QCOMPARE(errorOf(planGpuRun(gpuConfig({0, 1}), machineWith(2, false))),
                 QStringLiteral("strategy.devices: replicas on distinct physical GPUs reduce with NCCL, which is not built "
                                "into this distlab (NCCL not built in)"));
    }

    void beyondTheCarvedCount() {
        QCOMPARE(errorOf(planGpuRun(gpuConfig({0, 4}, 4), machineWith(1))),
                 QStringLiteral("strategy.devices[1]: gpu:4: this machine has 4 logical GPUs (1 physical x 4 per physical, "
                                "strategy.gpu.logical_per_physical): gpu:0 to gpu:3"));
        QCOMPARE(errorOf(planGpuRun(gpuConfig({1}), machineWith(1))),
                 QStringLiteral("strategy.devices[0]: gpu:1: this machine has 1 logical GPU (1 physical x 1 per physical, "
                                "strategy.gpu.logical_per_physical): gpu:0 to gpu:0"));
    }

    void memoryLimitsMustFit() {
        QCOMPARE(errorOf(planGpuRun(gpuConfig({0}, 4, 30'000), machineWith(1))),
                 QStringLiteral("strategy.gpu.memory_limit_mb: 4 logical GPUs x 30000 MiB exceed physical GPU 0 (NVIDIA "
                                "H100 80GB HBM3, 80000 MiB)"));
        QVERIFY(planGpuRun(gpuConfig({0}, 4, 20'000), machineWith(1)).ok());
    }

    void someSharingSomeNot() {
        QCOMPARE(errorOf(planGpuRun(gpuConfig({0, 1, 2}, 2), machineWith(2))),
                 QStringLiteral("strategy.devices: 3 replicas on 2 physical GPUs, some sharing one: NCCL refuses two ranks "
                                "on one GPU and the logical-GPU ring stays on one GPU; list one logical GPU per physical "
                                "GPU, or logical GPUs of one physical GPU"));
    }

    void crossDeviceOpsThatCannotApply() {
        RunConfig config = gpuConfig({0, 1}, 2);
        config.strategy.crossDeviceOps = CrossDeviceOps::Nccl;
        QCOMPARE(errorOf(planGpuRun(config, machineWith(1))),
                 QStringLiteral("strategy.cross_device_ops: \"nccl\" cannot reduce between logical GPUs of one physical GPU "
                                "(NCCL refuses two ranks on one GPU); use \"ring\", the in-process ring over device memory"));
        config.strategy.crossDeviceOps = CrossDeviceOps::HierarchicalCopy;
        QCOMPARE(errorOf(planGpuRun(config, machineWith(1))),
                 QStringLiteral("strategy.cross_device_ops: \"hierarchical_copy\" is not implemented on GPUs; logical GPUs "
                                "of one physical GPU reduce with \"ring\""));
        RunConfig spread = gpuConfig({0, 1});
        spread.strategy.crossDeviceOps = CrossDeviceOps::Tree;
        QCOMPARE(errorOf(planGpuRun(spread, machineWith(2))),
                 QStringLiteral("strategy.cross_device_ops: \"tree\" is not implemented on GPUs; distinct physical GPUs "
                                "reduce with \"nccl\" (or \"ring\", NCCL's ring)"));
    }

    void strategiesWithHostVariables() {
        RunConfig config = gpuConfig({0, 1}, 2);
        config.strategy.type = StrategyKind::CentralStorage;
        QCOMPARE(errorOf(planGpuRun(config, machineWith(1))),
                 QStringLiteral("strategy.type: \"central_storage\" keeps the variables on the host CPU; on GPUs use "
                                "\"mirrored\""));
        config.strategy.type = StrategyKind::ParameterServer;
        QVERIFY(errorOf(planGpuRun(config, machineWith(1))).startsWith("strategy.type: \"parameter_server\""));
    }

    void whatTheGpuPathDoesNotCompute() {
        RunConfig config = gpuConfig({0});
        config.model.layers.insert(config.model.layers.begin() + 1,
                                   LayerConfig{"residual", 0, Activation::Linear, "", {{"dense", 16, Activation::Relu, ""}}});
        QCOMPARE(errorOf(planGpuRun(config, machineWith(1))),
                 QStringLiteral("model.layers[1].type: \"residual\": the GPU path computes dense layers only in this version"));
        config = gpuConfig({0});
        config.precision = Precision::MixedFloat16;
        QCOMPARE(QString::fromStdString(gpuPathProblem(config)),
                 QStringLiteral("precision: \"mixed_float16\": the GPU path trains in float32 only in this version"));
        config = gpuConfig({0});
        config.model.loss = LossKind::MeanSquaredError;
        config.optimizer = OptimizerConfig{OptimizerKind::Sgd, 0.1, 0.9, true};
        QVERIFY(gpuPathProblem(config).empty());
    }

    void graphCaptureSaysWhy() {
        RunConfig config = gpuConfig({0});
        QVERIFY(graphCaptureEligibility(config, GpuReduction::None).eligible);
        QVERIFY(!graphCaptureEligibility(config, GpuReduction::Nccl).eligible);
        QVERIFY(!graphCaptureEligibility(config, GpuReduction::LogicalRing).eligible);
        // Adam's bias corrections come from a device buffer written before each launch.
        config.optimizer.type = OptimizerKind::Adam;
        const GraphCapture adam = graphCaptureEligibility(config, GpuReduction::None);
        QVERIFY(adam.eligible);
        QVERIFY(adam.reason.find("Adam's corrections are read from device memory") != std::string::npos);
        config = gpuConfig({0});
        config.strategy.type = StrategyKind::ParameterServer;
        QVERIFY(graphCaptureEligibility(config, GpuReduction::None).reason.find("asynchronous") != std::string::npos);
        config.strategy.mode = ParameterServerMode::Sync;
        QVERIFY(!graphCaptureEligibility(config, GpuReduction::None).eligible);
        config.strategy.type = StrategyKind::CentralStorage;
        QVERIFY(!graphCaptureEligibility(config, GpuReduction::None).eligible);
    }

    void stepModeWarmsUpCapturesOnceThenReplays() {
        QCOMPARE(gpuStepMode(false, 5, false, false), GpuStepMode::Eager);  // not eligible: always eager
        QCOMPARE(gpuStepMode(true, 0, false, false), GpuStepMode::Eager);   // the warm-up step
        QCOMPARE(gpuStepMode(true, 1, false, false), GpuStepMode::Capture);
        QCOMPARE(gpuStepMode(true, 1, true, true), GpuStepMode::Replay);
        QCOMPARE(gpuStepMode(true, 1, true, false), GpuStepMode::Eager);  // other shapes than the captured ones
    }

    void hostMirrorIsCopiedOnlyWhenBehind() {
        GpuMirrorState mirror;
        int downloads = 0, uploads = 0;
        auto download = [&] { ++downloads; };
        auto upload = [&] { ++uploads; };
        mirror.beforeHostRead(download);  // a new trainer: the host holds the initial variables
        mirror.beforeStep(upload);
        QCOMPARE(downloads, 0);
        QCOMPARE(uploads, 1);
        for (int s = 0; s < 3; ++s) {  // steps with nothing reading the host: no copies
            mirror.beforeStep(upload);
            mirror.stepped();
        }
        QCOMPARE(downloads, 0);
        QCOMPARE(uploads, 1);
        mirror.beforeHostRead(download);  // a snapshot, then another read: one download
        mirror.beforeHostRead(download);
        QCOMPARE(downloads, 1);
        mirror.beforeStep(upload);  // read, not written: nothing to upload
        QCOMPARE(uploads, 1);
        mirror.stepped();
        mirror.beforeHostRead(download);  // loaded weights: read, written, broadcast
        mirror.hostWritten();
        mirror.beforeHostRead(download);  // reading a host that is ahead downloads nothing
        QCOMPARE(downloads, 2);
        mirror.beforeStep(upload);
        QCOMPARE(uploads, 2);
        QCOMPARE(mirror.newest(), GpuMirrorState::Newest::Both);
    }

    void deviceTimesBecomeSpans() {
        // Two micro-batches, a reduction: points 0, fwd0 1, bwd0 2, fwd1 3, bwd1 4, reduced 5, updated 6.
        const GpuStepPoints points{2};
        QCOMPARE(points.count(), 7);
        const std::vector<float> ms{0.0f, 1.0f, 3.0f, 4.0f, 6.0f, 8.0f, 9.0f};
        SpanRecorder spans;
        const std::int64_t start = recordGpuStepSpans(points, ms, true, 4096, 20'000'000, 0, spans);
        QCOMPARE(start, std::int64_t{11'000'000});  // the update ends at 20 ms, 9 ms after the start
        QCOMPARE(spans.spans().size(), std::size_t{6});
        const StepTimes times = stepTimes(start, spans.spans(), 20'000'000);
        QCOMPARE(times.computeEndNs, std::int64_t{17'000'000});
        QCOMPARE(times.commEndNs, std::int64_t{19'000'000});
        QCOMPARE(times.updateEndNs, std::int64_t{20'000'000});
        QCOMPARE(spans.spans()[1].kind, SpanKind::Backward);
        QCOMPARE(spans.spans()[2].microBatch, std::int16_t{1});
        QCOMPARE(spans.spans()[4].bytes, std::int64_t{4096});
        // One replica: no all-reduce span, the update starts where the backward ended; a device
        // time longer than the step on the host cannot start it before the step.
        const std::int64_t clamped = recordGpuStepSpans(points, ms, false, 0, 20'000'000, 15'000'000, spans);
        QCOMPARE(clamped, std::int64_t{15'000'000});
        QCOMPARE(spans.spans().size(), std::size_t{5});
        QCOMPARE(spans.spans().back().kind, SpanKind::Optimizer);
        QCOMPARE(spans.spans().back().beginNs, spans.spans()[3].endNs);
        for (const Span& span : spans.spans())
            QVERIFY(span.beginNs >= 15'000'000 && span.endNs <= 20'000'000 && span.beginNs <= span.endNs);
    }

    void trainerSaysWhyWithoutAGpu() {
        // Trainer::create plans on this machine: without a GPU it refuses with the device report's reason.
        const DeviceReport here = queryDevices();
        if (!here.gpus.empty()) QSKIP("this machine has a GPU (tests/gpu/test_gpu_trainer.cpp trains on it)");
        const auto trainer = Trainer::create(gpuConfig({0}));
        QVERIFY(!trainer.ok());
        const QString message = QString::fromStdString(trainer.error().message);
        const QString expected =
            here.cudaBuiltIn
                ? QStringLiteral("strategy.devices[0]: gpu:0: no usable GPU here: ") + QString::fromStdString(here.gpuUnavailableReason)
                : QStringLiteral("strategy.devices[0]: gpu:0: ") + QString::fromStdString(here.gpuBackendError);
        QVERIFY2(message.startsWith(expected), qPrintable(message));
    }

    void unverifiedGpuTrainingWarnsOnce() {
        QCOMPARE(QString::fromStdString(gpuTrainingWarning(gpuConfig({0}), false)),
                 QStringLiteral("warning: GPU training is built but not yet verified on a GPU"));
        QVERIFY(!kGpuTrainingVerified || gpuTrainingWarning(gpuConfig({0})).empty());
        QVERIFY(gpuTrainingWarning(gpuConfig({0}), true).empty());
        RunConfig cpu = gpuConfig({0, 1});
        for (DeviceName& device : cpu.strategy.devices) device.kind = DeviceName::Kind::Cpu;
        QVERIFY(gpuTrainingWarning(cpu, false).empty());
    }

    void plannedConfigsAreValidConfigs() {
        // The fabricated configs are ones a user could write: the planner sees only validated input.
        for (const RunConfig& config : {gpuConfig({0}), gpuConfig({0, 1, 2, 3}, 4, 2048), gpuConfig({0, 1})}) {
            const Status valid = validateRunConfig(config, "run.json");
            QVERIFY2(valid.ok(), valid.ok() ? "" : valid.error().message.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestGpuPlan)
#include "test_gpu_plan.moc"
