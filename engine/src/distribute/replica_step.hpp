#pragma once
// The one replica step before the reduction, shared by every strategy (mirrored, central storage,
// one device, and each parameter-server worker's replicas): take the shard, forward, loss,
// backward, with gradient accumulation over micro-batches and TensorFlow's loss convention.
#include <cstdint>
#include <span>

#include "distlab/data/dataset.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "distlab/telemetry/span.hpp"
#include "distlab/tensor/tensor.hpp"

namespace distlab {

/// One replica's step buffers: its rows of the batch, their targets, the loss gradient and the
/// model's activations. Reused every step (micro-batches of an accumulation run one after
/// another through the one context).
struct ReplicaBatch {
    explicit ReplicaBatch(const Model& model) : context(model.makeContext()) {}
    ModelContext context;
    Tensor input;
    BatchTargets targets;
    Tensor lossGrad;
};

/// What a step does as its gradient is finished (e.g. start reducing it while backward goes on):
/// told the step's loss once the last micro-batch's loss is known, then each layer as the last
/// micro-batch's backward finishes it (the gradient of earlier micro-batches is then added in).
class GradientListener : public BackwardListener {
public:
    /// The whole step's loss sum, correct predictions and examples, before the last backward.
    virtual void lossKnown(const LossStats& total) = 0;

protected:
    ~GradientListener() = default;
};

/// Forward, loss and backward of replica `replica` of `replicas` over its shard of `batch`, in
/// `microSteps` micro-batches whose gradients accumulate in the model's gradient buffer (zeroed
/// first). Each example's loss is multiplied by `lossScale`: 1 / the global batch, TensorFlow's
/// compute_average_loss, so the sum of the replicas' gradients is one device's gradient of the
/// batch's mean loss. Returns the (unscaled) loss sum, correct predictions and examples. With
/// `spans`, records each micro-batch's forward (gather, forward, loss) and backward, back to back
/// from `beginNs` on the clock that starts at `clockOriginNs` (each span ends where the next
/// begins: two clock reads per micro-batch). With `fusedSgd` (one micro-batch, a model whose
/// stepPlan().fusesSgd) the backward pass applies that SGD step instead of leaving the gradient
/// (Model::backward). With `listener`, tells it the loss and each finished layer (GradientListener).
/// Allocation-free once the buffers have grown.
LossStats computeReplicaGradient(Model& model, const LossFunction& loss, const Dataset& data, std::span<const std::int64_t> batch,
                                 std::int64_t replica, std::int64_t replicas, std::int64_t microSteps, float lossScale,
                                 ReplicaBatch& buffers, SpanRecorder* spans = nullptr, std::int64_t clockOriginNs = 0,
                                 std::int64_t beginNs = 0, FusedSgdStep* fusedSgd = nullptr, GradientListener* listener = nullptr);

}  // namespace distlab
