#include "distlab/distribute/mirrored_rank.hpp"

#include <cmath>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/core/error.hpp"
#include "distlab/telemetry/phase_split.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/overlapped_reduction.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {
namespace {
double l2Norm(std::span<const float> values) { return std::sqrt(sumOfSquares(values)); }
}  // namespace

MirroredRank::MirroredRank(const RunConfig& config, std::int64_t features, Communicator& communicator, std::int64_t clockOriginNs,
                           bool overlapReduction)
    : m_config(config),
      m_communicator(communicator),
      // Its device in this process: under multi_worker_mirrored the rank is global (worker *
      // local replicas + local rank), the device the worker's local one.
      m_device(communicator.rank() % static_cast<int>(config.strategy.replicaCount())),
      m_centralStorage(config.strategy.type == StrategyKind::CentralStorage),
      m_clockOriginNs(clockOriginNs),
      m_loss(config.model.loss),
      m_model(config.model, features),
      m_optimizer(makeOptimizer(config.optimizer, m_model.store().totalSize())),
      m_packer(config.strategy, m_model.store().infos()) {
    m_batch = std::make_unique<ReplicaBatch>(m_model);
    const std::int64_t microBatch = config.data.globalBatchSize / communicator.size() / config.strategy.gradientAccumulationSteps;
    m_batch->input.resize2d(microBatch, features);
    m_batch->targets.labels.reserve(static_cast<std::size_t>(microBatch));
    m_batch->lossGrad.resize2d(microBatch, m_model.outputFeatures());
    m_gradientBlockSums.resize(squareSumBlocks(static_cast<std::size_t>(m_model.store().totalSize())));
    // Alone, with plain SGD and one micro-batch, nothing happens between a weight's gradient and
    // its update (no reduction, no accumulation, no slot), so the plan lets backward apply the
    // update as each gradient is finished where the layers can: the weights cross the memory bus
    // once a step instead of the gradient being written, read back and the weights read and
    // written again (W3: 50 MB a step).
    m_model.planStep({.plainSgd = m_optimizer->isPlainStep(),
                      .gradientStraightToUpdate = communicator.size() == 1 && config.strategy.gradientAccumulationSteps == 1});
    // With one pack there is nothing to overlap (it is ready when backward ends), and handing it to
    // a thread costs two thread wake-ups a step: a small model's step measured several times
    // slower on a loaded 2-core host (W2, 2 processes). So the thread is for two packs or more.
    if (overlapReduction && communicator.size() > 1 && !m_centralStorage && m_packer.packs().size() > 1)
        m_overlap = std::make_unique<OverlappedReduction>(communicator, m_device, m_model, m_packer.packs());
}

MirroredRank::~MirroredRank() = default;

std::int64_t MirroredRank::clockNs() const { return nowNs() - m_clockOriginNs; }

const ModelContext& MirroredRank::lastContext() const { return m_batch->context; }

void MirroredRank::broadcastParameters() {
    if (m_communicator.size() > 1) m_communicator.broadcast(m_model.store().values(), 0).wait();
}

void MirroredRank::setWatched(std::span<const std::int64_t> flatIndices) {
    // Positions are kept (an invalid index reports 0) so watched[i] always means the i-th request.
    m_watchedCount = static_cast<int>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues));
    for (int i = 0; i < m_watchedCount; ++i) {
        const std::int64_t index = flatIndices[static_cast<std::size_t>(i)];
        m_watched[static_cast<std::size_t>(i)] = index < m_model.store().totalSize() ? index : -1;
    }
}

void MirroredRank::step(const Dataset& data, std::span<const std::int64_t> batch, float learningRate) {
    const DeviceMemoryScope memory(m_device);  // a buffer that grows here still counts on this rank's device
    const int rank = m_communicator.rank();
    const int ranks = m_communicator.size();
    ReplicaStepStats& stats = m_stats;
    stats = ReplicaStepStats{};
    m_spans.clear();
    stats.startNs = clockNs();
    const bool fusesUpdate = m_model.stepPlan().fusesSgd;
    FusedSgdStep fused{learningRate, 0.0};
    // A rank bound to fail reduces nothing in the background: its peers wait for it in vain.
    OverlappedReduction* overlap = m_failure ? nullptr : m_overlap.get();
    if (overlap != nullptr) overlap->begin(m_model.store().grads(), m_figures);
    const LossStats loss = computeReplicaGradient(m_model, m_loss, data, batch, rank, ranks, m_config.strategy.gradientAccumulationSteps,
                                                  1.0f / static_cast<float>(m_config.data.globalBatchSize), *m_batch, &m_spans,
                                                  m_clockOriginNs, stats.startNs, fusesUpdate ? &fused : nullptr, overlap);
    stats.lossSum = loss.sum;
    stats.correct = loss.correct;
    stats.examples = loss.count;
    auto grads = m_model.store().grads();
    // The rank that updates its parameters reads the gradient's norm during the update (the same
    // bits, one pass over the gradient fewer): after the reduction that is the norm after; alone,
    // the one before as well. Before a reduction it is read off the finished gradient, part of
    // its backward.
    const bool updates = !m_centralStorage || rank == 0;
    if (ranks > 1 && overlap == nullptr) stats.gradNormBefore = l2Norm(grads);
    // Spans follow back to back, each ending where the next begins, so a step reads the clock few times.
    std::int64_t now = clockNs();
    m_spans.extendLast(now);
    if (m_failure) throw TrainingError(*m_failure);
    m_global = GlobalStepStats{loss.sum, loss.correct, loss.count};
    if (ranks > 1) {
        // The step's loss and accuracy come out of the reduction too (TF's strategy.reduce of the
        // per-replica losses), never out of a peer's memory: they ride on the last pack as its
        // companion, so they cost no extra synchronisation. float32 holds the counts exactly up
        // to 2^24 and the loss sum to about 1e-7 of its value.
        CollectiveTiming timing;
        if (overlap != nullptr) {
            timing = finishOverlapped(*overlap);
            stats.gradNormBefore = std::sqrt(overlap->squaresBefore());
            now = clockNs();
        } else {
            m_figures = {static_cast<float>(loss.sum), static_cast<float>(loss.correct), static_cast<float>(loss.count)};
            timing = reducePacks(now, updates);
        }
        stats.bytesSent += timing.bytesSent;
        m_global = GlobalStepStats{m_figures[0], std::llround(m_figures[1]), std::llround(m_figures[2])};
    }
    // Mirrored: every rank applies the same update to its own copy. Central storage: the
    // aggregated update is applied once, to the one copy (rank 0's), and the compute devices
    // receive the updated variables, as they would read them at the start of the next step.
    const auto values = m_model.store().values();
    auto readWatched = [&] {
        for (int w = 0; w < m_watchedCount; ++w) {
            const std::int64_t element = m_watched[static_cast<std::size_t>(w)];
            stats.watched[w] = element >= 0 ? values[static_cast<std::size_t>(element)] : 0.0f;
        }
    };
    if (updates) {
        if (fusesUpdate) {  // applied in backward: the Optimizer span is the watched values' read alone
            m_optimizer->beginUpdate();
            stats.gradNormAfter = std::sqrt(fused.squareSum);
        } else {
            stats.gradNormAfter = std::sqrt(m_optimizer->applyMeasuringGradient(values, grads, learningRate, m_gradientBlockSums));
        }
        if (ranks == 1) stats.gradNormBefore = stats.gradNormAfter;
        if (!m_centralStorage || ranks == 1) readWatched();  // reading the watched values closes the update
        const std::int64_t end = clockNs();
        m_spans.add(Span{now, end, 0, 0, -1, -1, SpanKind::Optimizer});
        now = end;
    }
    if (m_centralStorage && ranks > 1) {
        const CollectiveTiming read = m_communicator.broadcast(values, 0).wait();
        readWatched();
        const std::int64_t end = clockNs();
        m_spans.add(Span{now, end, read.bytesSent, read.waitNs, -1, -1, SpanKind::Broadcast});
        stats.bytesSent += read.bytesSent;
    }
    // The step's timestamps, as the phase split reads them, are the spans' (one definition).
    const StepTimes times = stepTimes(stats.startNs, m_spans.spans(), 0);
    stats.computeEndNs = times.computeEndNs;
    stats.commEndNs = times.commEndNs;
    stats.updateEndNs = times.updateEndNs;
    stats.commWaitNs = times.commWaitNs;
    stats.spans = m_spans.spans();
}

CollectiveTiming MirroredRank::reducePacks(std::int64_t& now, bool updates) {
    auto grads = m_model.store().grads();
    CollectiveTiming timing;
    const auto packs = m_packer.packs();
    for (std::size_t p = 0; p < packs.size(); ++p) {
        const bool last = p + 1 == packs.size();
        AllReduceOptions options{ReduceOp::Sum, static_cast<int>(p)};
        if (last) options.companion = m_figures;
        const CollectiveTiming pack =
            m_communicator
                .allReduce(grads.subspan(static_cast<std::size_t>(packs[p].begin), static_cast<std::size_t>(packs[p].size())), options)
                .wait();
        if (last && !updates) m_stats.gradNormAfter = l2Norm(grads);  // the norm after the reduction: with the last pack
        const std::int64_t end = clockNs();
        addPackSpans(now, end, pack, p, false);
        now = end;
        timing.accumulate(pack);
    }
    return timing;
}

CollectiveTiming MirroredRank::finishOverlapped(OverlappedReduction& reduction) {
    CollectiveTiming timing;
    const std::span<const CollectiveTiming> packs = reduction.finish();
    for (std::size_t p = 0; p < packs.size(); ++p) {
        addPackSpans(packs[p].startNs - m_clockOriginNs, packs[p].endNs - m_clockOriginNs, packs[p], p, true);
        timing.accumulate(packs[p]);
    }
    return timing;
}

void MirroredRank::addPackSpans(std::int64_t beginNs, std::int64_t endNs, const CollectiveTiming& pack, std::size_t index,
                                bool overlapped) {
    const auto packIndex = static_cast<std::int16_t>(index);
    m_spans.add(Span{beginNs, endNs, pack.bytesSent, pack.waitNs, -1, packIndex, SpanKind::AllReduce, overlapped});
    if (!pack.network.empty())  // the lead's hop across processes, within the pack's all-reduce
        m_spans.add(Span{pack.network.startNs - m_clockOriginNs, pack.network.endNs - m_clockOriginNs, pack.network.bytesSent,
                         pack.network.waitNs, -1, packIndex, SpanKind::Network, overlapped});
}

}  // namespace distlab
