#include "distlab/optim/adam.hpp"

#include <cmath>

#include "optim/update_blocks.hpp"

namespace distlab {

Adam::Adam(float beta1, float beta2, float epsilon, std::int64_t parameterCount)
    : m_beta1(beta1),
      m_beta2(beta2),
      m_epsilon(epsilon),
      m_first(static_cast<std::size_t>(parameterCount), 0.0f),
      m_second(static_cast<std::size_t>(parameterCount), 0.0f) {}

void Adam::update(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset,
                  std::span<double> blockSums) {
    const double t = static_cast<double>(m_iterations);
    const float stepSize = static_cast<float>(learningRate / (1.0 - std::pow(static_cast<double>(m_beta1), t)));
    const float invSecondCorrection = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(static_cast<double>(m_beta2), t)));
    const float b1 = m_beta1, b2 = m_beta2, eps = m_epsilon;
    float* p = params.data();
    const float* g = grads.data();
    float* m = m_first.data() + offset;
    float* v = m_second.data() + offset;
    // A pass over every parameter, bound by memory (optim/update_blocks.hpp).
    forEachUpdateBlock(0x4144414D00000000ull ^ params.size(), grads, blockSums, [=](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            m[i] = b1 * m[i] + (1.0f - b1) * g[i];
            v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
            p[i] -= stepSize * m[i] / (std::sqrt(v[i]) * invSecondCorrection + eps);
        }
    });
}

std::vector<std::string> Adam::slotNames() const { return {"m", "v"}; }

std::span<float> Adam::slot(std::size_t index) { return index == 0 ? std::span<float>(m_first) : std::span<float>(m_second); }

}  // namespace distlab
