#pragma once
// A bounded single-producer single-consumer ring of trivially copyable records. The producer
// never blocks: when the ring is full the record is dropped and counted (the engine never waits
// for a reader). Capacity is a power of two.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace distlab {

template <typename T>
class SpscRing {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    /// capacity is rounded up to a power of two.
    explicit SpscRing(std::size_t capacity) {
        std::size_t size = 1;
        while (size < capacity) size <<= 1;
        m_mask = size - 1;
        m_slots = std::make_unique<T[]>(size);
    }

    /// Producer thread only. Returns false (and counts a drop) when full. Wait-free.
    bool tryPush(const T& record) {
        const std::size_t head = m_head.load(std::memory_order_relaxed);
        if (head - m_cachedTail > m_mask) {
            m_cachedTail = m_tail.load(std::memory_order_acquire);
            if (head - m_cachedTail > m_mask) {
                m_dropped.fetch_add(1, std::memory_order_relaxed);
                return false;
            }
        }
        m_slots[head & m_mask] = record;
        m_head.store(head + 1, std::memory_order_release);
        return true;
    }

    /// Producer thread only: whether the next tryPush will succeed (only the producer fills the
    /// ring, so room found here stays until it pushes).
    bool hasRoom() {
        const std::size_t head = m_head.load(std::memory_order_relaxed);
        if (head - m_cachedTail <= m_mask) return true;
        m_cachedTail = m_tail.load(std::memory_order_acquire);
        return head - m_cachedTail <= m_mask;
    }

    /// Consumer thread only: calls fn(record) for everything pushed so far; returns the count.
    template <typename Fn>
    std::size_t drain(Fn&& fn) {
        const std::size_t head = m_head.load(std::memory_order_acquire);
        std::size_t tail = m_tail.load(std::memory_order_relaxed);
        const std::size_t count = head - tail;
        for (; tail != head; ++tail) fn(m_slots[tail & m_mask]);
        m_tail.store(tail, std::memory_order_release);
        return count;
    }

    // Reading in place (consumer thread only), for a reader that joins several rings: look at the
    // records pushed so far without copying them, then hand the oldest ones back to the producer.

    /// Records pushed and not yet released.
    std::size_t readable() const { return m_head.load(std::memory_order_acquire) - m_tail.load(std::memory_order_relaxed); }
    /// The index-th unreleased record (index < readable()); valid until it is released.
    const T& peek(std::size_t index) const { return m_slots[(m_tail.load(std::memory_order_relaxed) + index) & m_mask]; }
    /// Frees the oldest `count` records (count <= readable()) for the producer.
    void release(std::size_t count) { m_tail.store(m_tail.load(std::memory_order_relaxed) + count, std::memory_order_release); }

    /// Records dropped because the consumer fell behind. Any thread.
    std::uint64_t dropped() const { return m_dropped.load(std::memory_order_relaxed); }
    std::size_t capacity() const { return m_mask + 1; }

private:
    std::unique_ptr<T[]> m_slots;
    std::size_t m_mask = 0;
    alignas(64) std::atomic<std::size_t> m_head{0};
    std::size_t m_cachedTail = 0;  // producer's view of the tail
    alignas(64) std::atomic<std::size_t> m_tail{0};
    alignas(64) std::atomic<std::uint64_t> m_dropped{0};
};

}  // namespace distlab
