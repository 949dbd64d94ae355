#include "distribute/gpu_trainer.hpp"

#include "comm/logical_gpu_group.hpp"
#include "comm/nccl_group.hpp"
#include "cuda_math.h"
#include "distlab/comm/communicator.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "distribute/gpu_replica.hpp"
#include "distribute/gpu_step_graph.hpp"
#include "distribute/gpu_step_timing.hpp"

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
    const int replicas = replicaCount();
    const std::int64_t steps = config.strategy.gradientAccumulationSteps;
    const std::int64_t microRows = config.data.globalBatchSize / replicas / steps;
    m_group = std::make_unique<LogicalGpuGroup>(m_plan.replicas);
    for (int r = 0; r < replicas; ++r) {
        m_replicas.push_back(std::make_unique<GpuReplica>(m_group->device(r), config, m_host->replicaModel(r), microRows, steps));
        m_gradients.push_back(m_replicas.back()->gradients());
    }
    if (m_plan.reduction == GpuReduction::Nccl)
        m_nccl = std::make_unique<NcclGroup>(std::span<DistlabCudaDevice* const>(m_group->devices(), m_group->size()));
    if (m_plan.graph.eligible) m_graph = std::make_unique<GpuStepGraph>(m_group->device(0));
    m_spans.resize(static_cast<std::size_t>(replicas));
    m_report.replicas.resize(static_cast<std::size_t>(replicas));
}

GpuTrainer::~GpuTrainer() {
    m_graph.reset();
    m_nccl.reset();      // NCCL's communicators go before the streams they were used on
    m_replicas.clear();  // their buffers go back to the devices before the group closes them
}

std::int64_t GpuTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

void GpuTrainer::syncHost() const {
    m_mirror.beforeHostRead([this] {
        for (int r = 0; r < replicaCount(); ++r)
            m_replicas[static_cast<std::size_t>(r)]->download(m_host->replicaModel(r), m_host->replicaOptimizer(r));
    });
}

EvalResult GpuTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    syncHost();
    return m_host->evaluate(data, maxExamples);
}

const Tensor& GpuTrainer::predict(const Tensor& input) {
    syncHost();
    return m_host->predict(input);
}

Model& GpuTrainer::replicaModel(int replica) {
    syncHost();
    return m_host->replicaModel(replica);
}

const Model& GpuTrainer::replicaModel(int replica) const {
    syncHost();
    return m_host->replicaModel(replica);
}

Optimizer& GpuTrainer::replicaOptimizer(int replica) {
    syncHost();
    return m_host->replicaOptimizer(replica);
}

void GpuTrainer::broadcastParameters() {
    syncHost();  // the copies the primary is not written into must be current too
    m_host->broadcastParameters();
    m_mirror.hostWritten();
}

void GpuTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    syncHost();
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
    m_host->restoreProgress(stepsDone, epoch, cursor);
    m_mirror.hostWritten();  // a resumed checkpoint wrote the host's slots and iterations too
}

void GpuTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    const std::span<const std::int64_t> kept = flatIndices.first(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues));
    for (auto& replica : m_replicas) replica->setWatched(kept);
}

void GpuTrainer::reduceGradients() {
    // SUM, as the CPU ranks: each replica's loss is already scaled by 1 / global batch.
    const std::int64_t count = m_replicas[0]->parameterCount();
    if (m_plan.reduction == GpuReduction::Nccl) {
        m_nccl->allReduceAll(m_gradients, count);  // one grouped call queues every GPU's part
        return;
    }
    if (m_plan.reduction != GpuReduction::LogicalRing) return;  // one replica: its gradient is the sum
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabCudaRingAllReduce(m_group->devices(), m_gradients.data(), replicaCount(), count, 0, message) != 0)
        throw TrainingError(message);
}

void GpuTrainer::queueStep(float scale) {
    for (auto& replica : m_replicas) replica->queueCompute(scale);
    reduceGradients();
    for (auto& replica : m_replicas) replica->queueUpdate();
}

void GpuTrainer::runStep(float scale) {
    const std::vector<std::int64_t>& rows = m_replicas[0]->stagedRows();
    m_lastMode = gpuStepMode(m_plan.graph.eligible && m_graph != nullptr, m_eagerSteps, m_graph && m_graph->ready(),
                             m_graph && m_graph->matches(rows));
    if (m_lastMode == GpuStepMode::Capture) {
        const std::string failure = m_graph->capture([&] { queueStep(scale); }, rows);
        if (!failure.empty()) {
            // Nothing was recorded and the stream is eager again: the run goes on without graphs.
            m_plan.graph = {false, "the capture failed: " + failure};
            m_graph.reset();
            m_lastMode = GpuStepMode::Eager;
        }
    }
    switch (m_lastMode) {
        case GpuStepMode::Eager:
            queueStep(scale);
            ++m_eagerSteps;
            break;
        case GpuStepMode::Capture:
        case GpuStepMode::Replay:
            m_graph->launch();
            break;
    }
}

const StepReport& GpuTrainer::step() {
    const int replicas = replicaCount();
    m_mirror.beforeStep([&] {
        for (int r = 0; r < replicas; ++r) m_replicas[r]->upload(m_host->replicaModel(r), m_host->replicaOptimizer(r));
    });
    const std::span<const std::int64_t> batch = m_sampler.next();
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_report.startNs = clockNs();
    const std::int64_t steps = m_config.strategy.gradientAccumulationSteps;
    const float scale = 1.0f / static_cast<float>(m_config.data.globalBatchSize);
    // Every input and scalar of the step goes into the replicas' fixed buffers first, then one
    // thread queues (or replays) every replica's work; the streams run side by side on the GPU.
    for (int r = 0; r < replicas; ++r) {
        for (std::int64_t micro = 0; micro < steps; ++micro) {
            const ConstTensorView input =
                gatherBatch(m_host->data().train, BatchSampler::shard(batch, r, replicas, micro, steps), m_input, m_targets);
            m_replicas[r]->stageMicroBatch(static_cast<int>(micro), input, m_targets);
        }
        Optimizer& optimizer = m_host->replicaOptimizer(r);
        optimizer.beginUpdate();  // the host copy's t is the device's (Adam), and checkpoints save it
        m_replicas[r]->stageScalars(m_report.learningRate, optimizer.iterations());
    }
    runStep(scale);
    m_mirror.stepped();
    fillReport(batch);
    return m_report;
}

void GpuTrainer::fillReport(std::span<const std::int64_t> batch) {
    const int replicas = replicaCount();
    const bool reduced = m_plan.reduction != GpuReduction::None;
    const auto gradientBytes = static_cast<std::int64_t>(m_replicas[0]->parameterCount() * sizeof(float));
    // What a ring all-reduce sends per rank: 2 (n - 1) / n of the buffer. A formula, not a count
    // (NCCL and the device ring are not instrumented), and the report says so.
    const std::int64_t bytesSent = reduced ? 2 * (replicas - 1) * gradientBytes / replicas : 0;
    m_report.bytesFromRingFormula = reduced;
    // A peer that never arrives must not hang the wait below: NCCL's wait gives up (and aborts) in time.
    if (m_nccl) m_nccl->waitAll();
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (int r = 0; r < replicas; ++r) {
        const GpuShardFigures figures = m_replicas[r]->collectFigures();
        const std::int64_t doneNs = clockNs();
        ReplicaStepStats& stats = m_report.replicas[static_cast<std::size_t>(r)];
        stats = ReplicaStepStats{};
        stats.lossSum = figures.lossSum;
        stats.correct = figures.correct;
        stats.examples = static_cast<std::int64_t>(batch.size()) / replicas;
        stats.gradNormBefore = figures.gradNormBefore;
        stats.gradNormAfter = figures.gradNormAfter;
        stats.bytesSent = bytesSent;
        std::copy(figures.watched.begin(), figures.watched.end(), stats.watched);
        // The phases as the device timed them, placed so the update ends when the wait returned.
        SpanRecorder& spans = m_spans[static_cast<std::size_t>(r)];
        const std::int64_t startNs =
            recordGpuStepSpans(m_replicas[r]->points(), figures.pointMs, reduced, bytesSent, doneNs, m_report.startNs, spans);
        stats.spans = spans.spans();
        const StepTimes times = stepTimes(startNs, stats.spans, doneNs);
        stats.startNs = times.startNs;
        stats.computeEndNs = times.computeEndNs;
        stats.commEndNs = times.commEndNs;
        stats.updateEndNs = times.updateEndNs;
        lossSum += figures.lossSum;
        correct += figures.correct;
    }
    m_report.endNs = clockNs();
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    const auto global = static_cast<double>(m_config.data.globalBatchSize);
    m_report.samples = m_config.data.globalBatchSize;
    m_report.loss = lossSum / global;
    m_report.accuracy = m_host->data().train.isClassification() ? static_cast<double>(correct) / global : -1.0;
}

}  // namespace distlab
