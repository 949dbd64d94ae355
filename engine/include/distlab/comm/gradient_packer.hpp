#pragma once
// How a replica's flat gradient is cut into packs, each all-reduced on its own (docs/semantics.md §5.2):
// num_packs = k splits the concatenated gradients into k chunks of total / k elements, the last
// taking the remainder (10 elements, k = 3 -> [3, 3, 4]); byte bucketing instead walks the
// parameters in order and closes a pack as soon as it holds more than the byte limit, so packs
// follow parameter boundaries. Empty packs are left out.
#include <cstdint>
#include <span>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/model/parameter_store.hpp"

namespace distlab {

/// Elements [begin, end) of the flat gradient buffer.
struct PackRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end - begin; }
    bool operator==(const PackRange&) const = default;
};

class GradientPacker {
public:
    /// The packs the strategy asks for over `parameters`: bytesPerPack > 0 buckets by bytes,
    /// otherwise numPacks chunks. Any thread.
    GradientPacker(const StrategyConfig& strategy, std::span<const ParameterInfo> parameters);

    /// The packs in buffer order; they cover the buffer exactly. Valid while the packer lives.
    std::span<const PackRange> packs() const { return m_packs; }

    /// `numPacks` (>= 1; smaller counts as 1) chunks of total / numPacks elements, the last taking
    /// the remainder; empty chunks left out. Allocates; any thread.
    static std::vector<PackRange> splitEvenly(std::int64_t totalElements, std::int64_t numPacks);
    /// Parameters in order into packs: a pack closes once it holds more than bytesPerPack bytes
    /// (float32); bytesPerPack <= 0 gives one pack. Allocates; any thread.
    static std::vector<PackRange> bucketByBytes(std::span<const ParameterInfo> parameters, std::int64_t bytesPerPack);

private:
    std::vector<PackRange> m_packs;
};

}  // namespace distlab
