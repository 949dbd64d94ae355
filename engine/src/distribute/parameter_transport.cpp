#include "distribute/parameter_transport.hpp"

#include <algorithm>

namespace distlab {

InProcessParameterTransport::InProcessParameterTransport(int workers, std::int64_t parameters)
    : m_pulled(static_cast<std::size_t>(workers), std::vector<float>(static_cast<std::size_t>(parameters))),
      m_pushed(static_cast<std::size_t>(workers), std::vector<float>(static_cast<std::size_t>(parameters))) {}

std::int64_t InProcessParameterTransport::sendParameters(int worker, std::span<const float> parameters) {
    std::copy(parameters.begin(), parameters.end(), m_pulled[static_cast<std::size_t>(worker)].begin());
    return static_cast<std::int64_t>(parameters.size_bytes());
}

void InProcessParameterTransport::receiveParameters(int worker, std::span<float> values) {
    const std::vector<float>& pulled = m_pulled[static_cast<std::size_t>(worker)];
    std::copy(pulled.begin(), pulled.end(), values.begin());
}

std::int64_t InProcessParameterTransport::sendGradient(int worker, std::span<const float> gradient) {
    std::copy(gradient.begin(), gradient.end(), m_pushed[static_cast<std::size_t>(worker)].begin());
    return static_cast<std::int64_t>(gradient.size_bytes());
}

std::span<const float> InProcessParameterTransport::receivedGradient(int worker) const {
    return m_pushed[static_cast<std::size_t>(worker)];
}

}  // namespace distlab
