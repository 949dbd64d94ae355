#pragma once
// The dense layer, activation and loss math as templates over the scalar type: the engine runs
// them in float, the gradient-check tests in double. Row-major matrices; batch along rows.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <type_traits>

#include "distlab/config/run_config.hpp"
#include "model/matrix_product.hpp"
#include "tensor/parallel_ranges.hpp"

namespace distlab::kernels {

template <typename S>
using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename S>
using MatrixMap = Eigen::Map<Matrix<S>>;
template <typename S>
using ArrayMap = Eigen::Map<Eigen::Array<S, Eigen::Dynamic, 1>>;
template <typename S>
using ConstArrayMap = Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>>;
template <typename S>
using ConstRowVectorMap = Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>>;

/// y = act(z), elementwise over n values, on the calling thread.
template <typename S>
void activateRange(Activation act, const S* z, S* y, std::int64_t n) {
    switch (act) {
        case Activation::Linear:
            if (y != z) std::copy(z, z + n, y);
            return;
        case Activation::Relu:
            for (std::int64_t i = 0; i < n; ++i) y[i] = z[i] > S(0) ? z[i] : S(0);
            return;
        case Activation::Tanh:  // Eigen's vectorised tanh: libm's tanhf costs ~40 ns a value
            ArrayMap<S>(y, n) = ConstArrayMap<S>(z, n).tanh();
            return;
        case Activation::Sigmoid:
            ArrayMap<S>(y, n) = ConstArrayMap<S>(z, n).logistic();
            return;
        case Activation::Gelu:  // exact GELU with erf, as tf.nn.gelu(approximate=False) and torch's default
            for (std::int64_t i = 0; i < n; ++i) y[i] = S(0.5) * z[i] * (S(1) + std::erf(z[i] * S(std::numbers::sqrt2 / 2)));
            return;
    }
}

/// dz = dy * act'(z), given z and y = act(z), on the calling thread. dz may alias dy.
template <typename S>
void activationBackwardRange(Activation act, const S* z, const S* y, const S* dy, S* dz, std::int64_t n) {
    switch (act) {
        case Activation::Linear:
            if (dz != dy) std::copy(dy, dy + n, dz);
            return;
        case Activation::Relu:
            for (std::int64_t i = 0; i < n; ++i) dz[i] = z[i] > S(0) ? dy[i] : S(0);
            return;
        case Activation::Tanh:
            for (std::int64_t i = 0; i < n; ++i) dz[i] = dy[i] * (S(1) - y[i] * y[i]);
            return;
        case Activation::Sigmoid:
            for (std::int64_t i = 0; i < n; ++i) dz[i] = dy[i] * y[i] * (S(1) - y[i]);
            return;
        case Activation::Gelu: {
            const S invSqrt2 = S(std::numbers::sqrt2 / 2);
            const S invSqrt2Pi = S(0.5 * std::numbers::inv_sqrtpi * std::numbers::sqrt2);
            for (std::int64_t i = 0; i < n; ++i) {
                const S cdf = S(0.5) * (S(1) + std::erf(z[i] * invSqrt2));
                const S pdf = invSqrt2Pi * std::exp(S(-0.5) * z[i] * z[i]);
                dz[i] = dy[i] * (cdf + z[i] * pdf);
            }
            return;
        }
    }
}

// A layer's elementwise passes are split across the replica's OpenMP team like the products
// around them: on one thread, the team's other threads waited through them (W3: 128 x 1024 values
// a pass, a few per cent of the step with the bias and the column sums below).

/// y = act(z), elementwise over n values.
template <typename S>
void activate(Activation act, const S* z, S* y, std::int64_t n) {
    forEachPart(static_cast<std::size_t>(n), [&](int, std::size_t begin, std::size_t end) {
        activateRange(act, z + begin, y + begin, static_cast<std::int64_t>(end - begin));
    });
}

/// dz = dy * act'(z), given z and y = act(z). dz may alias dy.
template <typename S>
void activationBackward(Activation act, const S* z, const S* y, const S* dy, S* dz, std::int64_t n) {
    forEachPart(static_cast<std::size_t>(n), [&](int, std::size_t begin, std::size_t end) {
        activationBackwardRange(act, z + begin, y + begin, dy + begin, dz + begin, static_cast<std::int64_t>(end - begin));
    });
}

/// z = x W + b for x [batch, in], W [in, out], b [out]; then z = max(z, 0) where relu.
template <typename S>
void denseForward(const S* x, const S* w, const S* b, S* z, std::int64_t batch, std::int64_t in, std::int64_t out, bool relu = false) {
    // On a packed kernel the bias and ReLU are applied as the product writes each finished tile:
    // z written once, not laid down, added onto and passed over again (W1: 2.4 % of the step).
    if constexpr (std::is_same_v<S, float>)
        if (fusedWriteBackAvailable(batch, out, in)) return affineProduct(batch, out, in, x, w, b, relu, z);
    // The bias is laid down first and the product added onto it (beta 1): one pass over z instead
    // of the product's own clearing (beta 0) and then a pass adding the bias.
    forEachPart(
        static_cast<std::size_t>(batch),
        [&](int, std::size_t first, std::size_t last) {
            const auto rows = static_cast<std::int64_t>(last - first);
            MatrixMap<S>(z + static_cast<std::int64_t>(first) * out, rows, out).rowwise() = ConstRowVectorMap<S>(b, out);
        },
        static_cast<std::size_t>(out));
    matrixProduct(Op::None, Op::None, batch, out, in, x, w, S(1), z);
    if (relu) activate(Activation::Relu, z, z, batch * out);
}

/// Whether act's derivative can be read off its output y alone, so that a layer need not keep z
/// and denseForward can write y = act(z) directly: linear (no derivative to read) and ReLU (y > 0
/// exactly where z > 0, NaN included: both give 0 there).
constexpr bool activationDerivativeFromOutput(Activation act) { return act == Activation::Linear || act == Activation::Relu; }

/// db += column sums of dz [batch, out] (= when not accumulate): each column summed down the batch
/// in row order, the columns split across the team.
template <typename S>
void biasGradient(const S* dz, S* db, std::int64_t batch, std::int64_t out, bool accumulate) {
    forEachPart(
        static_cast<std::size_t>(out),
        [&](int, std::size_t first, std::size_t last) {
            S* sums = db + first;
            const auto columns = static_cast<std::int64_t>(last - first);
            if (!accumulate) std::fill_n(sums, columns, S(0));
            for (std::int64_t r = 0; r < batch; ++r) {
                const S* row = dz + r * out + static_cast<std::int64_t>(first);
                for (std::int64_t c = 0; c < columns; ++c) sums[c] += row[c];
            }
        },
        static_cast<std::size_t>(batch));
}

/// dx = dz W^T for dz [batch, out], W [in, out]; then, where reluOutput is set (x came out of a
/// ReLU: reluOutput is x), dx = x > 0 ? dx : 0, that ReLU's derivative.
template <typename S>
void inputGradient(const S* dz, const S* w, const S* reluOutput, S* dx, std::int64_t batch, std::int64_t in, std::int64_t out) {
    // On a packed kernel the derivative is applied as the product writes each finished tile: no
    // pass of its own over dx and the layer before's output (W1: 1.4 % of the step).
    if constexpr (std::is_same_v<S, float>)
        if (reluOutput != nullptr && fusedWriteBackAvailable(batch, in, out))
            return maskedProduct(Op::None, Op::Transpose, batch, in, out, dz, w, reluOutput, dx);
    matrixProduct(Op::None, Op::Transpose, batch, in, out, dz, w, S(0), dx);
    if (reluOutput != nullptr) activationBackward(Activation::Relu, reluOutput, reluOutput, dx, dx, batch * in);
}

/// dW += x^T dz, db += column sums of dz (= instead of += when not accumulate), and dx = dz W^T
/// when dx is not null (times the derivative of the ReLU x came out of where dxRelu: see
/// inputGradient).
template <typename S>
void denseBackward(const S* x, const S* w, const S* dz, S* dw, S* db, S* dx, std::int64_t batch, std::int64_t in, std::int64_t out,
                   bool accumulate = true, bool dxRelu = false) {
    matrixProduct(Op::Transpose, Op::None, in, out, batch, x, dz, S(accumulate ? 1 : 0), dw);
    biasGradient(dz, db, batch, out, accumulate);
    if (dx != nullptr) inputGradient(dz, w, dxRelu ? x : nullptr, dx, batch, in, out);
}

/// Softmax cross-entropy with integer labels. Returns the SUM of per-example losses and writes
/// dlogits = (softmax - onehot) * scale. Counts correct arg-max predictions into *correct.
template <typename S>
S softmaxCrossEntropy(const S* logits, const std::int32_t* labels, S* dlogits, std::int64_t batch, std::int64_t classes, S scale,
                      std::int64_t* correct) {
    S total = 0;
    for (std::int64_t r = 0; r < batch; ++r) {
        const S* row = logits + r * classes;
        S* grad = dlogits + r * classes;
        std::int64_t best = 0;
        S maxValue = row[0];
        for (std::int64_t c = 1; c < classes; ++c)
            if (row[c] > maxValue) maxValue = row[c], best = c;
        S sum = 0;
        for (std::int64_t c = 0; c < classes; ++c) sum += (grad[c] = std::exp(row[c] - maxValue));
        const S logSum = std::log(sum);
        const std::int32_t label = labels[r];
        total += logSum - (row[label] - maxValue);
        const S inv = scale / sum;
        for (std::int64_t c = 0; c < classes; ++c) grad[c] *= inv;
        grad[label] -= scale;
        if (correct != nullptr && best == label) ++*correct;
    }
    return total;
}

/// Mean squared error, per example the mean over the outputs (Keras' convention). Returns the
/// SUM of per-example losses; writes dpred = 2 (pred - target) / outputs * scale.
template <typename S>
S meanSquaredError(const S* pred, const S* target, S* dpred, std::int64_t batch, std::int64_t outputs, S scale) {
    S total = 0;
    const S invOutputs = S(1) / S(outputs);
    for (std::int64_t i = 0; i < batch * outputs; ++i) {
        const S diff = pred[i] - target[i];
        total += diff * diff * invOutputs;
        dpred[i] = S(2) * diff * invOutputs * scale;
    }
    return total;
}

}  // namespace distlab::kernels
