#pragma once
// Ranks in different processes or hosts talk through Gloo (TCP): this is how a process joins such a
// group. Gloo's types stay inside the engine; a rank sees only the Communicator.
#include <chrono>
#include <memory>
#include <string>

#include "distlab/comm/communicator.hpp"
#include "distlab/core/error.hpp"

namespace distlab {

class ClusterStoreClient;  // distlab/comm/cluster_store.hpp

/// Where the ranks of a Gloo group find each other.
struct GlooRendezvous {
    /// The chief's store (ClusterStoreClient), or nullptr to use a Redis server instead.
    ClusterStoreClient* chiefStore = nullptr;
    std::string redisHost;  ///< Gloo's RedisStore, when chiefStore is null
    int redisPort = 6379;
    /// Keys of this group start with it, so one store serves several groups and runs.
    std::string prefix = "distlab";
};

struct GlooGroupOptions {
    int rank = 0;
    int size = 1;
    /// The address this rank's TCP device listens on (loopback unless the user names one).
    std::string listenHost = "127.0.0.1";
    /// How long a collective, and the rendezvous itself, waits for a peer.
    std::chrono::milliseconds timeout{30000};
    /// Every all-reduce by Gloo's ring (a run's `communication: ring`). Otherwise (`auto`) the
    /// direct exchange where it moves the ring's bytes in fewer messages: always between 2 ranks,
    /// up to kExchangeBytes among more.
    bool alwaysRing = false;
    /// Point to point only (a parameter-server run): one Gloo context per pair of ranks, so a rank
    /// lost or silent past the timeout ends its own links only (engine/src/comm/gloo_links.hpp
    /// says why one context cannot). The communicator then sends and receives; its collectives
    /// throw std::logic_error.
    bool pointToPoint = false;
    /// pointToPoint: how long the other ranks wait for rank 0 (0: `timeout`). A parameter-server
    /// run's tasks wait longer for the chief than the chief waits for any of them, so that a chief
    /// held up by a link to a lost task (up to `timeout`) still reaches them with its verdict.
    std::chrono::milliseconds rankZeroTimeout{0};
};

/// Joins the group: every rank calls it with the same size and rendezvous. Returns this rank's
/// communicator once every rank has connected (a full mesh of TCP pairs), or an error naming what
/// failed within options.timeout (a peer that never came, an address that cannot be bound).
/// Every call of the communicator is done when it returns (Gloo's algorithms block). A peer lost
/// mid-call, or silent past the timeout, makes the call throw TrainingError naming the call.
Result<std::unique_ptr<Communicator>> connectGlooGroup(const GlooRendezvous& rendezvous, const GlooGroupOptions& options);

}  // namespace distlab
