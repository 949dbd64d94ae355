#pragma once
// One parameter-server worker's gradient: its R replica models compute it synchronously (a small
// mirrored group inside the worker) on the worker's batch. The same code runs for a worker thread
// of ParameterServerTrainer and for a distlab-worker task of a run in processes, so both compute
// the same bits from the same parameters and batch.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "distlab/comm/in_process_group.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {

class WorkerGradient {
public:
    struct Replica {
        Replica(const ModelConfig& config, std::int64_t features) : model(config, features), batch(model) {}
        Model model;
        ReplicaBatch batch;
    };

    /// `replicas` (>= 1) models of `model` on `features` inputs, reducing through `crossDeviceOps`.
    WorkerGradient(const ModelConfig& model, std::int64_t features, int replicas, CrossDeviceOps crossDeviceOps);
    ~WorkerGradient();
    WorkerGradient(const WorkerGradient&) = delete;
    WorkerGradient& operator=(const WorkerGradient&) = delete;

    /// Computes the gradient of the mean loss over `batch` (rows of `data`) into replica 0's
    /// gradient buffer: each replica takes its shard, the replicas' gradients are summed. Blocks;
    /// call from one thread (the worker's: replica 0 runs on it, the others on a pool made at the
    /// first call). With `spans`, replica 0 records its forward, backward and reduction on the
    /// clock that starts at `clockOriginNs`. Returns the batch's loss sum and correct predictions.
    LossStats compute(const LossFunction& loss, const Dataset& data, std::span<const std::int64_t> batch, SpanRecorder* spans,
                      std::int64_t clockOriginNs);
    /// The worker's gradient (replica 0's, reduced): valid until the next compute.
    std::span<const float> gradient() { return m_replicas[0]->model.store().grads(); }
    int replicaCount() const { return static_cast<int>(m_replicas.size()); }
    Replica& replica(int index) { return *m_replicas[static_cast<std::size_t>(index)]; }
    const Replica& replica(int index) const { return *m_replicas[static_cast<std::size_t>(index)]; }

private:
    void computeReplica(int replica);

    std::vector<std::unique_ptr<Replica>> m_replicas;
    std::unique_ptr<InProcessGroup> m_group;  ///< with more than one replica
    std::unique_ptr<ReplicaPool> m_pool;      ///< made on the computing thread at the first call
    // What the current compute() works on (read by the pool's replicas).
    const LossFunction* m_loss = nullptr;
    const Dataset* m_data = nullptr;
    std::span<const std::int64_t> m_batch;
    SpanRecorder* m_spans = nullptr;
    std::int64_t m_clockOriginNs = 0;
    LossStats m_total;
};

}  // namespace distlab
