#pragma once
// A tensor: a shape, an element type (DType, float32 unless asked) and a device, over one
// contiguous row-major buffer that the tensor owns. The buffer is 64-byte aligned (see
// aligned_allocator.hpp: bit-reproducible sums) and counts in its own device's memory figures
// (device_memory.hpp), whichever thread allocates or frees it; a tensor built without a device is
// on cpu:K, K the building thread's DeviceMemoryScope device. Only CPU devices hold storage for
// now: a tensor on a GPU device throws std::invalid_argument. Resizing keeps the capacity, so
// buffers reused every step never reallocate once warmed up; elements a resize exposes for the
// first time are zero. Elements are read through typed access, data<T>() and values<T>() (T float
// unless named: float32), which checks the dtype on every call in every build and throws
// std::invalid_argument when T is not how it is stored, so a float16 tensor is never read as
// floats past its storage; hot loops take the span or pointer once and index that. operator[] is
// checked too (a float32 element), for the occasional element, not for loops. A copy is a new
// buffer on the same device; a move takes the buffer. TensorView / ConstTensorView look at a tensor's memory without owning or copying it:
// view(), slice(begin, end) along the first axis, reshaped(shape).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "distlab/tensor/aligned_allocator.hpp"
#include "distlab/tensor/device.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "distlab/tensor/dtype.hpp"

namespace distlab {

using Shape = std::vector<std::int64_t>;

/// Number of elements of a shape (1 for a scalar shape {}).
inline std::int64_t elementCount(const Shape& shape) {
    return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}
inline std::int64_t elementCount(std::span<const std::int64_t> shape) {
    return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

/// "[784, 256]"
std::string shapeToString(const Shape& shape);
std::string shapeToString(std::span<const std::int64_t> shape);

/// The device a tensor built without one is on: cpu:K, K the calling thread's DeviceMemoryScope device.
inline Device currentCpuDevice() { return Device::cpu(currentMemoryDevice()); }

namespace tensor_detail {
inline constexpr std::size_t kAlignment = 64;
/// Throws std::invalid_argument: `dtype` elements are not stored as `requested`. Out of line, so
/// the check inlined into every access is a compare and a branch not taken.
[[noreturn]] void throwStorageMismatch(DType dtype, std::string_view requested);
template <typename T>
void requireStorage(DType dtype) {
    using U = std::remove_cv_t<T>;
    static_assert(std::is_same_v<U, float> || std::is_same_v<U, std::uint16_t> || std::is_same_v<U, std::int32_t>,
                  "data<T>: T is float (float32), std::uint16_t (float16, bfloat16 bits) or std::int32_t (int32)");
    if (!storesAs<U>(dtype)) [[unlikely]] {
        if constexpr (std::is_same_v<U, float>)
            throwStorageMismatch(dtype, "float");
        else if constexpr (std::is_same_v<U, std::uint16_t>)
            throwStorageMismatch(dtype, "std::uint16_t");
        else
            throwStorageMismatch(dtype, "std::int32_t");
    }
}
}  // namespace tensor_detail

/// A view's shape, held inline so that making a view never allocates: up to kMaxRank axes.
class ViewShape {
public:
    static constexpr std::size_t kMaxRank = 8;

    ViewShape() = default;
    /// Throws std::invalid_argument for more than kMaxRank axes.
    explicit ViewShape(std::span<const std::int64_t> dims) {
        if (dims.size() > kMaxRank)
            throw std::invalid_argument("TensorView: " + shapeToString(dims) + " has more than " + std::to_string(kMaxRank) + " axes");
        std::copy(dims.begin(), dims.end(), m_dims);
        m_rank = static_cast<std::uint8_t>(dims.size());
    }
    ViewShape(std::initializer_list<std::int64_t> dims) : ViewShape(std::span<const std::int64_t>(dims.begin(), dims.size())) {}

    std::size_t size() const { return m_rank; }
    bool empty() const { return m_rank == 0; }
    const std::int64_t* begin() const { return m_dims; }
    const std::int64_t* end() const { return m_dims + m_rank; }
    std::int64_t operator[](std::size_t axis) const { return m_dims[axis]; }
    std::int64_t& operator[](std::size_t axis) { return m_dims[axis]; }
    std::span<const std::int64_t> dims() const { return {m_dims, m_rank}; }
    operator std::span<const std::int64_t>() const { return dims(); }
    Shape toShape() const { return Shape(begin(), end()); }

    friend bool operator==(const ViewShape& a, const ViewShape& b) { return std::ranges::equal(a.dims(), b.dims()); }
    friend bool operator==(const ViewShape& a, const Shape& b) { return std::ranges::equal(a.dims(), b); }

private:
    std::int64_t m_dims[kMaxRank] = {};
    std::uint8_t m_rank = 0;
};

class Tensor;

/// A non-owning look at a contiguous row-major buffer: data pointer, shape, dtype, device. It is
/// valid while the memory it looks at is (a Tensor's until that tensor resizes, moves or dies).
/// Const = true (ConstTensorView) gives read-only access. Copying a view copies no elements.
template <bool Const>
class BasicTensorView {
    template <typename T>
    using Elem = std::conditional_t<Const, const T, T>;
    using Byte = Elem<std::byte>;

public:
    BasicTensorView() = default;
    /// A view of `shape`'s elements of `dtype` at `data` on `device`.
    BasicTensorView(Byte* data, ViewShape shape, DType dtype, Device device)
        : BasicTensorView(data, shape, elementCount(shape.dims()), dtype, device) {}
    /// A view of writable memory converts to a read-only one.
    template <bool Other>
    requires(Const && !Other) BasicTensorView(const BasicTensorView<Other>& other)
        : BasicTensorView(other.rawData(), other.shape(), other.size(), other.dtype(), other.device()) {}

    const ViewShape& shape() const { return m_shape; }
    std::int64_t dim(std::size_t axis) const { return m_shape[axis]; }
    std::int64_t rows() const { return m_shape.empty() ? 1 : m_shape[0]; }
    std::int64_t cols() const {
        if (m_shape.size() < 2) return 1;
        return std::accumulate(m_shape.begin() + 1, m_shape.end(), std::int64_t{1}, std::multiplies<>());
    }
    std::int64_t size() const { return m_size; }
    DType dtype() const { return m_dtype; }
    Device device() const { return m_device; }
    std::int64_t bytes() const { return m_size * static_cast<std::int64_t>(dtypeSize(m_dtype)); }

    /// The elements as their storage type T: float (float32, the default), std::uint16_t (float16
    /// and bfloat16 bits) or std::int32_t (int32). Throws std::invalid_argument when T does not
    /// match the dtype, in every build.
    template <typename T = float>
    Elem<T>* data() const {
        tensor_detail::requireStorage<T>(m_dtype);
        return reinterpret_cast<Elem<T>*>(m_data);
    }
    template <typename T = float>
    std::span<Elem<T>> values() const {
        return {data<T>(), static_cast<std::size_t>(m_size)};
    }
    /// One float32 element, dtype checked: for a few elements; loops index values() taken once.
    Elem<float>& operator[](std::int64_t i) const { return data()[i]; }
    Byte* rawData() const { return m_data; }
    /// The typed view communicator calls take.
    BufferView buffer() const requires(!Const) { return BufferView(m_data, m_size, m_dtype); }

    /// Rows [begin, end) of the first axis, sharing this view's memory. Throws std::out_of_range
    /// unless 0 <= begin <= end <= dim(0) (and for a view without axes).
    BasicTensorView slice(std::int64_t begin, std::int64_t end) const {
        if (m_shape.empty()) throw std::out_of_range("TensorView::slice: a tensor without axes has no rows to slice");
        if (begin < 0 || begin > end || end > m_shape[0])
            throw std::out_of_range("TensorView::slice: rows [" + std::to_string(begin) + ", " + std::to_string(end) +
                                    ") are not within the " + std::to_string(m_shape[0]) + " rows of " + shapeToString(m_shape.dims()));
        const std::int64_t rowElements = cols();
        ViewShape shape = m_shape;
        shape[0] = end - begin;
        Byte* first = m_data == nullptr ? nullptr : m_data + begin * rowElements * static_cast<std::int64_t>(dtypeSize(m_dtype));
        return BasicTensorView(first, shape, (end - begin) * rowElements, m_dtype, m_device);
    }
    /// The same elements seen as `shape`; throws std::invalid_argument unless it has size() elements.
    BasicTensorView reshaped(std::span<const std::int64_t> shape) const {
        const ViewShape dims(shape);
        if (std::ranges::any_of(shape, [](std::int64_t d) { return d < 0; }) || elementCount(shape) != m_size)
            throw std::invalid_argument("TensorView::reshaped: " + shapeToString(shape) + " does not hold the " + std::to_string(m_size) +
                                        " elements of " + shapeToString(m_shape.dims()));
        return BasicTensorView(m_data, dims, m_size, m_dtype, m_device);
    }
    BasicTensorView reshaped(std::initializer_list<std::int64_t> shape) const {
        return reshaped(std::span<const std::int64_t>(shape.begin(), shape.size()));
    }

private:
    friend class Tensor;
    template <bool>
    friend class BasicTensorView;
    BasicTensorView(Byte* data, const ViewShape& shape, std::int64_t size, DType dtype, Device device)
        : m_data(data), m_shape(shape), m_size(size), m_dtype(dtype), m_device(device) {}

    Byte* m_data = nullptr;
    ViewShape m_shape;
    std::int64_t m_size = 0;
    DType m_dtype = DType::Float32;
    Device m_device;
};

using TensorView = BasicTensorView<false>;
using ConstTensorView = BasicTensorView<true>;

class Tensor {
public:
    /// Empty (shape {}, no elements), float32, on currentCpuDevice().
    Tensor() : m_device(currentCpuDevice()) {}
    /// Float32 zeros on currentCpuDevice().
    explicit Tensor(Shape shape) : m_device(currentCpuDevice()) { resize(std::move(shape)); }
    /// Float32 `values` on currentCpuDevice(); throws std::invalid_argument unless they fill `shape`.
    Tensor(Shape shape, std::vector<float> values);
    /// Zeros of `dtype` on `device`. Throws std::invalid_argument for a GPU device (no GPU
    /// backend holds tensors yet) or a negative index.
    Tensor(Shape shape, DType dtype, Device device);

    /// A new buffer on other's device with other's elements.
    Tensor(const Tensor& other);
    /// Becomes a copy of `other`, device included; reuses this buffer when it is on that device and fits.
    Tensor& operator=(const Tensor& other);
    Tensor(Tensor&& other) noexcept;
    Tensor& operator=(Tensor&& other) noexcept;
    ~Tensor() { memory_detail::deallocate(m_data, tensor_detail::kAlignment); }

    /// Sets the shape; grows the buffer only if needed (no allocation when it already fits).
    void resize(Shape shape);
    /// Sets a 2-D shape [rows, cols] without building a Shape (allocation-free when it fits).
    void resize2d(std::int64_t rows, std::int64_t cols);
    void setZero();

    const Shape& shape() const { return m_shape; }
    std::int64_t dim(std::size_t axis) const { return m_shape[axis]; }
    std::int64_t rows() const { return m_shape.empty() ? 1 : m_shape[0]; }
    std::int64_t cols() const { return m_shape.size() < 2 ? 1 : elementCount(m_shape) / rows(); }
    std::int64_t size() const { return m_size; }
    DType dtype() const { return m_dtype; }
    Device device() const { return m_device; }
    /// Bytes of the elements (size() * dtypeSize(dtype())).
    std::int64_t bytes() const { return m_size * static_cast<std::int64_t>(dtypeSize(m_dtype)); }
    /// Bytes the buffer holds (at least bytes(); resizing within it allocates nothing).
    std::size_t capacityBytes() const { return m_capacity; }

    /// The elements as their storage type T: float (float32, the default), std::uint16_t (float16
    /// and bfloat16 bits, see dtype.hpp's conversions) or std::int32_t (int32). Throws
    /// std::invalid_argument when T does not match the dtype, in every build.
    template <typename T = float>
    T* data() {
        tensor_detail::requireStorage<T>(m_dtype);
        return reinterpret_cast<T*>(m_data);
    }
    template <typename T = float>
    const T* data() const {
        tensor_detail::requireStorage<T>(m_dtype);
        return reinterpret_cast<const T*>(m_data);
    }
    template <typename T = float>
    std::span<T> values() {
        return {data<T>(), static_cast<std::size_t>(m_size)};
    }
    template <typename T = float>
    std::span<const T> values() const {
        return {data<T>(), static_cast<std::size_t>(m_size)};
    }
    /// One float32 element, dtype checked: for a few elements; loops index values() taken once.
    float& operator[](std::int64_t i) { return data()[i]; }
    float operator[](std::int64_t i) const { return data()[i]; }
    std::byte* rawData() { return m_data; }
    const std::byte* rawData() const { return m_data; }
    /// The typed view communicator calls take.
    BufferView buffer() { return BufferView(m_data, m_size, m_dtype); }

    /// All of it, without copying. Throws std::invalid_argument above ViewShape::kMaxRank axes.
    TensorView view() { return TensorView(m_data, ViewShape(m_shape), m_size, m_dtype, m_device); }
    ConstTensorView view() const { return ConstTensorView(m_data, ViewShape(m_shape), m_size, m_dtype, m_device); }
    /// A tensor passes wherever a read-only view is asked for (a layer's input, which may also be
    /// a data set's rows read in place).
    operator ConstTensorView() const { return view(); }
    /// Rows [begin, end) of the first axis, sharing this tensor's memory (see TensorView::slice).
    TensorView slice(std::int64_t begin, std::int64_t end) { return view().slice(begin, end); }
    ConstTensorView slice(std::int64_t begin, std::int64_t end) const { return view().slice(begin, end); }

private:
    /// Makes the buffer hold at least `bytes`, keeping its contents and zeroing the rest.
    void grow(std::int64_t bytes);

    Shape m_shape;
    std::int64_t m_size = 0;
    std::byte* m_data = nullptr;
    std::size_t m_capacity = 0;  ///< bytes
    DType m_dtype = DType::Float32;
    Device m_device;
};

}  // namespace distlab
