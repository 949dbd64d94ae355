#include "distlab/tensor/reductions.hpp"

#include <cstddef>

#include "tensor/parallel_ranges.hpp"

namespace distlab {

namespace {

double sumOfSquaresSerial(const float* v, std::size_t n) {
    // 32 partial sums the compiler keeps in four vector registers: one running sum would wait on
    // each add's latency, a few cycles for every gradient value of every step.
    constexpr std::size_t kLanes = 32;
    double partial[kLanes] = {};
    const std::size_t whole = n - n % kLanes;
    for (std::size_t i = 0; i < whole; i += kLanes)
        for (std::size_t lane = 0; lane < kLanes; ++lane)
            partial[lane] += static_cast<double>(v[i + lane]) * static_cast<double>(v[i + lane]);
    double sum = 0.0;
    for (std::size_t i = whole; i < n; ++i) sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    for (double lane : partial) sum += lane;
    return sum;
}

}  // namespace

double sumOfSquares(std::span<const float> values) {
    // Bound by memory on large buffers: split across the caller's OpenMP team, the parts' sums then
    // added in part order (the same order for the same thread count).
    double parts[kMaxParallelParts] = {};
    const float* v = values.data();
    const int count = forEachPart(values.size(), [&](int part, std::size_t begin, std::size_t end) {
        parts[part] = sumOfSquaresSerial(v + begin, end - begin);
    });
    double sum = 0.0;
    for (int part = 0; part < count; ++part) sum += parts[part];
    return sum;
}

}  // namespace distlab
