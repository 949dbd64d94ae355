#pragma once
// tensor_parallel on logical CPU devices (issue 43): Megatron-style column- and row-parallel
// pairs of dense layers (tensor_parallel_plan.hpp) over tp devices, one thread each, every device
// computing the whole batch with its share of each pair's weights. The all-reduces go through an
// in-process group, where the Communication view sees them.
//
// There is one copy of the variables (the full model, as one device holds it): what views,
// checkpoints and evaluation read. A row layer's rows of the kernel are contiguous in it and are
// read in place; a column layer's columns are not, so each device copies its own into shard
// buffers of its own at the start of a step. After backward each device writes its gradients into
// the full gradient buffer (its columns, its rows; the shared biases and whole layers once, from
// device 0) and applies the optimizer to the elements it owns: the update one device computes.
#include <atomic>
#include <memory>
#include <vector>

#include "distlab/comm/in_process_group.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/config/tensor_parallel_plan.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

struct EvaluationBuffers;  // distribute/model_evaluation.hpp

class TensorParallelTrainer final : public Trainer {
public:
    /// A validated tensor_parallel config.
    TensorParallelTrainer(const RunConfig& config, DataSplit data);
    ~TensorParallelTrainer() override;

    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;
    const Tensor& predict(const Tensor& input) override;
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_data; }
    /// A lane per device.
    int replicaCount() const override { return m_tp; }
    /// The one copy of the variables, whatever the lane.
    Model& replicaModel(int /*replica*/) override { return *m_model; }
    const Model& replicaModel(int /*replica*/) const override { return *m_model; }
    int optimizerCount() const override { return 1; }
    Optimizer& replicaOptimizer(int /*index*/) override { return *m_optimizer; }
    void broadcastParameters() override {}
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    bool setCollectiveTrace(CollectiveTrace* trace) override;
    /// Dense layers only: no residual block sums gradient terms.
    GradientAggregationStats gradientAggregation() const override { return {}; }
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    const std::vector<TensorParallelLayer>& plan() const { return m_plan; }

private:
    struct Device;

    void runDevice(int device);
    void forward(Device& self, int device, ConstTensorView input);
    void backward(Device& self, int device, ConstTensorView input);
    /// Sums `values` over the devices in place (an all-reduce) and records its span.
    void allReduce(Device& self, int device, Tensor& values);
    /// Applies the optimizer to the elements device `device` owns.
    void update(Device& self, int device);
    std::int64_t kernelBegin(std::size_t layer) const { return m_model->gradientBegin(layer); }
    std::int64_t biasBegin(const TensorParallelLayer& layer) const { return kernelBegin(layer.layer) + layer.inputs * layer.units; }
    /// The columns (or rows) of a split layer's `units` (or inputs) device `device` holds: [first, first + width).
    std::int64_t shardWidth(std::int64_t full) const { return full / m_tp; }

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    int m_tp;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Optimizer> m_optimizer;
    std::vector<TensorParallelLayer> m_plan;
    std::unique_ptr<InProcessGroup> m_group;
    std::vector<std::unique_ptr<Device>> m_devices;
    std::unique_ptr<ReplicaPool> m_pool;
    std::atomic<float> m_learningRate;
    std::span<const std::int64_t> m_batch;
    std::int64_t m_stepsDone = 0;
    std::vector<std::int64_t> m_watched;
    StepReport m_report;
    std::unique_ptr<EvaluationBuffers> m_evaluation;
};

}  // namespace distlab
