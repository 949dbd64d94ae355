#pragma once
// one_device, mirrored and central_storage on logical CPU devices: N ranks (MirroredRank, one
// thread each, over one InProcessGroup) compute on their shard of the global batch and all-reduce
// (SUM) their gradients. Mirrored: every replica holds a full copy of the variables and applies
// the same update, so the copies stay equal. Central storage: one copy (rank 0's) is updated once
// and the others receive it. one_device is the one-replica case of the same machinery. The
// trainer only places the ranks and gathers their reports; what a step computes is the rank's.
#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "distlab/comm/hierarchical_communicator.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/core/error.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/distribute/mirrored_rank.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/telemetry/step_report.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"

namespace distlab {

struct EvaluationBuffers;  // distribute/model_evaluation.hpp

class MirroredTrainer final : public Trainer {
public:
    /// Builds a trainer on data already loaded (tests, benchmarks, the GUI's regenerate).
    /// multi_worker_mirrored in several processes passes `workers`, this process's rank in the
    /// group of one rank per worker (connectGlooGroup): the local replicas then reduce through
    /// HierarchicalCommunicator, their ranks global, and every worker starts from worker 0's
    /// parameters. Null: every replica is here.
    MirroredTrainer(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> workers = nullptr);
    ~MirroredTrainer() override;

    /// Runs one optimizer step on every replica and blocks until it is applied. The report stays
    /// valid until the next call. Allocation-free once warmed up. Call from one thread.
    const StepReport& step() override;
    /// Mean loss and accuracy of replica 0's model over up to maxExamples of `data` (0: all).
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;

    /// Replica 0's model output for `input` [rows, features]; valid until the next predict or
    /// evaluate. Not while a step runs.
    const Tensor& predict(const Tensor& input) override;

    /// The learning rate of the next step; any thread.
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }

    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_data; }
    int replicaCount() const override { return static_cast<int>(m_ranks.size()); }
    /// Replica i's model (its own copy of every variable). Not while a step runs.
    Model& replicaModel(int replica) override;
    const Model& replicaModel(int replica) const override;
    Optimizer& replicaOptimizer(int replica) override;
    int optimizerCount() const override { return m_config.strategy.type == StrategyKind::CentralStorage ? 1 : replicaCount(); }
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }

    /// Copies replica 0's parameters to every replica through the communicator (after loading weights).
    void broadcastParameters() override;
    /// Restores the position after a checkpoint: steps done and the data sampler's place.
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    /// Nanoseconds since this trainer was created (the clock of every StepReport).
    std::int64_t clockNs() const override;
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    bool setCollectiveTrace(CollectiveTrace* trace) override;
    bool failDevice(int replica) override;
    GradientAggregationStats gradientAggregation() const override;

private:
    /// What the ranks' threads run on the next m_pool->run().
    enum class RankTask { Step, BroadcastParameters };
    void runRank(int rank);

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    std::unique_ptr<InProcessGroup> m_group;
    std::unique_ptr<Communicator> m_workers;                            ///< the other workers' processes, or null
    std::vector<std::unique_ptr<Communicator>> m_replicaCommunicators;  ///< each local replica's view of every replica
    std::vector<std::unique_ptr<MirroredRank>> m_ranks;
    std::unique_ptr<ReplicaPool> m_pool;
    RankTask m_task = RankTask::Step;
    std::atomic<float> m_learningRate;
    std::span<const std::int64_t> m_currentBatch;
    std::int64_t m_stepsDone = 0;
    StepReport m_report;
    std::unique_ptr<EvaluationBuffers> m_evaluation;
};

}  // namespace distlab
