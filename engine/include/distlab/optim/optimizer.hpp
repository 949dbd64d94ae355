#pragma once
// Optimizers update one replica's flat parameter buffer from its (already reduced) gradient.
// Slots (momentum, Adam moments) are flat buffers parallel to the parameters.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "distlab/config/run_config.hpp"

namespace distlab {

class Optimizer {
public:
    virtual ~Optimizer() = default;
    /// One update of params from grads with this learning rate. Allocation-free; any thread.
    void apply(std::span<float> params, std::span<const float> grads, float learningRate) {
        beginUpdate();
        update(params, grads, learningRate, 0, {});
    }
    /// apply, and Σ g² of grads (sumOfSquares(grads), the same bits: the gradient's norm a step
    /// reports), read during the update instead of in a pass of its own. `blockSums` is the
    /// caller's scratch of at least squareSumBlocks(grads.size()) values.
    double applyMeasuringGradient(std::span<float> params, std::span<const float> grads, float learningRate, std::span<double> blockSums);
    /// Counts one update (Adam's t); call once before the applyRange calls of that update.
    void beginUpdate() { ++m_iterations; }
    /// Updates the elements [offset, offset + params.size()) of the flat buffer (a parameter
    /// server's shard): params and grads are those elements; the slots are indexed from offset.
    void applyRange(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset) {
        update(params, grads, learningRate, offset, {});
    }
    /// Whether an update is the plain step p -= lr g alone (SGD without momentum): no slot, nothing
    /// but the gradient, so it can be applied to each gradient as it is finished (StepUpdate::plainSgd,
    /// model/step_plan.hpp).
    virtual bool isPlainStep() const { return false; }
    /// Slot names ("momentum"; "m", "v"), in a fixed order.
    virtual std::vector<std::string> slotNames() const = 0;
    /// Slot buffer i (same length as the parameters).
    virtual std::span<float> slot(std::size_t index) = 0;
    /// Updates applied so far (Adam's t).
    std::int64_t iterations() const { return m_iterations; }
    void setIterations(std::int64_t iterations) { m_iterations = iterations; }

protected:
    /// applyRange, and with blockSums non-empty also each block's Σ g² (forEachUpdateBlock,
    /// optim/update_blocks.hpp, which every optimizer's pass goes through).
    virtual void update(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset,
                        std::span<double> blockSums) = 0;

    std::int64_t m_iterations = 0;
};

/// Builds the optimizer a config names, with slots for `parameterCount` values.
std::unique_ptr<Optimizer> makeOptimizer(const OptimizerConfig& config, std::int64_t parameterCount);

}  // namespace distlab
