#pragma once
// one_device and mirrored on logical GPUs (gpu:K), as GpuPlan places them. Each replica computes its
// shard's gradient on its logical GPU's stream (GpuReplica), the gradients meet in the ring over
// device memory (logical GPUs of one physical GPU), every replica applies the same update on its
// device. A host mirror, a MirroredTrainer on as many logical CPU devices that never steps, holds
// the same variables and optimizer slots, copied back after every step: so evaluation, prediction,
// snapshots, watched values, checkpoints and weights work unchanged, and whatever a caller writes
// into it (loaded weights, a resumed checkpoint) goes to the GPUs before the next step. Built only
// with CUDA; Trainer::create builds it through makeGpuTrainer (gpu_trainer_factory.hpp).
#include <atomic>
#include <memory>
#include <vector>

#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

class GpuReplica;
class LogicalGpuGroup;

class GpuTrainer final : public Trainer {
public:
    /// Opens the plan's logical GPUs and allocates every replica's buffers. Throws TrainingError
    /// naming the device when one cannot be opened or its memory (or limit) runs out.
    GpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan);
    ~GpuTrainer() override;

    /// One step on every logical GPU; blocks until the update is applied and mirrored on the host.
    /// A CUDA failure throws TrainingError naming the device and the cause.
    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override { return m_host->evaluate(data, maxExamples); }
    const Tensor& predict(const Tensor& input) override { return m_host->predict(input); }
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_host->data(); }
    int replicaCount() const override { return m_host->replicaCount(); }
    /// The host mirror of replica i's variables (as of the last step).
    Model& replicaModel(int replica) override { return m_host->replicaModel(replica); }
    const Model& replicaModel(int replica) const override { return m_host->replicaModel(replica); }
    Optimizer& replicaOptimizer(int replica) override { return m_host->replicaOptimizer(replica); }
    /// Copies the primary model to every host copy; the next step uploads every copy to its GPU.
    void broadcastParameters() override;
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    GradientAggregationStats gradientAggregation() const override { return {}; }  // dense layers only: nothing aggregated
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    const GpuPlan& plan() const { return m_plan; }

private:
    void reduceGradients();
    void fillReport(std::span<const std::int64_t> batch);

    RunConfig m_config;
    GpuPlan m_plan;
    std::unique_ptr<MirroredTrainer> m_host;  ///< the host mirror; never steps
    std::unique_ptr<LogicalGpuGroup> m_group;
    std::vector<std::unique_ptr<GpuReplica>> m_replicas;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    std::atomic<float> m_learningRate;
    std::int64_t m_stepsDone = 0;
    bool m_hostChanged = true;  ///< the host mirror holds values the GPUs do not have yet
    Tensor m_input;
    BatchTargets m_targets;
    std::vector<float*> m_gradients;  ///< each replica's gradient on its device, for the ring
    std::vector<std::int64_t> m_watched;
    StepReport m_report;
};

}  // namespace distlab
