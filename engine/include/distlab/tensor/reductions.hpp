#pragma once
// Reductions over whole float buffers that a step runs once per step (gradient norms).
#include <cstddef>
#include <span>

namespace distlab {

/// Σ v² is defined block by block: each block of kSquareSumBlock values summed in a fixed order
/// (blockSumOfSquares), then the blocks' sums added in block order (sumOfBlockSums). So its bits
/// depend on the values alone: not on the thread count, nor on how a pass was split, nor on
/// whether the buffer was read for it alone (sumOfSquares) or during the optimizer's update
/// (Optimizer::applyMeasuringGradient), which saves a step a pass over its gradients.
inline constexpr std::size_t kSquareSumBlock = 1024;
/// The blocks of a buffer of n values (the last one may be short).
inline constexpr std::size_t squareSumBlocks(std::size_t n) { return (n + kSquareSumBlock - 1) / kSquareSumBlock; }

/// Σ v² of one block (n <= kSquareSumBlock values), accumulated in double in a fixed order.
double blockSumOfSquares(const float* values, std::size_t n);
/// The blocks' sums added in block order onto `sum` (a running total, so a buffer's blocks can
/// be added a chunk at a time with the same bits).
double sumOfBlockSums(std::span<const double> blockSums, double sum = 0.0);

/// Σ v² over `values` as defined above. Any thread; runs on the calling thread's OpenMP team;
/// allocates nothing.
double sumOfSquares(std::span<const float> values);

}  // namespace distlab
