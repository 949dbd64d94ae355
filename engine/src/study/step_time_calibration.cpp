// The step-time model's measurements (step_time_calibration.hpp). Each runs the engine's own code:
// the layers, loss, gather and optimizer of a replica step, the one-device trainer, the
// collectives benchmark, the replica pool, the parameter-server transport and trainer.
#include "study/step_time_calibration.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "distlab/comm/all_reduce_benchmark.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/config/run_config_json.hpp"
#include "distlab/optim/optimizer.hpp"
#include "distribute/parameter_transport.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {

namespace {

constexpr int kWarmupSteps = 5;
constexpr std::int64_t kStepBlockNs = 2'000'000;  // a one-device or protocol step: blocks of 2 ms
constexpr std::int64_t kReductionBlockNs = 2'000'000;

/// One copy's pieces, each timed alone in a loop (a piece is as cache-warm as in a step, where
/// the micro-batch's buffers stay in cache from one piece to the next). `sync` is called before
/// each piece, so concurrent copies time the same piece at the same moment.
template <class Sync>
RowsMeasurement measurePieces(const RunConfig& config, const Dataset& data, int threads, Sync&& sync) {
    omp_set_num_threads(threads);
    Model model(config.model, data.features);
    model.initialize(config.model.init, config.seed);
    ReplicaBatch buffers(model);
    const LossFunction loss(config.model.loss);
    auto optimizer = makeOptimizer(config.optimizer, model.store().totalSize());
    const std::int64_t rows = config.data.globalBatchSize;
    std::vector<std::int64_t> indices;
    // Scattered, as a shuffled batch, which gatherBatch copies; consecutive, as an unshuffled one,
    // which it reads in place.
    for (std::int64_t r = 0; r < rows; ++r) indices.push_back((config.data.shuffle ? r * 7919 : r) % data.count);
    const float scale = 1.0f / float(rows);
    const ConstTensorView input = gatherBatch(data, indices, buffers.input, buffers.targets);
    const Tensor& output = model.forward(input, buffers.context);
    loss.evaluate(output, buffers.targets, scale, buffers.lossGrad);
    model.zeroGradients();
    model.backward(input, buffers.lossGrad, buffers.context);

    RowsMeasurement m;
    m.parameters = model.store().totalSize();
    const auto& layers = model.layers();
    m.micro.layers.resize(layers.size());
    sync();
    m.micro.gatherNs = medianNsPerCall([&] { gatherBatch(data, indices, buffers.input, buffers.targets); });
    const std::vector<double> forwardNs = timeLayerForwards(model, input, buffers.context, sync);
    sync();
    m.micro.lossNs = medianNsPerCall([&] { loss.evaluate(buffers.context.output(), buffers.targets, scale, buffers.lossGrad); });
    const std::vector<double> backwardNs = timeLayerBackwards(model, input, buffers.lossGrad, buffers.context, sync);
    for (std::size_t i = 0; i < layers.size(); ++i) m.micro.layers[i] = LayerTimes{forwardNs[i], backwardNs[i]};
    sync();
    // A zero rate keeps the values (and so the arithmetic) the same from one call to the next.
    m.optimizerNs = medianNsPerCall([&] { optimizer->apply(model.store().values(), model.store().grads(), 0.0f); });
    return m;
}

/// The mean of several copies' measurements.
RowsMeasurement mean(const std::vector<RowsMeasurement>& all) {
    RowsMeasurement out = all.front();
    const double n = double(all.size());
    auto average = [&](auto field) {
        double sum = 0;
        for (const RowsMeasurement& one : all) sum += field(one);
        return sum / n;
    };
    out.micro.gatherNs = average([](const RowsMeasurement& m) { return m.micro.gatherNs; });
    out.micro.lossNs = average([](const RowsMeasurement& m) { return m.micro.lossNs; });
    out.optimizerNs = average([](const RowsMeasurement& m) { return m.optimizerNs; });
    for (std::size_t i = 0; i < out.micro.layers.size(); ++i) {
        out.micro.layers[i].forwardNs = average([i](const RowsMeasurement& m) { return m.micro.layers[i].forwardNs; });
        out.micro.layers[i].backwardNs = average([i](const RowsMeasurement& m) { return m.micro.layers[i].backwardNs; });
    }
    return out;
}

/// The mean step of `trainer`, timed inside step() as the study runner times a variant.
double measureStepNs(Trainer& trainer) {
    for (int i = 0; i < kWarmupSteps; ++i) trainer.step();
    return medianNsPerCall([&] { trainer.step(); }, kStepBlockNs);
}

}  // namespace

Result<RowsMeasurement> measureRows(const RunConfig& oneDevice, int concurrent, bool withStep) {
    auto created = Trainer::create(oneDevice);
    if (!created) return created.error();
    Trainer& trainer = **created;
    const Dataset& data = trainer.data().train;
    const int threads = static_cast<int>(std::max<std::int64_t>(1, oneDevice.threads));
    std::vector<RowsMeasurement> copies(static_cast<std::size_t>(std::max(1, concurrent)));
    {
        SpinBarrier barrier(static_cast<int>(copies.size()));
        auto sync = [&] { barrier.arriveAndWait(); };
        std::vector<std::jthread> others;
        for (std::size_t c = 1; c < copies.size(); ++c)
            others.emplace_back([&, c] { copies[c] = measurePieces(oneDevice, data, threads, sync); });
        copies[0] = measurePieces(oneDevice, data, threads, sync);
    }
    RowsMeasurement result = mean(copies);
    if (withStep) {
        omp_set_num_threads(threads);
        const double stepNs = measureStepNs(trainer);
        result.micro.otherNs = std::max(0.0, stepNs - result.micro.computeNs() - result.optimizerNs);
    }
    trainer.shutdown();
    return result;
}

AlphaBeta measureReduction(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes) {
    // Four sizes around the pack's, so the line is right where it is used; at each the median of
    // three runs of the benchmark.
    const std::int64_t elements = std::max<std::int64_t>(16, packBytes / 4);
    std::vector<AlignedVector<float>> buffers(static_cast<std::size_t>(replicas));
    for (auto& buffer : buffers) buffer.resize(static_cast<std::size_t>(2 * elements));
    InProcessGroup group(replicas, algorithm);
    std::vector<std::pair<double, double>> points;
    for (std::int64_t size : {elements / 4, elements / 2, elements, 2 * elements}) {
        size = std::max<std::int64_t>(1, size);
        const AllReduceMeasurement probe = measureAllReduce(group, buffers, size, ReduceOp::Sum, 2, 5);
        const auto iters = static_cast<long long>(std::clamp(double(kReductionBlockNs) / std::max(1.0, probe.timeUs * 1e3), 5.0, 20000.0));
        std::vector<double> runs;
        for (int run = 0; run < 3; ++run) runs.push_back(measureAllReduce(group, buffers, size, ReduceOp::Sum, 5, iters).timeUs * 1e3);
        std::sort(runs.begin(), runs.end());
        points.emplace_back(double(size * 4), runs[1]);
    }
    return fitAlphaBeta(points);
}

AlphaBeta measureTransport(std::int64_t bytes) {
    const std::int64_t elements = std::max<std::int64_t>(16, bytes / 4);
    InProcessParameterTransport transport(1, 2 * elements);
    std::vector<float> parameters(static_cast<std::size_t>(2 * elements), 1.0f);
    std::vector<std::pair<double, double>> points;
    for (std::int64_t size : {elements / 4, elements / 2, elements, 2 * elements}) {
        const std::span<const float> part(parameters.data(), static_cast<std::size_t>(size));
        points.emplace_back(double(size * 4), medianNsPerCall([&] { transport.sendParameters(0, part); }));
    }
    return fitAlphaBeta(points);
}

namespace {

/// The mean step of `config`'s trainer, measured twice, each with a trainer of its own, and the
/// faster counts: once in a while a run of threads that outnumber the cores stays in a slow mode
/// for all its blocks (4 mirrored replicas on 2 cores: 2.3 ms a step against 0.09 a moment
/// later), and one such measurement, cached, would spoil every prediction of that strategy on
/// this machine.
Result<double> fasterOfTwoRuns(const RunConfig& config) {
    double best = 0.0;
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto created = Trainer::create(config);
        if (!created) return created.error();
        const double ns = measureStepNs(**created);
        (*created)->shutdown();
        best = attempt == 0 ? ns : std::min(best, ns);
    }
    return best;
}

/// The mean step of a minimal model (two output units on the two-feature circle, one row per
/// replica or worker) under `strategy` (JSON): what the strategy's own machinery costs a step.
Result<double> measureMinimalStep(const std::string& strategy, std::int64_t rows, int threads) {
    const std::string text = R"({"name": "protocol", "threads": )" + std::to_string(threads) +
                             R"(, "model": {"layers": [{"units": 2}]}, "data": {"source": "synthetic", "kind": "circle",)"
                             R"( "samples": 64, "global_batch_size": )" +
                             std::to_string(rows) + R"(}, "strategy": )" + strategy + "}";
    auto config = parseRunConfig(text, "protocol.json");
    if (!config) return config.error();
    return fasterOfTwoRuns(*config);
}

}  // namespace

Result<double> measureMirroredProtocol(CrossDeviceOps algorithm, int replicas, std::int64_t packs, int threadsPerReplica) {
    auto alone = measureMinimalStep(R"({"type": "one_device"})", 1, threadsPerReplica);
    if (!alone) return alone.error();
    auto mirrored = measureMinimalStep(R"({"type": "mirrored", "replicas": )" + std::to_string(replicas) + R"(, "cross_device_ops": ")" +
                                           configName(algorithm) + R"(", "num_packs": )" + std::to_string(packs) + "}",
                                       replicas, threadsPerReplica * replicas);
    if (!mirrored) return mirrored.error();
    return std::max(0.0, *mirrored - *alone);
}

Result<double> measureServerUpdate(ParameterServerMode mode, int workers) {
    return measureMinimalStep(R"({"type": "parameter_server", "workers": )" + std::to_string(workers) + R"(, "mode": ")" +
                                  (mode == ParameterServerMode::Async ? "async" : "sync") + R"("})",
                              1, 1);
}

Result<double> measureOneWorkerServerStep(const RunConfig& config) {
    RunConfig one = config;
    one.name = "calibration";
    one.steps = 0;
    one.evalEvery = 0;
    StrategyConfig& strategy = one.strategy;
    strategy.workers = 1;
    strategy.mode = ParameterServerMode::Sync;
    strategy.gradientsToAggregate = 0;
    strategy.replicasPerWorker = 1;
    strategy.workerSpeed.clear();
    return fasterOfTwoRuns(one);
}

double measureSleepOvershoot() {
    constexpr auto kAsked = std::chrono::microseconds(20);
    std::vector<double> overshoots;
    for (int i = 0; i < 21; ++i) {
        const std::int64_t start = nowNs();
        std::this_thread::sleep_for(kAsked);
        overshoots.push_back(double(nowNs() - start) - 20'000.0);
    }
    std::nth_element(overshoots.begin(), overshoots.begin() + 10, overshoots.end());
    return std::max(0.0, overshoots[10]);
}

}  // namespace distlab
