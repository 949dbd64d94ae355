#pragma once
// 64-byte aligned storage. Eigen's vectorised reductions peel a scalar head up to the first
// aligned address, so the summation order (and the last bits of a sum) depend on a buffer's
// alignment: aligning every buffer the same way keeps runs bit-reproducible. Every buffer counts
// in its device's memory figures (device_memory.hpp).
#include <cstddef>
#include <new>
#include <vector>

#include "distlab/tensor/device_memory.hpp"

namespace distlab {

template <typename T, std::size_t Alignment = 64>
struct AlignedAllocator {
    using value_type = T;
    template <typename U>
    struct rebind {
        using other = AlignedAllocator<U, Alignment>;
    };
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U, Alignment>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(memory_detail::allocate(n * sizeof(T), Alignment)); }
    void deallocate(T* p, std::size_t) noexcept { memory_detail::deallocate(p, Alignment); }
    template <typename U>
    bool operator==(const AlignedAllocator<U, Alignment>&) const {
        return true;
    }
};

template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

}  // namespace distlab
