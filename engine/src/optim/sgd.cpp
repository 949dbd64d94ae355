#include "distlab/optim/sgd.hpp"

#include "optim/sgd_step.hpp"
#include "optim/update_blocks.hpp"

namespace distlab {

Sgd::Sgd(float momentum, bool nesterov, std::int64_t parameterCount) : m_momentum(momentum), m_nesterov(nesterov) {
    if (momentum != 0.0f) m_velocity.assign(static_cast<std::size_t>(parameterCount), 0.0f);
}

void Sgd::update(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset,
                 std::span<double> blockSums) {
    const std::uint64_t key = 0x5347440000000000ull ^ params.size();
    if (isPlainStep()) return sgdPass(key, params, grads, learningRate, blockSums);
    float* p = params.data();
    const float* g = grads.data();
    float* b = m_velocity.data() + offset;
    const float mu = m_momentum;
    const bool nesterov = m_nesterov;
    // A pass over every parameter, bound by memory (optim/update_blocks.hpp).
    forEachUpdateBlock(key, grads, blockSums, [=](std::size_t begin, std::size_t end) {
        if (nesterov) {
            for (std::size_t i = begin; i < end; ++i) {
                b[i] = mu * b[i] + g[i];
                p[i] -= learningRate * (g[i] + mu * b[i]);
            }
        } else {
            for (std::size_t i = begin; i < end; ++i) {
                b[i] = mu * b[i] + g[i];
                p[i] -= learningRate * b[i];
            }
        }
    });
}

std::vector<std::string> Sgd::slotNames() const {
    return m_velocity.empty() ? std::vector<std::string>{} : std::vector<std::string>{"momentum"};
}

std::span<float> Sgd::slot(std::size_t) { return m_velocity; }

}  // namespace distlab
