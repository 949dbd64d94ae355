#include "distribute/replica_step.hpp"

#include <stdexcept>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

LossStats computeReplicaGradient(Model& model, const LossFunction& loss, const Dataset& data, std::span<const std::int64_t> batch,
                                 std::int64_t replica, std::int64_t replicas, std::int64_t microSteps, float lossScale,
                                 ReplicaBatch& buffers, SpanRecorder* spans, std::int64_t clockOriginNs, std::int64_t beginNs,
                                 FusedSgdStep* fusedSgd, GradientListener* listener) {
    if (fusedSgd != nullptr && microSteps != 1)
        throw std::logic_error("computeReplicaGradient: a fused SGD step needs the gradient of one micro-batch");
    auto clock = [&] { return spans != nullptr ? nowNs() - clockOriginNs : 0; };
    model.zeroGradients();
    LossStats total;
    std::int64_t forwardBegin = beginNs;
    for (std::int64_t micro = 0; micro < microSteps; ++micro) {
        const auto microBatch = static_cast<std::int16_t>(micro);
        const auto indices = BatchSampler::shard(batch, replica, replicas, micro, microSteps);
        const ConstTensorView input = gatherBatch(data, indices, buffers.input, buffers.targets);
        const Tensor& output = model.forward(input, buffers.context);
        const LossStats part = loss.evaluate(output, buffers.targets, lossScale, buffers.lossGrad);
        total.sum += part.sum;
        total.correct += part.correct;
        total.count += part.count;
        const bool last = micro + 1 == microSteps;
        if (last && listener != nullptr) listener->lossKnown(total);
        const std::int64_t backwardBegin = clock();
        model.backward(input, buffers.lossGrad, buffers.context, fusedSgd, last ? listener : nullptr);
        if (spans != nullptr) {
            const std::int64_t backwardEnd = clock();
            spans->add(Span{forwardBegin, backwardBegin, 0, 0, microBatch, -1, SpanKind::Forward});
            spans->add(Span{backwardBegin, backwardEnd, 0, 0, microBatch, -1, SpanKind::Backward});
            forwardBegin = backwardEnd;
        }
    }
    return total;
}

}  // namespace distlab
