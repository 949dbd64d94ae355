#include "distlab/optim/optimizer.hpp"

#include "distlab/optim/adam.hpp"
#include "distlab/optim/sgd.hpp"
#include "distlab/tensor/reductions.hpp"

namespace distlab {

double Optimizer::applyMeasuringGradient(std::span<float> params, std::span<const float> grads, float learningRate,
                                         std::span<double> blockSums) {
    const auto sums = blockSums.first(squareSumBlocks(grads.size()));
    beginUpdate();
    update(params, grads, learningRate, 0, sums);
    return sumOfBlockSums(sums);
}

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& config, std::int64_t parameterCount) {
    if (config.type == OptimizerKind::Adam)
        return std::make_unique<Adam>(static_cast<float>(config.beta1), static_cast<float>(config.beta2),
                                      static_cast<float>(config.epsilon), parameterCount);
    return std::make_unique<Sgd>(static_cast<float>(config.momentum), config.nesterov, parameterCount);
}

}  // namespace distlab
