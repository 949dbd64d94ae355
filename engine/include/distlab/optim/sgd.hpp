#pragma once
// SGD with optional momentum and Nesterov momentum, in PyTorch's form:
// b = momentum * b + g;  p -= lr * (nesterov ? g + momentum * b : b).
// With a constant learning rate this is the same trajectory as Keras' SGD.
#include "distlab/optim/optimizer.hpp"

namespace distlab {

class Sgd final : public Optimizer {
public:
    Sgd(float momentum, bool nesterov, std::int64_t parameterCount);
    bool isPlainStep() const override { return m_velocity.empty(); }
    std::vector<std::string> slotNames() const override;
    std::span<float> slot(std::size_t index) override;

protected:
    void update(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset,
                std::span<double> blockSums) override;

private:
    float m_momentum;
    bool m_nesterov;
    std::vector<float> m_velocity;
};

}  // namespace distlab
