#pragma once
// One replica's model on one logical GPU: the flat parameter, gradient and optimizer-slot buffers
// (laid out as the host ParameterStore's, so one copy moves the whole model either way), each dense
// layer's activations for a micro-batch, and the step's kernels queued on the device's stream
// through the CUDA bridge (engine/cuda/cuda_math.h). It holds no host state of the run: GpuTrainer
// keeps the host mirror (Model, Optimizer) and copies to and from it. Built only with CUDA.
#include <cstdint>
#include <string>
#include <vector>

#include "distlab/io/run_config.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/optim/optimizer.hpp"

struct DistlabCudaDevice;  // engine/cuda/cuda_math.h

namespace distlab {

/// The figures of a replica's shard in one step.
struct GpuShardFigures {
    double lossSum = 0.0;
    std::int64_t correct = 0;
};

class GpuReplica {
public:
    /// Allocates everything a step of `microRows` rows needs on `device` for the dense model
    /// `hostModel` (its layout) of `config` (validated, and accepted by gpuPathProblem). Throws
    /// TrainingError naming the device when its memory (or its logical limit) runs out.
    GpuReplica(DistlabCudaDevice* device, const RunConfig& config, const Model& hostModel, std::int64_t microRows,
               std::int64_t microSteps);
    ~GpuReplica();
    GpuReplica(const GpuReplica&) = delete;
    GpuReplica& operator=(const GpuReplica&) = delete;

    /// Copies the host mirror's parameters and optimizer slots to the device (queued).
    void upload(const Model& model, Optimizer& optimizer);
    /// Copies the device's parameters and slots into the host mirror; blocks until they are there.
    void download(Model& model, Optimizer& optimizer);

    /// Queues the zeroing of the gradient (before the first micro-batch of a step).
    void zeroGradients();
    /// Queues micro-batch `micro`'s forward, loss (scaled by `scale`) and backward, adding to the gradient.
    void queueMicroBatch(int micro, const Tensor& input, const BatchTargets& targets, float scale);
    /// The flat gradient on the device, for the reduction.
    float* gradients() const { return m_grads; }
    std::int64_t parameterCount() const { return m_count; }
    /// Queues the update with the optimizer's kind; `iteration` is Adam's t (1 on the first update).
    void queueUpdate(float learningRate, std::int64_t iteration);
    /// Blocks until the step is done and sums its per-example losses and correct predictions.
    GpuShardFigures collectFigures();

    DistlabCudaDevice* device() const { return m_device; }

private:
    struct DenseGeometry {
        std::int64_t inputs = 0, units = 0, kernelOffset = 0, biasOffset = 0;
        int activation = 0;
        float *z = nullptr, *y = nullptr, *dz = nullptr, *dy = nullptr;
    };
    float* allocate(std::int64_t count, std::size_t elementBytes = sizeof(float));

    DistlabCudaDevice* m_device;
    OptimizerConfig m_optimizer;
    LossKind m_loss;
    std::int64_t m_microRows, m_microSteps, m_count, m_features, m_outputs;
    std::vector<void*> m_allocations;
    std::vector<DenseGeometry> m_layers;
    float *m_params = nullptr, *m_grads = nullptr, *m_input = nullptr, *m_targets = nullptr;
    std::vector<float*> m_slots;  ///< the optimizer's slots, in its slotNames() order
    int *m_labels = nullptr, *m_rowCorrect = nullptr;
    float* m_rowLoss = nullptr;  ///< [microSteps * microRows]: each micro-batch's rows at its own offset
    std::vector<float> m_hostLoss;
    std::vector<int> m_hostCorrect;
};

}  // namespace distlab
