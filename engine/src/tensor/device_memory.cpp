#include "distlab/tensor/device_memory.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <new>

namespace distlab {
namespace {

struct alignas(64) DeviceCounters {
    std::atomic<std::int64_t> live{0};
    std::atomic<std::int64_t> peak{0};
    std::atomic<std::int64_t> allocations{0};
};

std::array<DeviceCounters, kMaxMemoryDevices>& counters() {
    static std::array<DeviceCounters, kMaxMemoryDevices> all;
    return all;
}

thread_local int t_device = 0;

int slotOf(int device) { return std::clamp(device, 0, kMaxMemoryDevices - 1); }

// What a block remembers, in the `alignment` bytes in front of the caller's pointer.
struct BlockHeader {
    std::int64_t bytes;
    std::int32_t device;
};

}  // namespace

MemoryStats deviceMemory(int device) {
    const DeviceCounters& c = counters()[static_cast<std::size_t>(slotOf(device))];
    return {c.live.load(std::memory_order_relaxed), c.peak.load(std::memory_order_relaxed), c.allocations.load(std::memory_order_relaxed)};
}

void resetDeviceMemoryPeak(int device) {
    DeviceCounters& c = counters()[static_cast<std::size_t>(slotOf(device))];
    c.peak.store(c.live.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

int currentMemoryDevice() { return t_device; }

DeviceMemoryScope::DeviceMemoryScope(int device) : m_previous(t_device) { t_device = slotOf(device); }
DeviceMemoryScope::~DeviceMemoryScope() { t_device = m_previous; }

namespace memory_detail {

void* allocate(std::size_t bytes, std::size_t alignment) { return allocate(bytes, alignment, t_device); }

void* allocate(std::size_t bytes, std::size_t alignment, int device) {
    static_assert(sizeof(BlockHeader) <= 64);
    const int slot = slotOf(device);
    auto* block = static_cast<unsigned char*>(::operator new (bytes + alignment, std::align_val_t{alignment}));
    auto* header = reinterpret_cast<BlockHeader*>(block + alignment - sizeof(BlockHeader));
    header->bytes = static_cast<std::int64_t>(bytes);
    header->device = slot;
    DeviceCounters& c = counters()[static_cast<std::size_t>(slot)];
    const std::int64_t live = c.live.fetch_add(header->bytes, std::memory_order_relaxed) + header->bytes;
    for (std::int64_t peak = c.peak.load(std::memory_order_relaxed);
         live > peak && !c.peak.compare_exchange_weak(peak, live, std::memory_order_relaxed);) {
    }
    c.allocations.fetch_add(1, std::memory_order_relaxed);
    return block + alignment;
}

void deallocate(void* pointer, std::size_t alignment) noexcept {
    if (pointer == nullptr) return;
    auto* block = static_cast<unsigned char*>(pointer) - alignment;
    const auto* header = reinterpret_cast<const BlockHeader*>(block + alignment - sizeof(BlockHeader));
    counters()[static_cast<std::size_t>(header->device)].live.fetch_sub(header->bytes, std::memory_order_relaxed);
    ::operator delete (block, std::align_val_t{alignment});
}

}  // namespace memory_detail
}  // namespace distlab
