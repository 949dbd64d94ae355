#include "distlab/tensor/tensor.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace distlab {
namespace {

/// Throws std::invalid_argument unless `device` can hold a tensor's storage (a CPU device, index >= 0).
void checkStorageDevice(const Device& device) {
    if (device.kind == Device::Kind::Gpu) throw std::invalid_argument(device.toString() + ": tensors on GPUs need the CUDA backend");
    if (device.index < 0) throw std::invalid_argument(device.toString() + ": a device index is 0 or more");
}

void checkShape(const Shape& shape) {
    if (std::ranges::any_of(shape, [](std::int64_t d) { return d < 0; }))
        throw std::invalid_argument("Tensor: shape " + shapeToString(shape) + " has a negative dimension");
}

}  // namespace

std::string shapeToString(std::span<const std::int64_t> shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    return text + "]";
}

std::string shapeToString(const Shape& shape) { return shapeToString(std::span<const std::int64_t>(shape)); }

namespace tensor_detail {
void throwStorageMismatch(DType dtype, std::string_view requested) {
    const std::string_view stored = storesAs<float>(dtype) ? "float" : storesAs<std::uint16_t>(dtype) ? "std::uint16_t" : "std::int32_t";
    throw std::invalid_argument("Tensor::data<" + std::string(requested) + ">: " + std::string(dtypeName(dtype)) +
                                " elements are stored as " + std::string(stored) + ", not " + std::string(requested));
}
}  // namespace tensor_detail

Tensor::Tensor(Shape shape, std::vector<float> values) : m_device(currentCpuDevice()) {
    const std::int64_t count = elementCount(shape);
    if (static_cast<std::int64_t>(values.size()) != count)
        throw std::invalid_argument("Tensor: " + std::to_string(values.size()) + " values do not fill shape " + shapeToString(shape));
    resize(std::move(shape));
    if (!values.empty()) std::memcpy(m_data, values.data(), values.size() * sizeof(float));
}

Tensor::Tensor(Shape shape, DType dtype, Device device) : m_dtype(dtype), m_device(device) {
    checkStorageDevice(m_device);
    resize(std::move(shape));
}

Tensor::Tensor(const Tensor& other) : m_shape(other.m_shape), m_size(other.m_size), m_dtype(other.m_dtype), m_device(other.m_device) {
    const std::int64_t bytes = other.bytes();
    if (bytes > 0) {
        m_data =
            static_cast<std::byte*>(memory_detail::allocate(static_cast<std::size_t>(bytes), tensor_detail::kAlignment, m_device.index));
        m_capacity = static_cast<std::size_t>(bytes);
        std::memcpy(m_data, other.m_data, static_cast<std::size_t>(bytes));
    }
}

Tensor& Tensor::operator=(const Tensor& other) {
    if (this == &other) return *this;
    const std::int64_t bytes = other.bytes();
    if (m_device != other.m_device || m_capacity < static_cast<std::size_t>(std::max<std::int64_t>(bytes, 0))) {
        std::byte* data = nullptr;
        if (bytes > 0)
            data = static_cast<std::byte*>(
                memory_detail::allocate(static_cast<std::size_t>(bytes), tensor_detail::kAlignment, other.m_device.index));
        memory_detail::deallocate(m_data, tensor_detail::kAlignment);
        m_data = data;
        m_capacity = bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
    }
    if (bytes > 0) std::memcpy(m_data, other.m_data, static_cast<std::size_t>(bytes));
    m_shape = other.m_shape;
    m_size = other.m_size;
    m_dtype = other.m_dtype;
    m_device = other.m_device;
    return *this;
}

Tensor::Tensor(Tensor&& other) noexcept
    : m_shape(std::move(other.m_shape)),
      m_size(std::exchange(other.m_size, 0)),
      m_data(std::exchange(other.m_data, nullptr)),
      m_capacity(std::exchange(other.m_capacity, 0)),
      m_dtype(other.m_dtype),
      m_device(other.m_device) {
    other.m_shape.clear();
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
    if (this == &other) return *this;
    memory_detail::deallocate(m_data, tensor_detail::kAlignment);
    m_shape = std::move(other.m_shape);
    other.m_shape.clear();
    m_size = std::exchange(other.m_size, 0);
    m_data = std::exchange(other.m_data, nullptr);
    m_capacity = std::exchange(other.m_capacity, 0);
    m_dtype = other.m_dtype;
    m_device = other.m_device;
    return *this;
}

void Tensor::grow(std::int64_t bytes) {
    checkStorageDevice(m_device);
    auto* data =
        static_cast<std::byte*>(memory_detail::allocate(static_cast<std::size_t>(bytes), tensor_detail::kAlignment, m_device.index));
    if (m_capacity > 0) std::memcpy(data, m_data, m_capacity);
    std::memset(data + m_capacity, 0, static_cast<std::size_t>(bytes) - m_capacity);
    memory_detail::deallocate(m_data, tensor_detail::kAlignment);
    m_data = data;
    m_capacity = static_cast<std::size_t>(bytes);
}

void Tensor::resize(Shape shape) {
    checkShape(shape);
    const std::int64_t size = elementCount(shape);
    const std::int64_t bytes = size * static_cast<std::int64_t>(dtypeSize(m_dtype));
    if (bytes > static_cast<std::int64_t>(m_capacity)) grow(bytes);
    m_size = size;
    m_shape = std::move(shape);
}

void Tensor::resize2d(std::int64_t rows, std::int64_t cols) {
    const std::int64_t size = rows * cols;
    const std::int64_t bytes = size * static_cast<std::int64_t>(dtypeSize(m_dtype));
    if (bytes > static_cast<std::int64_t>(m_capacity)) grow(bytes);
    if (m_shape.size() != 2) m_shape.assign(2, 0);
    m_shape[0] = rows;
    m_shape[1] = cols;
    m_size = size;
}

void Tensor::setZero() {
    if (m_size > 0) std::memset(m_data, 0, static_cast<std::size_t>(bytes()));
}

}  // namespace distlab
