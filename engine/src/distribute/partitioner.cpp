#include "distlab/distribute/partitioner.hpp"

#include <algorithm>

namespace distlab {

std::int64_t requestedShards(const PartitionerConfig& partitioner, std::int64_t rows, std::int64_t bytes) {
    switch (partitioner.kind) {
        case PartitionerConfig::Kind::None:
            return 1;
        case PartitionerConfig::Kind::Fixed:
            return std::max<std::int64_t>(1, partitioner.numShards);
        case PartitionerConfig::Kind::MinSize: {
            const std::int64_t bySize = (bytes + partitioner.minShardBytes - 1) / std::max<std::int64_t>(1, partitioner.minShardBytes);
            return std::max<std::int64_t>(1, std::min({rows, partitioner.maxShards, bySize}));
        }
        case PartitionerConfig::Kind::MaxSize: {
            // The fewest shards such that none holds more than maxShardBytes (whole rows), capped by maxShards.
            const std::int64_t rowBytes = rows > 0 ? std::max<std::int64_t>(1, bytes / rows) : 1;
            const std::int64_t rowsPerShard = std::max<std::int64_t>(1, partitioner.maxShardBytes / rowBytes);
            const std::int64_t shards = (rows + rowsPerShard - 1) / rowsPerShard;
            return std::max<std::int64_t>(1, std::min(shards, partitioner.maxShards));
        }
    }
    return 1;
}

std::vector<std::int64_t> shardRows(std::int64_t rows, std::int64_t requested) {
    const std::int64_t k = std::max<std::int64_t>(1, std::min(requested, rows));
    std::vector<std::int64_t> result(static_cast<std::size_t>(k), rows / k);
    for (std::int64_t i = 0; i < rows % k; ++i) ++result[static_cast<std::size_t>(i)];
    return result;
}

std::vector<ShardPlacement> placeShards(const ParameterStore& store, const PartitionerConfig& partitioner, int servers) {
    std::vector<ShardPlacement> placements;
    int nextServer = 0;
    for (std::size_t p = 0; p < store.infos().size(); ++p) {
        const ParameterInfo& info = store.infos()[p];
        const std::int64_t rows = info.shape.empty() ? 1 : info.shape[0];
        const std::int64_t rowSize = rows > 0 ? info.size / rows : 0;
        const auto parts = shardRows(rows, requestedShards(partitioner, rows, info.size * 4));
        std::int64_t offset = info.offset;
        for (std::size_t part = 0; part < parts.size(); ++part) {
            ShardPlacement shard;
            shard.name = parts.size() == 1 ? info.name : info.name + "/part_" + std::to_string(part);
            shard.parameter = static_cast<int>(p);
            shard.server = nextServer;
            shard.offset = offset;
            shard.rows = parts[part];
            shard.size = parts[part] * rowSize;
            offset += shard.size;
            placements.push_back(std::move(shard));
            nextServer = (nextServer + 1) % servers;
        }
    }
    return placements;
}

ShardLayout shardLayoutOf(const std::vector<ShardPlacement>& placements) {
    ShardLayout shards;
    for (const ShardPlacement& shard : placements) shards.shards.push_back(ServerShard{shard.name, shard.server, shard.rows});
    return shards;
}

}  // namespace distlab
