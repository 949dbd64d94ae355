#include "distlab/model/loss.hpp"

#include "model/dense_kernels.hpp"

namespace distlab {

LossStats LossFunction::evaluate(const Tensor& outputs, const BatchTargets& targets, float scale, Tensor& grad) const {
    const std::int64_t rows = outputs.rows();
    const std::int64_t width = outputs.cols();
    grad.resize2d(rows, width);
    LossStats stats;
    stats.count = rows;
    if (m_kind == LossKind::SoftmaxCrossEntropy) {
        stats.sum =
            kernels::softmaxCrossEntropy<float>(outputs.data(), targets.labels.data(), grad.data(), rows, width, scale, &stats.correct);
    } else {
        stats.sum = kernels::meanSquaredError<float>(outputs.data(), targets.values.data(), grad.data(), rows, width, scale);
    }
    return stats;
}

}  // namespace distlab
