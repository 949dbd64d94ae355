#pragma once
// One replica's model on one logical GPU: the flat parameter, gradient and optimizer-slot buffers
// (laid out as the host ParameterStore's, so one copy moves the whole model either way), each dense
// layer's activations, fixed input buffers for every micro-batch of a step, and the step's kernels
// queued on the device's stream through the CUDA bridge (engine/cuda/cuda_math.h). Everything a
// step's kernels read that changes from step to step (the batch, the learning rate, Adam's bias
// corrections, the watched indices) is uploaded into fixed device buffers before the kernels are
// queued, so the same queued work can be captured once in a graph and replayed (GpuStepGraph).
// It holds no host state of the run: GpuTrainer keeps the host mirror (Model, Optimizer) and
// copies to and from it. Built only with CUDA.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"
#include "distlab/telemetry/records.hpp"
#include "distribute/gpu_step_timing.hpp"

struct DistlabCudaDevice;  // engine/cuda/cuda_math.h
struct DistlabCudaTimer;

namespace distlab {

/// What a replica's step left on the device, read back after it.
struct GpuShardFigures {
    double lossSum = 0.0;
    std::int64_t correct = 0;
    double gradNormBefore = 0.0;  ///< its own gradient's L2 norm
    double gradNormAfter = 0.0;   ///< the reduced gradient's (the one applied)
    std::array<float, kMaxWatchedValues> watched{};
    std::vector<float> pointMs;  ///< the step's timing points (GpuStepPoints), ms from its start
};

class GpuReplica {
public:
    /// Allocates everything a step of `microSteps` micro-batches of `microRows` rows needs on
    /// `device` for the dense model `hostModel` (its layout) of `config` (validated, and accepted by
    /// gpuPathProblem). Throws TrainingError naming the device when its memory (or its logical
    /// limit) runs out.
    GpuReplica(DistlabCudaDevice* device, const RunConfig& config, const Model& hostModel, std::int64_t microRows, std::int64_t microSteps);
    ~GpuReplica();
    GpuReplica(const GpuReplica&) = delete;
    GpuReplica& operator=(const GpuReplica&) = delete;

    /// Copies the host mirror's parameters and optimizer slots to the device.
    void upload(const Model& model, Optimizer& optimizer);
    /// Copies the device's parameters and slots into the host mirror; blocks until they are there.
    void download(Model& model, Optimizer& optimizer);

    /// Copies micro-batch `micro`'s inputs and targets into its fixed device buffers.
    void stageMicroBatch(int micro, ConstTensorView input, const BatchTargets& targets);
    /// Copies the update's scalars: the learning rate, and for Adam the bias corrections of update
    /// `iteration` (t, 1 on the first update), computed as engine/src/optim/adam.cpp does.
    void stageScalars(float learningRate, std::int64_t iteration);
    /// Which flat parameter indices the step reads back after its update (at most
    /// kMaxWatchedValues; out-of-range ones read 0).
    void setWatched(std::span<const std::int64_t> flatIndices);
    /// The rows of each staged micro-batch (a captured step is recorded for them).
    const std::vector<std::int64_t>& stagedRows() const { return m_rows; }

    /// Queues the step's first half: zeroing the gradient, every staged micro-batch's forward,
    /// loss (scaled by `scale`) and backward, and the gradient's sum of squares.
    void queueCompute(float scale);
    /// The flat gradient on the device, for the reduction (between queueCompute and queueUpdate).
    float* gradients() const { return m_grads; }
    std::int64_t parameterCount() const { return m_count; }
    /// Queues the second half: the reduced gradient's sum of squares, the update with the staged
    /// scalars, the gather of the watched values.
    void queueUpdate();
    /// Blocks until the step is done and reads back its figures (losses, correct predictions,
    /// norms, watched values, timing points).
    GpuShardFigures collectFigures();

    DistlabCudaDevice* device() const { return m_device; }
    const GpuStepPoints& points() const { return m_points; }

private:
    struct DenseGeometry {
        std::int64_t inputs = 0, units = 0, kernelOffset = 0, biasOffset = 0;
        int activation = 0;
        float *z = nullptr, *y = nullptr, *dz = nullptr, *dy = nullptr;
    };
    void* allocate(std::int64_t count, std::size_t elementBytes = sizeof(float));
    /// Makes this replica's GPU current: one thread queues every replica's work, and with NCCL
    /// the replicas are on different physical GPUs.
    void use();
    void mark(int point);
    void queueMicroBatch(std::int64_t micro, float scale);

    DistlabCudaDevice* m_device;
    DistlabCudaTimer* m_timer = nullptr;
    OptimizerConfig m_optimizer;
    LossKind m_loss;
    GpuStepPoints m_points;
    std::int64_t m_microRows, m_microSteps, m_count, m_features, m_outputs;
    std::vector<void*> m_allocations;
    std::vector<DenseGeometry> m_layers;
    float *m_params = nullptr, *m_grads = nullptr;
    std::vector<float*> m_slots;  ///< the optimizer's slots, in its slotNames() order
    // Each micro-batch's inputs and targets at its own offset, and its losses and correct flags.
    float *m_input = nullptr, *m_targets = nullptr;
    int *m_labels = nullptr, *m_rowCorrect = nullptr;
    float* m_rowLoss = nullptr;
    std::vector<std::int64_t> m_rows;  ///< rows of each staged micro-batch
    float* m_scalars = nullptr;        ///< the update's per-step scalars (2 floats)
    double* m_norms = nullptr;         ///< sums of squares: the gradient before and after the reduction
    long long* m_watchIndices = nullptr;
    float* m_watchValues = nullptr;
    std::vector<float> m_hostLoss;
    std::vector<int> m_hostCorrect;
};

}  // namespace distlab
