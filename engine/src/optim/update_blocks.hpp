#pragma once
// How every optimizer walks the parameters in an update: one pass, split across the replica's
// OpenMP team with the shares following the threads' speeds (an elementwise update has the same
// bits for any split), and, when the caller asks for the gradient's norm, each block's Σ g² read
// just before the block is updated, so the gradient crosses the memory bus once for both.
#include <algorithm>
#include <cstdint>
#include <span>

#include "distlab/tensor/reductions.hpp"
#include "tensor/team_split.hpp"

namespace distlab {

/// update(begin, end) over [0, grads.size()); with blockSums (squareSumBlocks(grads.size())
/// values), blockSums[b] = blockSumOfSquares of block b of grads, each block summed just before
/// update runs over it (then in L1). Parts start on block boundaries, so no block is split.
template <typename Update>
void forEachUpdateBlock(std::uint64_t key, std::span<const float> grads, std::span<double> blockSums, Update&& update) {
    static_assert(kBalancedPartBlock % kSquareSumBlock == 0, "a part must not split a block of the norm");
    const float* g = grads.data();
    const std::size_t n = grads.size();
    forEachBalancedPart(key, n, [&](std::size_t begin, std::size_t end) {
        if (blockSums.empty()) return update(begin, end);
        for (std::size_t block = begin; block < end; block += kSquareSumBlock) {
            const std::size_t blockEnd = std::min(end, block + kSquareSumBlock);
            blockSums[block / kSquareSumBlock] = blockSumOfSquares(g + block, blockEnd - block);
            update(block, blockEnd);
        }
    });
}

}  // namespace distlab
