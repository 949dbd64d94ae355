#pragma once
// The arithmetic of the in-process collectives: streaming adds and copies written so the compiler
// vectorises them (no aliasing between source and destination), in blocks that stay in L1 when
// several sources are summed into one destination.
#include <cstddef>

#include "distlab/comm/communicator.hpp"

namespace distlab::comm_detail {

/// destination[i] += source[i] for i < count. The ranges must not overlap.
void addInto(float* destination, const float* source, std::size_t count);
/// destination[i] = min(destination[i], source[i]) and max: the MIN and MAX reductions (a NaN
/// in the destination stays; one in the source is taken only by the comparison's rules).
void minInto(float* destination, const float* source, std::size_t count);
void maxInto(float* destination, const float* source, std::size_t count);
/// Combines source into destination by `op`: add for SUM and MEAN (MEAN divides once at the
/// end), min for MIN, max for MAX.
inline void combineInto(ReduceOp op, float* destination, const float* source, std::size_t count) {
    switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean:
            addInto(destination, source, count);
            break;
        case ReduceOp::Min:
            minInto(destination, source, count);
            break;
        case ReduceOp::Max:
            maxInto(destination, source, count);
            break;
    }
}
/// destination[i] = source[i] for i < count (memcpy).
void copyInto(float* destination, const float* source, std::size_t count);
/// destination[i] /= divisor for i < count (a true division, so MEAN of exact sums is exact-rounded).
void divideBy(float* destination, float divisor, std::size_t count);

/// Elements per block when several sources are added into one destination: 16 KB of floats, so
/// the destination block stays in L1 while every source streams past it.
inline constexpr std::size_t kSumBlock = 4096;

/// destination = destination op sourceAt(0) op sourceAt(1) ... (in that order, element by
/// element), block by block so the destination is read and written once.
template <typename SourceAt>
void combineManyInto(ReduceOp op, float* destination, int sources, SourceAt sourceAt, std::size_t count) {
    for (std::size_t begin = 0; begin < count; begin += kSumBlock) {
        const std::size_t block = count - begin < kSumBlock ? count - begin : kSumBlock;
        for (int s = 0; s < sources; ++s) combineInto(op, destination + begin, sourceAt(s) + begin, block);
    }
}

}  // namespace distlab::comm_detail
