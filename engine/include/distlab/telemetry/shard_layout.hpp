#pragma once
// What the app draws of a parameter server's variables: each shard's name, server and rows, from
// a run of its own (ParameterServerControls::placements) or streamed by a cluster's chief.
#include <cstdint>
#include <string>
#include <vector>

namespace distlab {

/// One shard of a variable on a parameter server, as the partitioner placed it.
struct ServerShard {
    std::string name;  ///< "dense_0/kernel/part_1"
    int server = 0;
    std::int64_t rows = 0;
};

/// A parameter-server run's shards, for the app's topology of the servers.
struct ShardLayout {
    std::vector<ServerShard> shards;
};

}  // namespace distlab
