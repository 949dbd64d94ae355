#pragma once
// Tensor parallelism (Megatron-LM's, Shoeybi et al. 2019) over a model's dense layers: which
// layer is split how across tp devices, and where the all-reduces go (docs/semantics.md §12.5).
//
// Consecutive dense layers pair up. The first of a pair is column-parallel: each device holds
// units / tp of its output columns (kernel [in, units / tp], bias [units / tp]) and applies the
// activation to its own slice, since an activation acts element by element; its input is the same
// on every device. The second is row-parallel: each device holds the rows of the kernel that match
// its slice ([units_a / tp, units_b]) and computes a partial product; one all-reduce sums them,
// then the bias (one copy, the same on every device) and the activation follow. Forward: one
// all-reduce per pair; backward: one more, of the column layer's input gradient (Megatron's f and
// g), except for a first layer, whose input needs no gradient. A dense layer left without a
// partner (an odd last one) runs whole on every device.
#include <cstdint>
#include <string>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/core/error.hpp"

namespace distlab {

enum class TensorParallelRole { Column, Row, Replicated };

/// One top-level layer as tensor parallelism runs it.
struct TensorParallelLayer {
    TensorParallelRole role = TensorParallelRole::Replicated;
    std::size_t layer = 0;  ///< its index among the model's layers
    std::int64_t inputs = 0;
    std::int64_t units = 0;
    Activation activation = Activation::Linear;
};

/// The roles of a validated model's layers for `tp` devices; the error names the layer and why it
/// cannot be split (a residual block; a column layer whose units do not divide by tp).
Result<std::vector<TensorParallelLayer>> planTensorParallel(const ModelConfig& model, std::int64_t inputFeatures, std::int64_t tp);

/// "column", "row", "replicated".
const char* roleName(TensorParallelRole role);

/// Values a step all-reduces for `batch` samples: each row layer's output forward, each column
/// layer's input gradient backward (none for the first layer). The input width is not among them.
std::int64_t tensorParallelReducedValues(const std::vector<TensorParallelLayer>& plan, std::int64_t batch);

}  // namespace distlab
