#include "distribute/worker_gradient.hpp"

#include <atomic>

#include "distlab/comm/spin_barrier.hpp"

namespace distlab {

WorkerGradient::WorkerGradient(const ModelConfig& model, std::int64_t features, int replicas, CrossDeviceOps crossDeviceOps) {
    for (int r = 0; r < replicas; ++r) m_replicas.push_back(std::make_unique<Replica>(model, features));
    if (replicas > 1) m_group = std::make_unique<InProcessGroup>(replicas, crossDeviceOps);
}

WorkerGradient::~WorkerGradient() = default;

void WorkerGradient::computeReplica(int r) {
    Replica& replica = *m_replicas[static_cast<std::size_t>(r)];
    // Replica 0 runs on the worker's thread and speaks for the worker's lane.
    SpanRecorder* spans = r == 0 ? m_spans : nullptr;
    const auto clockNs = [this] { return nowNs() - m_clockOriginNs; };
    const std::int64_t begin = clockNs();
    const LossStats loss = computeReplicaGradient(replica.model, *m_loss, *m_data, m_batch, r, replicaCount(), 1,
                                                  1.0f / static_cast<float>(m_batch.size()), replica.batch, spans, m_clockOriginNs, begin);
    if (m_group) {
        const std::int64_t reduceBegin = r == 0 ? clockNs() : 0;
        const CollectiveTiming reduced = m_group->communicator(r).allReduce(replica.model.store().grads(), ReduceOp::Sum).wait();
        if (spans != nullptr) spans->add(Span{reduceBegin, clockNs(), reduced.bytesSent, reduced.waitNs, -1, 0, SpanKind::AllReduce});
    }
    // Every replica adds its shard's loss into the worker's total (zeroed before the replicas ran).
    std::atomic_ref<double>(m_total.sum).fetch_add(loss.sum);
    std::atomic_ref<std::int64_t>(m_total.correct).fetch_add(loss.correct);
}

LossStats WorkerGradient::compute(const LossFunction& loss, const Dataset& data, std::span<const std::int64_t> batch, SpanRecorder* spans,
                                  std::int64_t clockOriginNs) {
    m_loss = &loss;
    m_data = &data;
    m_batch = batch;
    m_spans = spans;
    m_clockOriginNs = clockOriginNs;
    m_total = LossStats{};
    if (m_replicas.size() == 1) {
        computeReplica(0);
        return m_total;
    }
    if (!m_pool)
        m_pool = std::make_unique<ReplicaPool>(
            replicaCount(), 1, [this](int r) { computeReplica(r); }, [this] { m_group->abort(); });
    m_pool->run();
    return m_total;
}

}  // namespace distlab
