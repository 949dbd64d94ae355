#pragma once
// The element types of the whole project: tensors, communicator buffers, the variable lab, weight
// files. One enum; 16-bit floats are stored as their raw bits (std::uint16_t) and computed in
// float32 (widened on read, rounded to nearest even once on write).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <type_traits>

namespace distlab {

enum class DType : std::uint8_t { Float32, Float16, BFloat16, Int32 };

/// "float32", "float16", "bfloat16", "int32" (configs, scripts, messages).
std::string_view dtypeName(DType dtype);
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element.
constexpr std::size_t dtypeSize(DType dtype) { return dtype == DType::Float16 || dtype == DType::BFloat16 ? 2 : 4; }
constexpr bool isFloating(DType dtype) { return dtype != DType::Int32; }

/// Whether `T` is how elements of `dtype` are stored: float for Float32, std::uint16_t (raw bits)
/// for Float16 and BFloat16, std::int32_t for Int32.
template <typename T>
constexpr bool storesAs(DType dtype) {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, float>)
        return dtype == DType::Float32;
    else if constexpr (std::is_same_v<U, std::uint16_t>)
        return dtype == DType::Float16 || dtype == DType::BFloat16;
    else if constexpr (std::is_same_v<U, std::int32_t>)
        return dtype == DType::Int32;
    else
        return false;
}

/// IEEE 754 binary16 and bfloat16 <-> float32, round to nearest even (NaN stays NaN).
float halfToFloat(std::uint16_t bits);
std::uint16_t floatToHalf(float value);
float bfloat16ToFloat(std::uint16_t bits);
std::uint16_t floatToBfloat16(float value);

/// Widens `count` 16-bit values of `dtype` (Float16 or BFloat16) into `out`, and rounds back.
void widen16(DType dtype, const std::uint16_t* in, float* out, std::size_t count);
void narrow16(DType dtype, const float* in, std::uint16_t* out, std::size_t count);

/// A typed view of a contiguous buffer in this process's memory: what communicator calls take.
struct BufferView {
    void* data = nullptr;
    std::int64_t count = 0;  ///< elements
    DType dtype = DType::Float32;

    BufferView() = default;
    BufferView(std::span<float> values) : data(values.data()), count(static_cast<std::int64_t>(values.size())) {}
    /// 16-bit floats (Float16 or BFloat16) as raw bits.
    BufferView(std::span<std::uint16_t> bits, DType type) : data(bits.data()), count(static_cast<std::int64_t>(bits.size())), dtype(type) {
        if (dtypeSize(type) != 2) throw std::invalid_argument("BufferView: 16-bit storage needs float16 or bfloat16");
    }
    BufferView(std::span<std::int32_t> values)
        : data(values.data()), count(static_cast<std::int64_t>(values.size())), dtype(DType::Int32) {}
    /// `count` elements of `type` at `memory` (a Tensor's storage, say); the caller vouches for the type.
    BufferView(void* memory, std::int64_t elements, DType type) : data(memory), count(elements), dtype(type) {}
    std::int64_t bytes() const { return count * static_cast<std::int64_t>(dtypeSize(dtype)); }
    std::span<float> asFloat32() const { return {static_cast<float*>(data), static_cast<std::size_t>(count)}; }
    std::span<std::uint16_t> as16() const { return {static_cast<std::uint16_t*>(data), static_cast<std::size_t>(count)}; }
    std::span<std::int32_t> asInt32() const { return {static_cast<std::int32_t*>(data), static_cast<std::size_t>(count)}; }
};

}  // namespace distlab
