// The GPU trainer behind Trainer::create for gpu:K devices, against the CPU engine: one_device on
// gpu:0 ends where the CPU one_device trainer ends (SGD with momentum, Nesterov, Adam, MSE,
// accumulation); mirrored on 4 logical GPUs of one physical GPU ends where 1 GPU ends, with equal
// copies; the host mirror (what views, checkpoints and evaluation read) follows every step and
// loaded weights reach the GPUs; a logical GPU with a tiny memory limit refuses with the clear
// error; two physical GPUs (NCCL) are refused as not built yet. Exit 77 (CTest: skipped) without a GPU.
#include <cstdio>
#include <memory>

#include "cuda_test_support.hpp"
#include "distlab/distribute/trainer.hpp"
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
    std::printf("  %s: gpu:0 vs cpu one_device after %d steps: relative error %.2e, next loss %+.2e\n", what, kSteps, error,
                lossGap);
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
    std::printf("  mirrored on 4 logical GPUs (256 MiB each) vs gpu:0 alone, %d steps: relative error %.2e, copies %s\n", kSteps,
                error, copiesEqual ? "identical" : "DIFFER");
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
    expect(message.find("gpu:0: out of memory: asked for") != std::string::npos &&
               message.find("limit") != std::string::npos,
           "a tiny memory_limit_mb names the device and the cause (got \"" + message + "\")");
}

void twoPhysicalGpusAreRefusedUntilNcclIsBuilt(int deviceCount) {
    if (deviceCount < 2) {
        std::printf("  (2 physical GPUs: skipped, this machine has %d)\n", deviceCount);
        return;
    }
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    std::string message;
    try {
        Trainer::create(onGpus(testing::smallConfig(2, CrossDeviceOps::Nccl, OptimizerKind::Sgd, 0.0, 1)), data);
    } catch (const TrainingError& error) {
        message = error.what();
    }
    expect(message.find("NCCL") != std::string::npos, "two physical GPUs say NCCL is not built yet (got \"" + message + "\")");
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
    twoPhysicalGpusAreRefusedUntilNcclIsBuilt(status.deviceCount);
    std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
