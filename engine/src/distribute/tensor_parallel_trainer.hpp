#pragma once
// tensor_parallel on logical CPU devices (issue 43): Megatron-style column- and row-parallel
// pairs of dense layers (config/tensor_parallel_plan.hpp) over tp devices, one thread each, every
// device computing its data-parallel copy's whole shard of the batch with its share of each pair's
// weights; with dp > 1, dp such copies, each on its own shard, their gradients summed across the
// copies device by device (a dp × tp mesh). The all-reduces go through in-process groups: one of
// tp devices per copy, one of dp devices per tensor-parallel rank.
//
// Each copy has one copy of the variables (the full model, as one device holds it): what views,
// checkpoints and evaluation read. A row layer's rows of the kernel are contiguous in it and are
// read in place; a column layer's columns are not, so each device copies its own into shard
// buffers of its own at the start of a step. After backward each device writes its gradients into
// its copy's gradient buffer (its columns, its rows; the shared biases and whole layers once, from
// rank 0), sums the elements it owns across the copies, and applies the optimizer to them: the
// update one device computes for the whole batch.
#include <atomic>
#include <memory>
#include <utility>
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
    /// A lane per device: copy c's tensor-parallel rank d is lane c·tp + d.
    int replicaCount() const override { return m_dp * m_tp; }
    /// The variables of the lane's data-parallel copy.
    Model& replicaModel(int replica) override { return *m_models[static_cast<std::size_t>(replica / m_tp)]; }
    const Model& replicaModel(int replica) const override { return *m_models[static_cast<std::size_t>(replica / m_tp)]; }
    int optimizerCount() const override { return m_dp; }
    Optimizer& replicaOptimizer(int index) override { return *m_optimizers[static_cast<std::size_t>(index)]; }
    /// Every copy takes copy 0's variables and optimizer state.
    void broadcastParameters() override;
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    /// Dense layers only: no residual block sums gradient terms.
    GradientAggregationStats gradientAggregation() const override { return {}; }
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    const std::vector<TensorParallelLayer>& plan() const { return m_plan; }

private:
    struct Device;

    void runDevice(int index);
    void forward(Device& self, ConstTensorView input);
    void backward(Device& self, ConstTensorView input);
    /// Sums `values` over `group` in place (an all-reduce) and records its span.
    void allReduce(Device& self, Communicator& group, std::span<float> values);
    /// Sums the gradient of the elements `self` owns across the data-parallel copies.
    void reduceAcrossCopies(Device& self);
    /// Applies the optimizer to the elements `self` owns.
    void update(Device& self);
    /// The [offset, size) runs of the variables tensor-parallel rank `rank` owns.
    std::vector<std::pair<std::int64_t, std::int64_t>> ownedRanges(int rank) const;
    Model& model(const Device& self);
    std::int64_t kernelBegin(std::size_t layer) const { return m_models.front()->gradientBegin(layer); }
    std::int64_t biasBegin(const TensorParallelLayer& layer) const { return kernelBegin(layer.layer) + layer.inputs * layer.units; }
    /// The columns (or rows) of a split layer's `units` (or inputs) device `device` holds: [first, first + width).
    std::int64_t shardWidth(std::int64_t full) const { return full / m_tp; }

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    int m_tp;
    int m_dp;
    std::vector<std::unique_ptr<Model>> m_models;  ///< one a data-parallel copy
    std::vector<std::unique_ptr<Optimizer>> m_optimizers;
    std::vector<TensorParallelLayer> m_plan;
    std::vector<std::unique_ptr<InProcessGroup>> m_tensorGroups;  ///< per copy: its tp devices
    std::vector<std::unique_ptr<InProcessGroup>> m_dataGroups;    ///< per tensor-parallel rank: its dp devices
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
