// The GPU trainer behind Trainer::create for gpu:K devices, against the CPU engine: one_device on
// gpu:0 ends where the CPU one_device trainer ends (SGD with momentum, Nesterov, Adam, MSE,
// accumulation); mirrored on 4 logical GPUs of one physical GPU ends where 1 GPU ends, with equal
// copies; the host mirror (what views, checkpoints and evaluation read) follows every step and
// loaded weights reach the GPUs; a logical GPU with a tiny memory limit refuses with the clear
// error; two physical GPUs reduce with NCCL (when the machine has them). A step captured in a CUDA graph and
// replayed ends where eager steps end, bit for bit (sgd, momentum, adam, a learning-rate change);
// the lazily downloaded host mirror, the watched values, gradient norms and the device-timed phases
// say what the CPU says. Exit 77 (CTest: skipped) without a GPU.
#include <cstdio>
#include <memory>
#include <thread>

#include "cuda_test_support.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "comm/logical_gpu_group.hpp"
#include "comm/nccl_group.hpp"
#include "distribute/gpu_trainer.hpp"
#include "distribute/gpu_trainer_factory.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::gpu_testing;

namespace {

/// `config` moved onto gpu:0 .. gpu:N-1, carved `perPhysical` to a physical GPU.
RunConfig onGpus(RunConfig config, std::int64_t perPhysical = 1, std::int64_t limitMb = 0) {
    for (DeviceName& device : config.strategy.devices) device.kind = DeviceName::Kind::Gpu;
    config.strategy.gpu = {perPhysical, limitMb};
    return config;
}

std::vector<float> parametersOf(const Trainer& trainer, int replica = 0) {
    const auto values = trainer.replicaModel(replica).store().values();
    return {values.begin(), values.end()};
}

/// Runs `steps` steps of `config` on data `data`; null (and a failure) when the trainer cannot be built.
std::unique_ptr<Trainer> trained(const RunConfig& config, const DataSplit& data, int steps) {
    try {
        std::unique_ptr<Trainer> trainer = Trainer::create(config, data);
        for (int s = 0; s < steps; ++s) trainer->step();
        return trainer;
    } catch (const std::exception& error) {
        expect(false, std::string("training failed: ") + error.what());
        return nullptr;
    }
}

void oneDeviceMatchesTheCpu(const char* what, RunConfig config, const DataSplit& data) {
    constexpr int kSteps = 30;
    const auto cpu = trained(config, data, kSteps);
    const auto gpu = trained(onGpus(config), data, kSteps);
    if (!cpu || !gpu) return;
    const double error = relativeError(parametersOf(*gpu), parametersOf(*cpu));
    const double lossGap = std::abs(gpu->step().loss - cpu->step().loss);
    std::printf("  %s: gpu:0 vs cpu one_device after %d steps: relative error %.2e, next loss %+.2e\n", what, kSteps, error, lossGap);
    expect(error <= 1e-5, std::string(what) + ": gpu:0 differs from the CPU by " + std::to_string(error));
    expect(lossGap <= 1e-5, std::string(what) + ": the step's loss differs by " + std::to_string(lossGap));
}

void oneDeviceParity() {
    const DataSplit classes = testing::makeClassificationData(240, 5, 3, 3);
    oneDeviceMatchesTheCpu("sgd", testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), classes);
    oneDeviceMatchesTheCpu("momentum", testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1), classes);
    RunConfig nesterov = testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1);
    nesterov.optimizer.nesterov = true;
    oneDeviceMatchesTheCpu("nesterov", nesterov, classes);
    oneDeviceMatchesTheCpu("adam", testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1), classes);
    oneDeviceMatchesTheCpu("accumulation 3", testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 3), classes);
    RunConfig regression = testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1);
    regression.model.loss = LossKind::MeanSquaredError;
    regression.model.layers.back().units = 2;
    DataSplit values = classes;
    values.train.outputs = 2;
    values.train.targets = testing::makeClassificationData(240, 2, 2, 5).train.x;  // any 2 floats per row
    values.train.labels.clear();
    values.train.classes = 0;
    values.test = values.train;
    oneDeviceMatchesTheCpu("mse", regression, values);
}

void mirroredOnFourLogicalGpusEqualsOne() {
    constexpr int kSteps = 30;
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const RunConfig one = onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1));
    const RunConfig four = onGpus(testing::smallConfig(4, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1), 4, 256);
    const auto single = trained(one, data, kSteps);
    const auto mirrored = trained(four, data, kSteps);
    if (!single || !mirrored) return;
    const std::vector<float> first = parametersOf(*mirrored, 0);
    bool copiesEqual = true;
    for (int r = 1; r < 4; ++r) copiesEqual = copiesEqual && parametersOf(*mirrored, r) == first;
    const double error = relativeError(first, parametersOf(*single));
    std::printf("  mirrored on 4 logical GPUs (256 MiB each) vs gpu:0 alone, %d steps: relative error %.2e, copies %s\n", kSteps, error,
                copiesEqual ? "identical" : "DIFFER");
    expect(error <= 1e-5, "mirrored on 4 logical GPUs differs from one GPU by " + std::to_string(error));
    expect(copiesEqual, "the 4 logical GPUs' copies are identical");
}

void loadedWeightsReachTheGpu() {
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const RunConfig config = onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1));
    const auto gpu = trained(config, data, 3);
    const auto cpu = trained(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data, 3);
    if (!gpu || !cpu) return;
    // What a weights file does: write the primary model, then broadcast.
    const auto cpuValues = cpu->primaryModel().store().values();
    std::copy(cpuValues.begin(), cpuValues.end(), gpu->primaryModel().store().values().begin());
    gpu->broadcastParameters();
    cpu->step();
    gpu->step();
    const double error = relativeError(parametersOf(*gpu), parametersOf(*cpu));
    expect(error <= 1e-6, "weights written into the host mirror did not reach the GPU (error " + std::to_string(error) + ")");
}

void tinyMemoryLimitGivesTheClearError() {
    RunConfig config = onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), 1, 1);
    config.model.layers = {{"dense", 4096, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
    const DataSplit data = testing::makeClassificationData(240, 200, 3, 3);  // 200 x 4096 floats: 3.1 MiB > 1 MiB
    std::string message;
    try {
        Trainer::create(config, data);
    } catch (const TrainingError& error) {
        message = error.what();
    }
    std::printf("  1 MiB logical GPU: %s\n", message.c_str());
    expect(message.find("gpu:0: out of memory: asked for") != std::string::npos && message.find("limit") != std::string::npos,
           "a tiny memory_limit_mb names the device and the cause (got \"" + message + "\")");
}

/// Needs 2 physical GPUs: mirrored on gpu:0 and gpu:1 (one each) reduces with NCCL and ends where
/// one GPU ends (NCCL adds in its own order: within 1e-5, not bit for bit), with identical copies;
/// NCCL's communicators driven by a thread per GPU sum and average as the CPU does.
void twoPhysicalGpusReduceWithNccl(int deviceCount) {
    if (deviceCount < 2) {
        std::printf("  (2 physical GPUs, NCCL: skipped, this machine has %d)\n", deviceCount);
        return;
    }
    constexpr int kSteps = 30;
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const auto single = trained(onGpus(testing::smallConfig(1, CrossDeviceOps::Nccl, OptimizerKind::Sgd, 0.9, 1)), data, kSteps);
    const auto pair = trained(onGpus(testing::smallConfig(2, CrossDeviceOps::Nccl, OptimizerKind::Sgd, 0.9, 1)), data, kSteps);
    if (!single || !pair) return;
    const double error = relativeError(parametersOf(*pair, 0), parametersOf(*single));
    const bool copiesEqual = parametersOf(*pair, 0) == parametersOf(*pair, 1);
    std::printf("  mirrored on 2 physical GPUs (NCCL) vs gpu:0 alone, %d steps: relative error %.2e, copies %s\n", kSteps, error,
                copiesEqual ? "identical" : "DIFFER");
    expect(error <= 1e-5, "NCCL mirrored differs from one GPU by " + std::to_string(error));
    expect(copiesEqual, "the 2 GPUs' copies are identical");
    try {
        LogicalGpuGroup devices(std::vector<LogicalGpuPlacement>{{0, 0, 0}, {1, 1, 0}});
        NcclGroup nccl(std::span<DistlabCudaDevice* const>(devices.devices(), 2));
        std::vector<float> results[2];
        std::vector<std::thread> threads;
        for (int rank = 0; rank < 2; ++rank)
            threads.emplace_back([&, rank] {
                DistlabCudaDevice* device = devices.device(rank);
                char message[DISTLAB_CUDA_MESSAGE_SIZE];
                distlabCudaMakeCurrent(device, message);  // this thread's GPU
                Buffers buffers(device);
                const std::vector<float> values{1.0f + rank, 10.0f * (rank + 1)};
                float* buffer = buffers.upload(values);
                AllReduceOptions mean;
                mean.op = ReduceOp::Mean;
                nccl.communicator(rank).allReduce({buffer, values.size()}, mean).wait();
                results[rank] = buffers.download(buffer, values.size());
            });
        for (std::thread& thread : threads) thread.join();
        expect(results[0] == std::vector<float>{1.5f, 15.0f} && results[1] == results[0], "NCCL MEAN over a thread per GPU");
    } catch (const std::exception& failure) {
        expect(false, std::string("NCCL communicators: ") + failure.what());
    }
}

/// A GpuTrainer for `config` planned on this machine, with graphs allowed or not.
std::unique_ptr<GpuTrainer> gpuTrainer(const RunConfig& config, const DataSplit& data, bool graphs) {
    Result<GpuPlan> plan = planGpuRunHere(config);
    if (!plan) {
        expect(false, "planning failed: " + plan.error().message);
        return nullptr;
    }
    if (!graphs) plan->graph = {false, "turned off by the test"};
    return std::make_unique<GpuTrainer>(config, data, *plan);
}

void graphReplayEqualsEager(const char* what, const RunConfig& config, const DataSplit& data) {
    constexpr int kSteps = 20;
    try {
        const auto graph = gpuTrainer(config, data, true);
        const auto eager = gpuTrainer(config, data, false);
        if (!graph || !eager) return;
        expect(graph->graphCapture().eligible, std::string(what) + ": the plan may be captured (" + graph->graphCapture().reason + ")");
        bool lossesEqual = true;
        for (int s = 0; s < kSteps; ++s) {
            // A schedule's change mid-run reaches the replayed graph through its device scalars.
            if (s == kSteps / 2) {
                graph->setLearningRate(0.5f * graph->learningRate());
                eager->setLearningRate(0.5f * eager->learningRate());
            }
            lossesEqual = lossesEqual && graph->step().loss == eager->step().loss;
        }
        const bool replayed = graph->lastStepMode() == GpuStepMode::Replay;
        const bool same = parametersOf(*graph) == parametersOf(*eager);
        std::printf("  %s: graph %s, %d steps: parameters %s, losses %s\n", what, replayed ? "replayed" : "NOT replayed", kSteps,
                    same ? "bit for bit equal" : "DIFFER", lossesEqual ? "equal" : "DIFFER");
        expect(replayed, std::string(what) + ": the step was replayed from its graph (" + graph->graphCapture().reason + ")");
        expect(same && lossesEqual, std::string(what) + ": a replayed step equals an eager one bit for bit");
    } catch (const std::exception& error) {
        expect(false, std::string(what) + ": " + error.what());
    }
}

void graphReplay() {
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    graphReplayEqualsEager("sgd", onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1)), data);
    graphReplayEqualsEager("momentum, accumulation 2", onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 2)),
                           data);
    graphReplayEqualsEager("adam", onGpus(testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1)), data);
}

/// The mirror is downloaded only when read, and then says what the GPU has; the watched values
/// (gathered on the device each step), gradient norms and device-timed phases agree with the CPU.
void hostMirrorAndTelemetry() {
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const RunConfig config = testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 2);
    const auto cpu = trained(config, data, 0);
    const auto gpu = trained(onGpus(config), data, 0);
    if (!cpu || !gpu) return;
    const std::vector<std::int64_t> watched{0, 7, 1'000'000};  // the last is out of range: reads 0
    cpu->setWatched(watched);
    gpu->setWatched(watched);
    for (int s = 0; s < 5; ++s) cpu->step();
    StepReport report;
    for (int s = 0; s < 5; ++s) report = gpu->step();
    const StepReport& cpuReport = cpu->step();
    report = gpu->step();
    const ReplicaStepStats& g = report.replicas[0];
    const ReplicaStepStats& c = cpuReport.replicas[0];
    const std::vector<float> values = parametersOf(*gpu);  // the download happens here
    expect(g.watched[0] == values[0] && g.watched[1] == values[7] && g.watched[2] == 0.0f,
           "watched values gathered on the device equal the downloaded mirror's");
    expect(std::abs(g.watched[1] - c.watched[1]) <= 1e-5 * std::max(1.0f, std::abs(c.watched[1])), "watched value 7 as the CPU's");
    const double normGap = std::abs(g.gradNormBefore - c.gradNormBefore) / std::max(1e-12, c.gradNormBefore);
    std::printf("  gradient norm: gpu %.9g, cpu %.9g (relative %.2e); after %.9g\n", g.gradNormBefore, c.gradNormBefore, normGap,
                g.gradNormAfter);
    expect(normGap <= 1e-5 && g.gradNormAfter == g.gradNormBefore, "gradient norms on the device as the CPU's (one replica: equal)");
    const PhaseSplit split = splitStep(report);
    std::printf("  phases (µs): compute %.1f, communication %.1f, optimizer %.1f, idle %.1f; %zu spans\n", split[Phase::Compute] / 1e3,
                split[Phase::Communication] / 1e3, split[Phase::Optimizer] / 1e3, split[Phase::Idle] / 1e3, g.spans.size());
    expect(g.spans.size() == 2 * 2 + 1 && split[Phase::Compute] > 0.0 && split[Phase::Optimizer] > 0.0,
           "forward and backward of 2 micro-batches and the optimizer, timed on the device");
    expect(report.startNs <= g.startNs && g.startNs <= g.computeEndNs && g.computeEndNs <= g.updateEndNs && g.updateEndNs <= report.endNs,
           "the device's phases lie inside the step on the run's clock");
    // Evaluating twice without a step in between downloads once; both say the same.
    const EvalResult first = gpu->evaluate(data.test), second = gpu->evaluate(data.test);
    expect(first.loss == second.loss, "evaluation reads the downloaded mirror");
}

void ringTelemetry() {
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const auto four = trained(onGpus(testing::smallConfig(4, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1), 4, 256), data, 3);
    if (!four) return;
    const StepReport& report = four->step();
    const PhaseSplit split = splitStep(report);
    std::printf("  4 logical GPUs, phases (µs): compute %.1f, communication %.1f, optimizer %.1f\n", split[Phase::Compute] / 1e3,
                split[Phase::Communication] / 1e3, split[Phase::Optimizer] / 1e3);
    expect(split[Phase::Communication] > 0.0 && report.replicas[0].bytesSent > 0, "the ring's time and bytes are reported");
    // Not a count: the ring's formula, 2 (N - 1) / N of the gradient's bytes, and the report says so.
    expect(report.bytesFromRingFormula, "the ring's bytes are marked as the ring's formula");
    const ReplicaStepStats& r0 = report.replicas[0];
    expect(r0.gradNormBefore > 0.0 && r0.gradNormAfter > 0.0 && r0.gradNormAfter != r0.gradNormBefore,
           "the reduced gradient's norm is measured after the ring, the replica's own before it");
}

}  // namespace

int main() {
    DistlabCudaStatus status{};
    distlabCudaQueryStatus(&status);
    if (status.deviceCount <= 0) {
        std::printf("SKIP: no usable GPU (%s)\n", status.errorCode != 0 ? status.errorString : "no device");
        return 77;
    }
    oneDeviceParity();
    mirroredOnFourLogicalGpusEqualsOne();
    loadedWeightsReachTheGpu();
    tinyMemoryLimitGivesTheClearError();
    twoPhysicalGpusReduceWithNccl(status.deviceCount);
    graphReplay();
    hostMirrorAndTelemetry();
    ringTelemetry();
    std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
