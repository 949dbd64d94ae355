#pragma once
// pipeline and model_parallel on logical CPU devices (issue 43): one copy of the model, its stages
// (contiguous runs of layers) placed on devices, one thread each. Every step splits the global
// batch into m micro-batches; each device runs its passes in its schedule's order (passOrders),
// a forward taking its input from the stage before and a backward its output gradient from the
// stage after, each handed over as a copy into the receiving device's own buffer. Gradients
// accumulate over the micro-batches (synchronous flush), then each device applies the optimizer
// to its own layers' parameters: the update one device computes for the whole batch.
//
// With data_parallel dp > 1 (a pipeline only), dp copies of the pipeline each run the schedule on
// their shard of the batch with variables and an optimizer of their own; after the flush, device d
// of every copy all-reduces its stages' gradients with device d of the others (one in-process group
// per pipeline device), then each applies the same update.
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

#include "distlab/comm/in_process_group.hpp"
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
    /// A lane per device: copy c's pipeline device d is lane c·p + d.
    int replicaCount() const override { return static_cast<int>(m_devices.size()); }
    /// The variables of the lane's data-parallel copy: each of its devices holds its stages' layers of them.
    Model& replicaModel(int replica) override;
    const Model& replicaModel(int replica) const override;
    int optimizerCount() const override { return static_cast<int>(m_copies.size()); }
    Optimizer& replicaOptimizer(int index) override;
    /// Every data-parallel copy takes copy 0's variables and optimizer state (nothing to do for one).
    void broadcastParameters() override;
    /// Each watched value is reported on the lanes of the devices that hold it, NaN on the others.
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    GradientAggregationStats gradientAggregation() const override;
    std::int64_t stepsDone() const override { return m_stepsDone; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;
    std::vector<int> layerStages() const override { return m_placement.layerStages(); }

    /// One data-parallel copy's placement (every copy's is the same).
    const PipelinePlacement& placement() const { return m_placement; }

private:
    /// One micro-batch's hand-over between two stages: the receiving device's buffer, and how many
    /// steps have posted into it (the receiver waits for this step's).
    struct Handover {
        Tensor buffer;
        std::atomic<std::uint32_t> posted{0};
    };
    struct Device;
    struct Copy;

    void runDevice(int lane);
    void forward(Copy& copy, int stage, int micro);
    /// A whole backward, or (zero-bubble schedules) its input-gradient half B or its weight half W.
    void backward(Copy& copy, int stage, int micro, PassKind kind);
    /// Sums device `self`'s stages' gradients with the same device of the other copies.
    void reduceAcrossCopies(Device& self);
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
    static Handover& activation(Copy& copy, int stage, int micro);  ///< stage `stage`'s input from stage − 1
    static Handover& gradient(Copy& copy, int stage, int micro);    ///< stage `stage`'s output gradient from stage + 1
    std::pair<std::int64_t, std::int64_t> parameterRange(int stage) const;
    Copy& copyOfLane(int lane) const;
    Device& deviceOf(const Copy& copy, int device);  ///< the lane of `copy`'s pipeline device `device`

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::int64_t m_clockOriginNs;
    std::vector<std::unique_ptr<Copy>> m_copies;  ///< the data-parallel copies (one without data_parallel)
    PipelinePlacement m_placement;
    std::vector<std::vector<PipelinePass>> m_orders;
    std::vector<std::vector<int>> m_stageOfChunk;  ///< [device][chunk]
    int m_microBatches = 1;
    std::vector<std::unique_ptr<InProcessGroup>> m_dataGroups;  ///< per pipeline device: its dp copies (dp > 1)
    std::vector<std::unique_ptr<Device>> m_devices;             ///< per lane
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
