#include "distlab/study/step_time_model.hpp"

#include <algorithm>
#include <thread>
#include <vector>

#include "distlab/comm/all_reduce_benchmark.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/io/run_config_json.hpp"
#include "distlab/telemetry/phase_split.hpp"

namespace distlab {

namespace {

// Enough timed steps (and time) to average out the clock's granularity and a stray interruption,
// few enough that calibrating a study takes well under a second on small models.
constexpr int kWarmupSteps = 5;
constexpr int kMinTimedSteps = 20;
constexpr int kMaxTimedSteps = 2000;
constexpr std::int64_t kMinTimedNs = 50'000'000;
constexpr std::int64_t kMinReductionNs = 20'000'000;

}  // namespace

AlphaBeta fitAlphaBeta(std::span<const std::pair<double, double>> points) {
    if (points.empty()) return {};
    double meanX = 0, meanY = 0;
    for (const auto& [x, y] : points) {
        meanX += x;
        meanY += y;
    }
    meanX /= double(points.size());
    meanY /= double(points.size());
    double sxx = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        sxx += (x - meanX) * (x - meanX);
        sxy += (x - meanX) * (y - meanY);
    }
    AlphaBeta fit;
    fit.betaNsPerByte = sxx > 0 ? std::max(0.0, sxy / sxx) : 0.0;
    fit.alphaNs = std::max(0.0, meanY - fit.betaNsPerByte * meanX);
    return fit;
}

StepTimeModel::StepTimeModel(int cores)
    : m_cores(cores > 0 ? cores : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {}

Result<ComputeCost> StepTimeModel::computeCost(const RunConfig& config, std::int64_t microBatch, std::int64_t threads) {
    // One replica of the variant: its model and data, one device, one micro-batch per update.
    RunConfig one = config;
    one.name = "calibration";
    one.steps = 0;
    one.evalEvery = 0;
    one.threads = threads;
    one.strategy = StrategyConfig{};
    one.data.globalBatchSize = microBatch;
    const std::string key = runConfigToJson(one);
    if (auto found = m_compute.find(key); found != m_compute.end()) return found->second;
    auto created = Trainer::create(one);
    if (!created) return created.error();
    Trainer& trainer = **created;
    for (int i = 0; i < kWarmupSteps; ++i) trainer.step();
    PhaseSplit sum;
    int steps = 0;
    std::int64_t wallNs = 0;  // inside step() only, as the study runner times a variant
    while (steps < kMaxTimedSteps && (steps < kMinTimedSteps || wallNs < kMinTimedNs)) {
        const std::int64_t before = nowNs();
        const StepReport& report = trainer.step();
        wallNs += nowNs() - before;
        sum.add(splitStep(report));
        ++steps;
    }
    ComputeCost cost;
    cost.computeNs = sum[Phase::Compute] / steps;
    cost.optimizerNs = sum[Phase::Optimizer] / steps;
    cost.otherNs = std::max(0.0, double(wallNs) / steps - cost.computeNs - cost.optimizerNs);
    cost.parameters = static_cast<std::int64_t>(trainer.primaryModel().store().values().size());
    m_compute.emplace(key, cost);
    return cost;
}

AlphaBeta StepTimeModel::reductionCost(CrossDeviceOps algorithm, int replicas, std::int64_t packBytes) {
    const auto key = std::make_tuple(algorithm, replicas, packBytes);
    if (auto found = m_reductions.find(key); found != m_reductions.end()) return found->second;
    // Four sizes around the pack's, so the line is right where it is used.
    const std::int64_t elements = std::max<std::int64_t>(16, packBytes / 4);
    std::vector<AlignedVector<float>> buffers(static_cast<std::size_t>(replicas));
    for (auto& buffer : buffers) buffer.resize(static_cast<std::size_t>(2 * elements));
    InProcessGroup group(replicas, algorithm);
    std::vector<std::pair<double, double>> points;
    for (std::int64_t size : {elements / 4, elements / 2, elements, 2 * elements}) {
        size = std::max<std::int64_t>(1, size);
        // Enough iterations for kMinReductionNs, from a short probe.
        const AllReduceMeasurement probe = measureAllReduce(group, buffers, size, ReduceOp::Sum, 2, 5);
        const auto iters = static_cast<long long>(std::clamp(double(kMinReductionNs) / std::max(1.0, probe.timeUs * 1e3), 5.0, 20000.0));
        const AllReduceMeasurement measured = measureAllReduce(group, buffers, size, ReduceOp::Sum, 5, iters);
        points.emplace_back(double(measured.bytes), measured.timeUs * 1e3);
    }
    const AlphaBeta fit = fitAlphaBeta(points);
    m_reductions.emplace(key, fit);
    return fit;
}

double StepTimeModel::dispatchCost(int replicas, int threadsPerReplica) {
    const auto key = std::make_pair(replicas, threadsPerReplica);
    if (auto found = m_dispatch.find(key); found != m_dispatch.end()) return found->second;
    ReplicaPool pool(replicas, threadsPerReplica, [](int) {});
    for (int i = 0; i < kWarmupSteps; ++i) pool.run();
    int runs = 0;
    const std::int64_t start = nowNs();
    while (runs < kMaxTimedSteps * 10 && (runs < kMinTimedSteps || nowNs() - start < kMinReductionNs)) {
        pool.run();
        ++runs;
    }
    const double ns = double(nowNs() - start) / runs;
    m_dispatch.emplace(key, ns);
    return ns;
}

Result<StepTimePrediction> StepTimeModel::predict(const RunConfig& config) {
    const StrategyConfig& strategy = config.strategy;
    if (strategy.type != StrategyKind::OneDevice && strategy.type != StrategyKind::Mirrored)
        return Error{std::string("the step-time model does not cover ") + configName(strategy.type) + " yet"};
    const auto replicas = static_cast<int>(strategy.replicaCount());
    const std::int64_t accumulation = strategy.gradientAccumulationSteps;
    const std::int64_t microBatch = std::max<std::int64_t>(1, config.data.globalBatchSize / (replicas * accumulation));
    const std::int64_t threads = std::max<std::int64_t>(1, (config.threads > 0 ? config.threads : m_cores) / replicas);
    auto cost = computeCost(config, microBatch, threads);
    if (!cost) return cost.error();
    // Replica threads beyond the cores take turns: their compute and update stretch by the ratio.
    const double stretch = std::max(1.0, double(replicas) / double(m_cores));
    StepTimePrediction prediction;
    prediction.computeMs = double(accumulation) * cost->computeNs * stretch * 1e-6;
    prediction.optimizerMs = (cost->optimizerNs + cost->otherNs) * stretch * 1e-6;
    if (replicas > 1) {
        const std::int64_t gradientBytes = cost->parameters * 4;
        const std::int64_t packs = strategy.bytesPerPack > 0
                                       ? std::max<std::int64_t>(1, (gradientBytes + strategy.bytesPerPack - 1) / strategy.bytesPerPack)
                                       : std::max<std::int64_t>(1, strategy.numPacks);
        const std::int64_t packBytes = std::max<std::int64_t>(4, gradientBytes / packs);
        prediction.communicationMs = double(packs) * reductionCost(strategy.crossDeviceOps, replicas, packBytes).ns(double(packBytes)) * 1e-6;
        prediction.optimizerMs += dispatchCost(replicas, static_cast<int>(threads)) * 1e-6;
    }
    prediction.stepMs = prediction.computeMs + prediction.communicationMs + prediction.optimizerMs;
    return prediction;
}

}  // namespace distlab
