#pragma once
// Shared by the collectives tests: integer-valued buffers whose sums are exact, the exact result
// of every reduction, one thread per rank.
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/config/run_config.hpp"

namespace distlab::testing {

const CrossDeviceOps kAlgorithms[] = {CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::HierarchicalCopy, CrossDeviceOps::Ring,
                                      CrossDeviceOps::Tree};

// Rank r's element i: a small pseudo-random integer (so float sums are exact, and a chunk landing
// in the wrong place cannot go unnoticed).
inline float fillValue(int rank, std::int64_t i) {
    const auto mixed = static_cast<std::uint32_t>(i) * 2654435761u + static_cast<std::uint32_t>(rank) * 40503u + 17u;
    return static_cast<float>(static_cast<int>((mixed >> 9) % 61u) - 30);
}

inline std::vector<std::vector<float>> filled(int ranks, std::int64_t size) {
    std::vector<std::vector<float>> buffers(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        for (std::int64_t i = 0; i < size; ++i) buffers[static_cast<std::size_t>(r)].push_back(fillValue(r, i));
    return buffers;
}

// The exact result: an integer sum, divided once for MEAN (as every algorithm does); the least
// or greatest value for MIN and MAX.
inline float expectedAt(int ranks, std::int64_t i, ReduceOp op) {
    std::int64_t sum = 0;
    float least = fillValue(0, i), greatest = fillValue(0, i);
    for (int r = 0; r < ranks; ++r) {
        sum += static_cast<std::int64_t>(fillValue(r, i));
        least = std::min(least, fillValue(r, i));
        greatest = std::max(greatest, fillValue(r, i));
    }
    switch (op) {
        case ReduceOp::Sum:
            return static_cast<float>(sum);
        case ReduceOp::Mean:
            return static_cast<float>(sum) / static_cast<float>(ranks);
        case ReduceOp::Min:
            return least;
        case ReduceOp::Max:
            return greatest;
    }
    return 0.0f;
}

inline const char* opName(ReduceOp op) {
    switch (op) {
        case ReduceOp::Sum:
            return "sum";
        case ReduceOp::Mean:
            return "mean";
        case ReduceOp::Min:
            return "min";
        case ReduceOp::Max:
            return "max";
    }
    return "?";
}

// Runs task(rank) on one thread per rank (rank 0 on this one) and waits for all.
template <typename Task>
void onEveryRank(int ranks, Task task) {
    std::vector<std::thread> threads;
    for (int r = 1; r < ranks; ++r) threads.emplace_back(task, r);
    task(0);
    for (std::thread& thread : threads) thread.join();
}

inline std::int64_t wrongElements(const std::vector<std::vector<float>>& buffers, ReduceOp op) {
    const int ranks = static_cast<int>(buffers.size());
    std::int64_t wrong = 0;
    const std::size_t size = buffers.front().size();
    for (std::size_t i = 0; i < size; ++i) {
        const float expected = expectedAt(ranks, static_cast<std::int64_t>(i), op);
        for (const auto& buffer : buffers) wrong += buffer[i] != expected ? 1 : 0;
    }
    return wrong;
}

}  // namespace distlab::testing
