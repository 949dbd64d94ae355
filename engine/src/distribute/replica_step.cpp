#include "distribute/replica_step.hpp"

#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

LossStats computeReplicaGradient(Model& model, const LossFunction& loss, const Dataset& data,
                                 std::span<const std::int64_t> batch, std::int64_t replica, std::int64_t replicas,
                                 std::int64_t microSteps, float lossScale, ReplicaBatch& buffers) {
    model.zeroGradients();
    LossStats total;
    for (std::int64_t micro = 0; micro < microSteps; ++micro) {
        const auto indices = BatchSampler::shard(batch, replica, replicas, micro, microSteps);
        gatherBatch(data, indices, buffers.input, buffers.targets);
        const Tensor& output = model.forward(buffers.input, buffers.context);
        const LossStats part = loss.evaluate(output, buffers.targets, lossScale, buffers.lossGrad);
        model.backward(buffers.input, buffers.lossGrad, buffers.context);
        total.sum += part.sum;
        total.correct += part.correct;
        total.count += part.count;
    }
    return total;
}

}  // namespace distlab
