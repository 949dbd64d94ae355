#pragma once
// Every parameter of one model copy in one flat buffer (and its gradient in another), so a
// replica's whole gradient is one contiguous span for the all-reduce and the optimizer.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "distlab/tensor/aligned_allocator.hpp"
#include "distlab/tensor/tensor.hpp"

namespace distlab {

struct ParameterInfo {
    std::string name;  ///< e.g. "dense_1/kernel"
    Shape shape;
    std::int64_t offset = 0;  ///< into the flat buffers, in elements
    std::int64_t size = 0;    ///< elements
};

class ParameterStore {
public:
    /// Declares a parameter; returns its index. Only before finalize().
    int add(std::string name, Shape shape);
    /// Allocates the flat value and gradient buffers (zeroed).
    void finalize();

    std::int64_t totalSize() const { return m_total; }
    const std::vector<ParameterInfo>& infos() const { return m_infos; }
    /// Index of a parameter by name, or -1.
    int find(std::string_view name) const;

    std::span<float> values() { return m_values; }
    std::span<const float> values() const { return m_values; }
    std::span<float> grads() { return m_grads; }
    std::span<const float> grads() const { return m_grads; }
    float* value(int index) { return m_values.data() + m_infos[static_cast<std::size_t>(index)].offset; }
    const float* value(int index) const { return m_values.data() + m_infos[static_cast<std::size_t>(index)].offset; }
    float* grad(int index) { return m_grads.data() + m_infos[static_cast<std::size_t>(index)].offset; }
    const float* grad(int index) const { return m_grads.data() + m_infos[static_cast<std::size_t>(index)].offset; }
    /// Parameter `index`'s slice of the value and gradient buffers (after finalize()).
    std::span<float> valueSpan(int index) { return {value(index), sizeOf(index)}; }
    std::span<float> gradSpan(int index) { return {grad(index), sizeOf(index)}; }

private:
    std::size_t sizeOf(int index) const { return static_cast<std::size_t>(m_infos[static_cast<std::size_t>(index)].size); }
    std::vector<ParameterInfo> m_infos;
    AlignedVector<float> m_values;
    AlignedVector<float> m_grads;
    std::int64_t m_total = 0;
};

}  // namespace distlab
