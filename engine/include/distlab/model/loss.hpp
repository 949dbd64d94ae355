#pragma once
// The training losses. A loss returns the SUM of per-example losses; the caller picks the
// gradient scale (1 / global batch, TensorFlow's compute_average_loss convention).
#include <cstdint>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/tensor/tensor.hpp"

namespace distlab {

/// The targets of one batch: class ids (softmax cross-entropy) or float rows (MSE).
struct BatchTargets {
    std::vector<std::int32_t> labels;  ///< [rows] when classifying
    Tensor values;                     ///< [rows, outputs] when regressing
};

struct LossStats {
    double sum = 0.0;          ///< sum of per-example losses
    std::int64_t correct = 0;  ///< correct arg-max predictions (classification only)
    std::int64_t count = 0;    ///< examples
};

class LossFunction {
public:
    explicit LossFunction(LossKind kind) : m_kind(kind) {}
    LossKind kind() const { return m_kind; }

    /// Loss of `outputs` [rows, k] against the first `rows` targets; writes d(loss sum)/d(outputs) x scale
    /// into grad (sized to outputs). Allocation-free once grad has grown.
    LossStats evaluate(const Tensor& outputs, const BatchTargets& targets, float scale, Tensor& grad) const;

private:
    LossKind m_kind;
};

}  // namespace distlab
