#pragma once
// The ring all-reduce's schedule, shared by the CPU ring (in_process_algorithms.cpp) and the GPU
// ring over logical GPUs (engine/cuda/cuda_math.cu), so both split a buffer and add in the same
// order and give the same bits. Plain C++17 with no engine types: the CUDA sources include it.
#include <cstdint>

namespace distlab::comm_detail {

/// Elements per ring segment: a larger buffer is reduced segment by segment, each a complete
/// ring, so the chunk a rank has just written is still in cache when its successor reads it.
inline constexpr std::int64_t kRingSegmentElements = std::int64_t{256} * 1024;

/// The range of ring chunk `chunk` (0 <= chunk <= N) of `total` elements split among N ranks:
/// chunk c covers [ringChunkBegin(c), ringChunkBegin(c + 1)).
constexpr std::int64_t ringChunkBegin(std::int64_t total, int ranks, int chunk) {
    const std::int64_t base = total / ranks, extra = total % ranks;
    return chunk * base + (chunk < extra ? chunk : extra);
}

}  // namespace distlab::comm_detail
