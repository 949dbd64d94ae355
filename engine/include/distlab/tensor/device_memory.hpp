#pragma once
// Memory accounted per device. Every aligned buffer (parameter stores, optimizer slots, a
// Tensor's storage) is allocated for a device and counts in that device's live and peak bytes
// until it is freed, whichever thread frees it. AlignedVector allocates for the device the
// allocating thread has set with a DeviceMemoryScope (the trainers set replica r's device while
// they build its copy); a Tensor allocates for its own device(), which defaults to that same
// thread device when the tensor is built. Logical CPU devices share the
// host's memory, so the numbers say what each replica holds, not where the bytes are.
#include <cstdint>

namespace distlab {

/// Devices cpu:0 .. cpu:(kMaxMemoryDevices - 1) are accounted one by one; higher indices share the last slot.
inline constexpr int kMaxMemoryDevices = 256;

struct MemoryStats {
    std::int64_t liveBytes = 0;    ///< allocated and not yet freed
    std::int64_t peakBytes = 0;    ///< the most live at once since the process started (or resetPeak)
    std::int64_t allocations = 0;  ///< buffers allocated so far
};

/// Device `device`'s figures. Any thread.
MemoryStats deviceMemory(int device);
/// Starts a new peak for `device` at its live bytes. Any thread.
void resetDeviceMemoryPeak(int device);

/// The device the calling thread's allocations count for now (0 outside any DeviceMemoryScope).
int currentMemoryDevice();

/// Sets the device the calling thread's allocations count for, until the scope ends (scopes
/// nest). Without one, allocations count for device 0.
class DeviceMemoryScope {
public:
    explicit DeviceMemoryScope(int device);
    ~DeviceMemoryScope();
    DeviceMemoryScope(const DeviceMemoryScope&) = delete;
    DeviceMemoryScope& operator=(const DeviceMemoryScope&) = delete;

private:
    int m_previous;
};

namespace memory_detail {
/// Allocates `bytes` aligned to `alignment` (a power of two, at most 4096) for the calling
/// thread's device; the block remembers its device and size. Throws std::bad_alloc.
void* allocate(std::size_t bytes, std::size_t alignment);
/// The same for device `device` (cpu:device), whatever the calling thread's scope says.
void* allocate(std::size_t bytes, std::size_t alignment, int device);
/// Frees a block from allocate(); counts it off the device it was allocated for.
void deallocate(void* pointer, std::size_t alignment) noexcept;
}  // namespace memory_detail

}  // namespace distlab
