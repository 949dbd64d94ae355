#include "distlab/tensor/reductions.hpp"

#include <cstddef>

namespace distlab {

double sumOfSquares(std::span<const float> values) {
    // 32 partial sums the compiler keeps in four vector registers: one running sum would wait on
    // each add's latency, a few cycles for every gradient value of every step.
    constexpr std::size_t kLanes = 32;
    double partial[kLanes] = {};
    const float* v = values.data();
    const std::size_t n = values.size();
    const std::size_t whole = n - n % kLanes;
    for (std::size_t i = 0; i < whole; i += kLanes)
        for (std::size_t lane = 0; lane < kLanes; ++lane)
            partial[lane] += static_cast<double>(v[i + lane]) * static_cast<double>(v[i + lane]);
    double sum = 0.0;
    for (std::size_t i = whole; i < n; ++i) sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    for (double lane : partial) sum += lane;
    return sum;
}

}  // namespace distlab
