#pragma once
// Adam with bias correction (Kingma & Ba; PyTorch's form with epsilon outside the square root):
// m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr / (1-b1^t) * m / (sqrt(v / (1-b2^t)) + eps).
#include "distlab/optim/optimizer.hpp"

namespace distlab {

class Adam final : public Optimizer {
public:
    Adam(float beta1, float beta2, float epsilon, std::int64_t parameterCount);
    std::vector<std::string> slotNames() const override;
    std::span<float> slot(std::size_t index) override;

protected:
    void update(std::span<float> params, std::span<const float> grads, float learningRate, std::int64_t offset,
                std::span<double> blockSums) override;

private:
    float m_beta1;
    float m_beta2;
    float m_epsilon;
    std::vector<float> m_first;
    std::vector<float> m_second;
};

}  // namespace distlab
