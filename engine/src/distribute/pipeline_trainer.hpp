#pragma once
// pipeline and model_parallel on logical CPU devices (issue 43): one copy of the model, its stages
// (contiguous runs of layers) placed on devices, one thread each. Every step splits the global
// batch into m micro-batches; each device runs its passes in its schedule's order (passOrders),
// a forward taking its input from the stage before and a backward its output gradient from the
// stage after, each handed over as a copy into the receiving device's own buffer. Gradients
// accumulate over the micro-batches (synchronous flush), then each device applies the optimizer
// to its own layers' parameters: the update one device computes for the whole batch.
//
// On the virtual clock (`"clock": "virtual"`), the devices compute one at a time, so each pass is
// timed alone whatever the cores, and the step's spans are placed afterwards by simulatePipeline
// from those durations and the schedule's dependencies: the timeline of p devices with a core
// each. The wall clock shows what the threads did on the cores there are.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "distlab/distribute/pipeline_placement.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

struct EvaluationBuffers;  // distribute/model_evaluation.hpp

class PipelineTrainer final : public Trainer {
public:
    /// A validated pipeline or model_parallel config; throws TrainingError where its schedule
    /// cannot run (a validated config always can).
    PipelineTrainer(const RunConfig& config, DataSplit data);
    ~PipelineTrainer() override;

    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;
    const Tensor& predict(const Tensor& input) override;
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_data; }
    /// A lane per device.
    int replicaCount() const override { return m_placement.devices; }
    /// The one copy of the variables, whatever the lane: each device holds its stages' layers of it.
    Model& replicaModel(int /*replica*/) override { return *m_model; }
    const Model& replicaModel(int /*replica*/) const override { return *m_model; }
    int optimizerCount() const override { return 1; }
    Optimizer& replicaOptimizer(int /*index*/) override { return *m_optimizer; }
    /// Nothing to copy: there is one copy.
    void broadcastParameters() override {}
    /// Each watched value is reported on the lane of the device that holds it, NaN on the others.
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    GradientAggregationStats gradientAggregation() const override;
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    const PipelinePlacement& placement() const { return m_placement; }

private:
    /// One micro-batch's hand-over between two stages: the receiving device's buffer, and how many
    /// steps have posted into it (the receiver waits for this step's).
    struct Handover {
        Tensor buffer;
        std::atomic<std::uint32_t> posted{0};
    };
    struct Device;

    void runDevice(int device);
    void forward(int stage, int micro);
    /// A whole backward, or (zero-bubble schedules) its input-gradient half B or its weight half W.
    void backward(int stage, int micro, PassKind kind);
    /// Copies `values` into `handover` for the receiving stage and tells it; returns the bytes.
    std::int64_t post(ConstTensorView values, Handover& handover);
    /// Waits until `handover` holds this step's values (throws CollectiveAborted on an abort).
    const Tensor& receive(Handover& handover);
    void abort();
    /// The activations a micro-batch's forward through `stage` leaves for its backward: its layers' outputs.
    static std::int64_t activationBytes(const PipelineStage& stage, const ModelContext& context);
    /// On the virtual clock: one device computes at a time (none while a device waits for its input).
    std::optional<std::unique_lock<std::mutex>> computeAlone();
    /// Places the step's passes on the virtual clock from their durations (the spans' lengths).
    void placeOnVirtualClock(std::int64_t stepStart);
    Handover& activation(int stage, int micro);  ///< stage `stage`'s input from stage − 1
    Handover& gradient(int stage, int micro);    ///< stage `stage`'s output gradient from stage + 1
    std::pair<std::int64_t, std::int64_t> parameterRange(int stage) const;

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    std::unique_ptr<Model> m_model;
    std::unique_ptr<Optimizer> m_optimizer;
    PipelinePlacement m_placement;
    std::vector<std::vector<PipelinePass>> m_orders;
    std::vector<std::vector<int>> m_stageOfChunk;  ///< [device][chunk]
    int m_microBatches = 1;
    std::vector<ModelContext> m_contexts;  ///< one a micro-batch: every layer's activations
    // Stage boundaries: [boundary b between stage b and b + 1][micro-batch].
    std::vector<std::unique_ptr<Handover[]>> m_activations;
    std::vector<std::unique_ptr<Handover[]>> m_gradients;
    std::vector<Tensor> m_inputs;               ///< the first stage's gathered micro-batches (where not read in place)
    std::vector<ConstTensorView> m_inputViews;  ///< each micro-batch's input, for the first layer's backward
    std::vector<BatchTargets> m_targets;        ///< the last stage's
    std::vector<Tensor> m_lossGrads;            ///< the last stage's d(loss)/d(output), scaled by 1/G
    std::vector<LossStats> m_microLoss;         ///< each micro-batch's loss, on the last stage
    std::vector<std::unique_ptr<Device>> m_devices;
    std::unique_ptr<ReplicaPool> m_pool;
    std::atomic<bool> m_aborted{false};
    bool m_virtualClock = false;
    std::mutex m_oneAtATime;
    std::vector<Span> m_placed;       ///< scratch of placeOnVirtualClock
    std::int64_t m_virtualNowNs = 0;  ///< the virtual clock: where the last step ended
    std::atomic<float> m_learningRate;
    std::span<const std::int64_t> m_batch;
    std::uint32_t m_generation = 0;  ///< the step being run, 1-based: what each hand-over waits for
    std::int64_t m_stepsDone = 0;
    std::vector<std::int64_t> m_watched;
    StepReport m_report;
    std::unique_ptr<EvaluationBuffers> m_evaluation;
};

}  // namespace distlab
