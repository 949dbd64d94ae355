#pragma once
// `distlab-cli collectives --backend gloo`: the ranks are processes of this program joined in a
// Gloo group over loopback TCP, as PyTorch's ranks are. The command itself is rank 0: it serves
// the rendezvous store on an ephemeral port of 127.0.0.1, starts ranks 1..N-1 (rank_processes.hpp)
// with the hidden options below and a fresh token in DISTLAB_COLLECTIVES_TOKEN, joins, measures
// every size with them, and prints. A rank that fails ends the command (exit 1) and every other
// rank with it.
#include <string>

#include "collectives_sizes.hpp"
#include "distlab/core/error.hpp"

namespace distlab::cli {

/// Set only in a rank process started by rank 0 (the hidden options).
struct GlooRankRole {
    int rank = 0;          ///< 0: the command as the user started it
    int storePort = 0;     ///< rank 0's store, on 127.0.0.1
    long long parent = 0;  ///< rank 0's process id
};

/// Where the token travels: the environment, not the command line other users can read.
inline constexpr const char* kCollectivesTokenVariable = "DISTLAB_COLLECTIVES_TOKEN";

/// Runs this rank: joins, measures every size (rank 0 prints the rows). Returns the wrong elements
/// of every rank (rank 0, after every other rank ended in order) or the error, naming the rank.
Result<long long> measureGloo(const CollectivesOptions& options, const GlooRankRole& role);

}  // namespace distlab::cli
