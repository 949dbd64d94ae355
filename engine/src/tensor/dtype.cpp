#include "distlab/tensor/dtype.hpp"

#include <array>

#include <Eigen/Core>

namespace distlab {
namespace {
constexpr std::array<std::string_view, 4> kNames{"float32", "float16", "bfloat16", "int32"};
}  // namespace

std::string_view dtypeName(DType dtype) { return kNames[static_cast<std::size_t>(dtype)]; }

std::optional<DType> parseDType(std::string_view name) {
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name) return static_cast<DType>(i);
    return std::nullopt;
}

// Eigen's types do the rounding (to nearest even, NaN and infinities kept); only the raw bits
// cross this boundary.
float halfToFloat(std::uint16_t bits) { return static_cast<float>(Eigen::half(Eigen::half_impl::raw_uint16_to_half(bits))); }
std::uint16_t floatToHalf(float value) { return Eigen::half(value).x; }
float bfloat16ToFloat(std::uint16_t bits) {
    return static_cast<float>(Eigen::bfloat16(Eigen::bfloat16_impl::raw_uint16_to_bfloat16(bits)));
}
std::uint16_t floatToBfloat16(float value) { return Eigen::bfloat16(value).value; }

void widen16(DType dtype, const std::uint16_t* in, float* out, std::size_t count) {
    if (dtype == DType::Float16)
        for (std::size_t i = 0; i < count; ++i) out[i] = halfToFloat(in[i]);
    else
        for (std::size_t i = 0; i < count; ++i) out[i] = bfloat16ToFloat(in[i]);
}

void narrow16(DType dtype, const float* in, std::uint16_t* out, std::size_t count) {
    if (dtype == DType::Float16)
        for (std::size_t i = 0; i < count; ++i) out[i] = floatToHalf(in[i]);
    else
        for (std::size_t i = 0; i < count; ++i) out[i] = floatToBfloat16(in[i]);
}

}  // namespace distlab
