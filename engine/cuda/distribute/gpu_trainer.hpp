#pragma once
// one_device and mirrored on logical GPUs (gpu:K), as GpuPlan places them. Each replica computes its
// shard's gradient on its logical GPU's stream (GpuReplica), the gradients meet in the ring over
// device memory (logical GPUs of one physical GPU) or in NCCL (one replica per physical GPU,
// NcclGroup), every replica applies the same update on its device. A step of an eligible plan (one replica) is captured once in a CUDA
// graph after a warm-up eager step and replayed afterwards (GpuStepGraph). A host mirror, a MirroredTrainer on as many logical CPU devices
// that never steps, holds the same variables and optimizer slots, downloaded only when something on the host reads them (GpuMirrorState):
// evaluation, prediction, snapshots, checkpoints and weights work unchanged, and whatever a caller writes into it (loaded weights, a
// resumed checkpoint, then broadcastParameters or restoreProgress) goes to the GPUs before the next
// step. Each step reads back only its losses, gradient norms, watched values and phase times.
// Part of the CUDA backend module (engine/cuda/): Trainer::create builds it through makeGpuTrainer
// (gpu_trainer_factory.hpp), which reaches it through the module's table (gpu_trainer_api.hpp).
#include <atomic>
#include <memory>
#include <vector>

#include "distlab/device/gpu_plan.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distribute/gpu_mirror_state.hpp"

namespace distlab {

class GpuReplica;
class GpuStepGraph;
class LogicalGpuGroup;
class NcclGroup;

class GpuTrainer final : public Trainer {
public:
    /// Opens the plan's logical GPUs and allocates every replica's buffers. Throws TrainingError
    /// naming the device when one cannot be opened or its memory (or limit) runs out.
    GpuTrainer(const RunConfig& config, DataSplit data, GpuPlan plan);
    ~GpuTrainer() override;

    /// One step on every logical GPU; blocks until the update is applied (the host mirror is not
    /// updated: it is downloaded when read). A CUDA failure throws TrainingError naming the device.
    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;
    const Tensor& predict(const Tensor& input) override;
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_host->data(); }
    int replicaCount() const override { return m_host->replicaCount(); }
    /// The host mirror of replica i's variables, current as of the last step (downloaded first if
    /// a step ran since). What a caller writes through it reaches the GPUs once it calls
    /// broadcastParameters or restoreProgress.
    Model& replicaModel(int replica) override;
    const Model& replicaModel(int replica) const override;
    Optimizer& replicaOptimizer(int replica) override;
    /// Copies the primary model to every host copy; the next step uploads every copy to its GPU.
    void broadcastParameters() override;
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    GradientAggregationStats gradientAggregation() const override { return {}; }  // dense layers only: nothing aggregated
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    const GpuPlan& plan() const { return m_plan; }

    /// How the last step ran (eager, captured, replayed), and the graph's plan (a failed capture
    /// turns it ineligible with the reason), for tests and diagnostics.
    GpuStepMode lastStepMode() const { return m_lastMode; }
    const GraphCapture& graphCapture() const { return m_plan.graph; }

private:
    void queueStep(float scale);
    void runStep(float scale);
    void reduceGradients();
    void fillReport(std::span<const std::int64_t> batch);
    /// Downloads every replica's variables and slots when the GPUs are ahead of the mirror.
    void syncHost() const;

    RunConfig m_config;
    GpuPlan m_plan;
    std::unique_ptr<MirroredTrainer> m_host;   ///< the host mirror; never steps
    std::unique_ptr<LogicalGpuGroup> m_group;  ///< opens the plan's logical GPUs (and is the ring's ranks)
    std::unique_ptr<NcclGroup> m_nccl;         ///< distinct physical GPUs: their NCCL communicators
    std::vector<std::unique_ptr<GpuReplica>> m_replicas;
    std::unique_ptr<GpuStepGraph> m_graph;  ///< replica 0's captured step (eligible plans: one replica)
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    std::atomic<float> m_learningRate;
    std::int64_t m_stepsDone = 0;
    std::int64_t m_eagerSteps = 0;  ///< eager steps of this trainer (the first one warms up before a capture)
    GpuStepMode m_lastMode = GpuStepMode::Eager;
    mutable GpuMirrorState m_mirror;  ///< const reads of the mirror download too
    Tensor m_input;
    BatchTargets m_targets;
    std::vector<float*> m_gradients;    ///< each replica's gradient on its device, for the ring
    std::vector<SpanRecorder> m_spans;  ///< each replica's spans of the last step
    StepReport m_report;
};

}  // namespace distlab
