#include "distribute/gpu_trainer.hpp"

#if DISTLAB_HAVE_CUDA
#include "comm/logical_gpu_group.hpp"
#include "cuda_math.h"
#include "distlab/comm/communicator.hpp"
#include "distribute/gpu_replica.hpp"

namespace distlab {
namespace {

/// The host mirror's config: the same run on as many logical CPU devices (it only holds variables).
RunConfig hostMirrorConfig(RunConfig config) {
    const auto replicas = config.strategy.devices.size();
    config.strategy.devices.clear();
    for (std::size_t r = 0; r < replicas; ++r) config.strategy.devices.push_back(Device::cpu(static_cast<int>(r)));
    config.strategy.gpu = {};
    return config;
}

}  // namespace

GpuTrainer::GpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan)
    : m_config(config),
      m_plan(std::move(plan)),
      m_host(std::make_unique<MirroredTrainer>(hostMirrorConfig(config), std::move(data))),
      m_sampler(m_host->data().train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_clockOriginNs(nowNs()),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    if (m_plan.reduction == GpuReduction::Nccl)
        throw TrainingError("strategy.devices: replicas on distinct physical GPUs (NCCL) are planned but not built in this "
                            "version; use logical GPUs of one physical GPU (strategy.gpu.logical_per_physical)");
    const int replicas = replicaCount();
    const std::int64_t steps = config.strategy.gradientAccumulationSteps;
    const std::int64_t microRows = config.data.globalBatchSize / replicas / steps;
    m_group = std::make_unique<LogicalGpuGroup>(m_plan.replicas);
    for (int r = 0; r < replicas; ++r) {
        m_replicas.push_back(std::make_unique<GpuReplica>(m_group->device(r), config, m_host->replicaModel(r), microRows, steps));
        m_gradients.push_back(m_replicas.back()->gradients());
    }
    m_report.replicas.resize(static_cast<std::size_t>(replicas));
}

GpuTrainer::~GpuTrainer() {
    m_replicas.clear();  // their buffers go back to the devices before the group closes them
}

std::int64_t GpuTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

void GpuTrainer::broadcastParameters() {
    m_host->broadcastParameters();
    m_hostChanged = true;
}

void GpuTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
    m_host->restoreProgress(stepsDone, epoch, cursor);
    m_hostChanged = true;  // a resumed checkpoint wrote the host's slots and iterations too
}

void GpuTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    m_watched.assign(flatIndices.begin(), flatIndices.begin() + std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues));
}

void GpuTrainer::reduceGradients() {
    if (m_plan.reduction != GpuReduction::LogicalRing) return;  // one replica: its gradient is the sum
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    // SUM, as the CPU ranks: each replica's loss is already scaled by 1 / global batch.
    if (distlabCudaRingAllReduce(m_group->devices(), m_gradients.data(), replicaCount(), m_replicas[0]->parameterCount(), 0,
                                 message) != 0)
        throw TrainingError(message);
}

const StepReport& GpuTrainer::step() {
    const int replicas = replicaCount();
    if (m_hostChanged) {
        for (int r = 0; r < replicas; ++r) m_replicas[r]->upload(m_host->replicaModel(r), m_host->replicaOptimizer(r));
        m_hostChanged = false;
    }
    const std::span<const std::int64_t> batch = m_sampler.next();
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_report.startNs = clockNs();
    const std::int64_t steps = m_config.strategy.gradientAccumulationSteps;
    const float scale = 1.0f / static_cast<float>(m_config.data.globalBatchSize);
    // One thread queues every replica's work; the streams run side by side on the GPU.
    for (int r = 0; r < replicas; ++r) {
        m_replicas[r]->zeroGradients();
        for (std::int64_t micro = 0; micro < steps; ++micro) {
            gatherBatch(m_host->data().train, BatchSampler::shard(batch, r, replicas, micro, steps), m_input, m_targets);
            m_replicas[r]->queueMicroBatch(static_cast<int>(micro), m_input, m_targets, scale);
        }
    }
    reduceGradients();
    for (int r = 0; r < replicas; ++r) {
        Optimizer& optimizer = m_host->replicaOptimizer(r);
        optimizer.beginUpdate();  // the host copy's t is the device's (Adam), and checkpoints save it
        m_replicas[r]->queueUpdate(m_report.learningRate, optimizer.iterations());
    }
    fillReport(batch);
    return m_report;
}

void GpuTrainer::fillReport(std::span<const std::int64_t> batch) {
    const int replicas = replicaCount();
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (int r = 0; r < replicas; ++r) {
        const GpuShardFigures figures = m_replicas[r]->collectFigures();
        m_replicas[r]->download(m_host->replicaModel(r), m_host->replicaOptimizer(r));
        ReplicaStepStats& stats = m_report.replicas[static_cast<std::size_t>(r)];
        stats = ReplicaStepStats{};
        stats.lossSum = figures.lossSum;
        stats.correct = figures.correct;
        stats.examples = static_cast<std::int64_t>(batch.size()) / replicas;
        // Per-phase GPU times need events around each phase (not measured yet): the whole step is
        // reported as compute, so the views do not show a communication share that was not measured.
        stats.startNs = m_report.startNs;
        stats.computeEndNs = stats.commEndNs = stats.updateEndNs = clockNs();
        const auto values = m_host->replicaModel(r).store().values();
        for (std::size_t w = 0; w < m_watched.size(); ++w) {
            const std::int64_t index = m_watched[w];
            stats.watched[w] = index >= 0 && index < static_cast<std::int64_t>(values.size()) ? values[static_cast<std::size_t>(index)] : 0.0f;
        }
        lossSum += figures.lossSum;
        correct += figures.correct;
    }
    m_report.endNs = clockNs();
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    const auto global = static_cast<double>(m_config.data.globalBatchSize);
    m_report.loss = lossSum / global;
    m_report.accuracy = m_host->data().train.isClassification() ? static_cast<double>(correct) / global : -1.0;
}

}  // namespace distlab
#endif  // DISTLAB_HAVE_CUDA
