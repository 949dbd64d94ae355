#pragma once
// Sharding of parameter-server variables along their first axis and round-robin placement of the
// shards on the servers, exactly as docs/semantics.md §6.5 says.
#include <cstdint>
#include <string>
#include <vector>

#include "distlab/config/run_config.hpp"
#include "distlab/model/parameter_store.hpp"
#include "distlab/telemetry/shard_layout.hpp"

namespace distlab {

/// How many shards the partitioner asks for (p of docs/semantics.md §6.5), before capping by the row count.
std::int64_t requestedShards(const PartitionerConfig& partitioner, std::int64_t rows, std::int64_t bytes);
/// Rows of each of k = min(p, rows) shards; the first rows % k shards get one extra row.
std::vector<std::int64_t> shardRows(std::int64_t rows, std::int64_t requested);

/// One shard of one variable, placed on a server: a contiguous range of the flat parameter buffer.
struct ShardPlacement {
    std::string name;   ///< "dense_0/kernel/part_1" (the variable's name when unsharded)
    int parameter = 0;  ///< index in the ParameterStore
    int server = 0;
    std::int64_t offset = 0;  ///< into the flat buffers, in elements
    std::int64_t size = 0;    ///< elements
    std::int64_t rows = 0;
};

/// Shards every variable of `store` and places the shards on `servers` round-robin in creation order.
std::vector<ShardPlacement> placeShards(const ParameterStore& store, const PartitionerConfig& partitioner, int servers);

/// The placements as the app draws them (name, server, rows).
ShardLayout shardLayoutOf(const std::vector<ShardPlacement>& placements);

}  // namespace distlab
