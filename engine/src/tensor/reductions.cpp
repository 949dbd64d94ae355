#include "distlab/tensor/reductions.hpp"

#include <algorithm>

#include "tensor/parallel_ranges.hpp"

namespace distlab {

double blockSumOfSquares(const float* v, std::size_t n) {
    // 32 partial sums the compiler keeps in four vector registers: one running sum would wait on
    // each add's latency, a few cycles for every gradient value of every step.
    constexpr std::size_t kLanes = 32;
    double partial[kLanes] = {};
    const std::size_t whole = n - n % kLanes;
    for (std::size_t i = 0; i < whole; i += kLanes)
        for (std::size_t lane = 0; lane < kLanes; ++lane)
            partial[lane] += static_cast<double>(v[i + lane]) * static_cast<double>(v[i + lane]);
    double sum = 0.0;
    for (std::size_t i = whole; i < n; ++i) sum += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    for (double lane : partial) sum += lane;
    return sum;
}

double sumOfBlockSums(std::span<const double> blockSums, double sum) {
    for (double block : blockSums) sum += block;
    return sum;
}

double sumOfSquares(std::span<const float> values) {
    // Bound by memory on large buffers: the blocks split across the caller's OpenMP team, a chunk
    // of them at a time so their sums fit on the stack, then added in block order.
    constexpr std::size_t kChunkBlocks = 2048;
    double blockSums[kChunkBlocks];
    const float* v = values.data();
    const std::size_t blocks = squareSumBlocks(values.size());
    double sum = 0.0;
    for (std::size_t first = 0; first < blocks; first += kChunkBlocks) {
        const std::size_t count = std::min(kChunkBlocks, blocks - first);
        forEachPart(
            count,
            [&](int, std::size_t begin, std::size_t end) {
                for (std::size_t b = begin; b < end; ++b) {
                    const std::size_t start = (first + b) * kSquareSumBlock;
                    blockSums[b] = blockSumOfSquares(v + start, std::min(kSquareSumBlock, values.size() - start));
                }
            },
            kSquareSumBlock);
        sum = sumOfBlockSums(std::span<const double>(blockSums, count), sum);
    }
    return sum;
}

}  // namespace distlab
