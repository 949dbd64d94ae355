#pragma once
// Reductions over whole float buffers that a step runs once per step (gradient norms).
#include <span>

namespace distlab {

/// Σ v² over `values`, accumulated in double in a fixed order (bit-identical from run to run for
/// the same OpenMP team size). Any thread; runs on the calling thread's OpenMP team; allocates nothing.
double sumOfSquares(std::span<const float> values);

}  // namespace distlab
