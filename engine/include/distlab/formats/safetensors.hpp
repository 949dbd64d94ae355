#pragma once
// Safetensors weight files (the Hugging Face format): an 8-byte little-endian header length N,
// N bytes of JSON header {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
// "__metadata__": {"key": "value"}}, then the data section (offsets are relative to its start).
// Reading validates everything the reference implementation checks; writing is atomic.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/tensor/dtype.hpp"
#include "distlab/tensor/tensor.hpp"

namespace distlab {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian; add byte swapping");

/// Element types of the format (file names "BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16",
/// "F16", "BF16", "I32", "U32", "F32", "I64", "U64", "F64").
enum class SafeDType { Bool, U8, I8, F8E5M2, F8E4M3, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64 };

/// The dtype's name in the file, e.g. "F32".
std::string_view safeDTypeName(SafeDType dtype);
/// Bytes per element (1, 2, 4 or 8).
std::size_t safeDTypeSize(SafeDType dtype);
/// The dtype named `name` ("F32"), or nothing when the name is unknown.
std::optional<SafeDType> parseSafeDType(std::string_view name);
/// The format's tags are a vocabulary of the file, wider than what DistLab computes with: the
/// project's DType for a tag (F32, F16, BF16, I32), or nothing for the others.
std::optional<DType> toDType(SafeDType tag);
/// The tag a DType is written with.
SafeDType toSafeDType(DType dtype);

/// One tensor: dtype, shape and its row-major little-endian bytes (size = elements × dtype size).
struct SafeTensor {
    SafeDType dtype = SafeDType::F32;
    Shape shape;
    std::vector<std::byte> bytes;
};

/// A whole file: tensors by name and the header's "__metadata__" string map.
struct SafeTensorsFile {
    std::map<std::string, SafeTensor> tensors;
    std::map<std::string, std::string> metadata;
};

/// Reads and fully validates a file (opened as InputFile, kind Weights: a regular file of at most
/// 2 GiB; `field` names it when it cannot be read, e.g. "--init-weights"); errors name the file and
/// the byte offset or tensor. Memory is bounded by the file size whatever the header says. Blocks
/// on disk I/O; any thread.
Result<SafeTensorsFile> readSafeTensors(const std::string& path, const std::string& field = "safetensors");
/// Parses and fully validates the bytes of a file; `fileName` is used in error messages. Any thread.
Result<SafeTensorsFile> parseSafeTensors(std::span<const std::byte> bytes, const std::string& fileName);
/// The bytes writeSafeTensors() would write. Errors: a tensor whose byte count disagrees with its
/// shape, a negative dimension, a name that is not UTF-8 or is "__metadata__". Any thread.
Result<std::vector<std::byte>> serializeSafeTensors(const SafeTensorsFile& file);
/// Writes atomically (a temporary file in the same folder, fsync, rename): a failed save leaves the
/// old file intact. Layout as the reference implementation: compact JSON header with
/// "__metadata__" first (only when not empty), padded with spaces to a multiple of 8 bytes, data
/// ordered by dtype size (largest first, so every tensor stays aligned), then by name. Blocks.
Status writeSafeTensors(const std::string& path, const SafeTensorsFile& file);

/// The dtype stored for a C++ element type (float -> F32, std::int64_t -> I64, ...).
template <typename T>
constexpr SafeDType safeDTypeOf() {
    if constexpr (std::is_same_v<T, float>)
        return SafeDType::F32;
    else if constexpr (std::is_same_v<T, double>)
        return SafeDType::F64;
    else if constexpr (std::is_same_v<T, std::int8_t>)
        return SafeDType::I8;
    else if constexpr (std::is_same_v<T, std::uint8_t>)
        return SafeDType::U8;
    else if constexpr (std::is_same_v<T, std::int16_t>)
        return SafeDType::I16;
    else if constexpr (std::is_same_v<T, std::uint16_t>)
        return SafeDType::U16;
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return SafeDType::I32;
    else if constexpr (std::is_same_v<T, std::uint32_t>)
        return SafeDType::U32;
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return SafeDType::I64;
    else if constexpr (std::is_same_v<T, std::uint64_t>)
        return SafeDType::U64;
    else
        static_assert(sizeof(T) == 0, "no safetensors dtype for this type");
}

/// Makes a tensor of `shape` from row-major values; throws std::invalid_argument when the counts
/// differ or a dimension is negative (a programming error, not user input). Any thread.
template <typename T>
SafeTensor makeSafeTensor(Shape shape, std::span<const T> values) {
    for (const std::int64_t dim : shape) {
        if (dim < 0) throw std::invalid_argument("makeSafeTensor: negative dimension in " + shapeToString(shape));
    }
    if (static_cast<std::uint64_t>(elementCount(shape)) != values.size()) {
        throw std::invalid_argument("makeSafeTensor: " + std::to_string(values.size()) + " values do not fill shape " +
                                    shapeToString(shape));
    }
    SafeTensor tensor{safeDTypeOf<T>(), std::move(shape), std::vector<std::byte>(values.size_bytes())};
    if (!values.empty()) std::memcpy(tensor.bytes.data(), values.data(), values.size_bytes());
    return tensor;
}

/// Makes an F32 tensor of `shape` from row-major floats (see makeSafeTensor).
inline SafeTensor makeF32Tensor(Shape shape, std::span<const float> values) { return makeSafeTensor<float>(std::move(shape), values); }

/// Finds tensor `name` and checks its dtype and shape, e.g. "w.safetensors: dense_0/bias: shape [3]
/// in the file, the model needs [4]". Any thread.
Result<const SafeTensor*> findSafeTensor(const SafeTensorsFile& file, const std::string& name, SafeDType dtype, const Shape& expectedShape,
                                         const std::string& fileName);

/// Copies tensor `name` (dtype of T, shape `expectedShape`) into `out` without allocating.
/// `out` must hold elementCount(expectedShape) values (std::invalid_argument otherwise). Any thread.
template <typename T>
Status copySafeTensor(const SafeTensorsFile& file, const std::string& name, const Shape& expectedShape, std::span<T> out,
                      const std::string& fileName) {
    if (out.size() != static_cast<std::uint64_t>(elementCount(expectedShape))) {
        throw std::invalid_argument("copySafeTensor: output span does not match shape " + shapeToString(expectedShape));
    }
    const auto found = findSafeTensor(file, name, safeDTypeOf<std::remove_cv_t<T>>(), expectedShape, fileName);
    if (!found) return found.error();
    if (!out.empty()) std::memcpy(out.data(), (*found)->bytes.data(), out.size_bytes());
    return Ok{};
}

/// Reads F32 tensor `name` of shape `expectedShape` into a new vector of floats. Any thread.
Result<std::vector<float>> readF32Tensor(const SafeTensorsFile& file, const std::string& name, const Shape& expectedShape,
                                         const std::string& fileName);

/// A tensor the model needs: its parameter name and shape (dtype F32).
struct ExpectedTensor {
    std::string name;
    Shape shape;
};

/// Checks that `file` holds exactly these F32 tensors (names and shapes), ignoring names that start
/// with `ignorePrefix` (empty: ignore none). The error names the first mismatch, in the order of
/// `expected` and then of the file: "w.safetensors: dense_1/kernel: shape [128, 10] in the file, the
/// model needs [128, 12]", "w.safetensors: missing tensor dense_2/bias",
/// "w.safetensors: unexpected tensor foo". Any thread.
Status checkTensorsMatch(const SafeTensorsFile& file, std::span<const ExpectedTensor> expected, const std::string& fileName,
                         std::string_view ignorePrefix = "optimizer/");

}  // namespace distlab
