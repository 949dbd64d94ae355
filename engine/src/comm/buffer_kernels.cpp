#include "comm/buffer_kernels.hpp"

#include <cstring>

namespace distlab::comm_detail {

void addInto(float* __restrict destination, const float* __restrict source, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) destination[i] += source[i];
}

void minInto(float* __restrict destination, const float* __restrict source, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) destination[i] = source[i] < destination[i] ? source[i] : destination[i];
}

void maxInto(float* __restrict destination, const float* __restrict source, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) destination[i] = source[i] > destination[i] ? source[i] : destination[i];
}

void copyInto(float* destination, const float* source, std::size_t count) {
    if (count > 0) std::memcpy(destination, source, count * sizeof(float));
}

void divideBy(float* __restrict destination, float divisor, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) destination[i] /= divisor;
}

}  // namespace distlab::comm_detail
