#pragma once
// Counts heap allocations by replacing the global operator new/delete. Include it in exactly one
// source file of a test executable; set g_countAllocations around the code under test.
#include <atomic>
#include <cstdlib>
#include <new>

inline std::atomic<bool> g_countAllocations{false};
inline std::atomic<long> g_allocations{0};

void* operator new(std::size_t size) {
    if (g_countAllocations.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
