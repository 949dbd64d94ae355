#pragma once
// Gloo groups of ranks that are threads of the test, each with its own TCP pairs on loopback, met
// through Gloo's in-memory HashStore.
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/transport/tcp/device.h>

#include <chrono>
#include <memory>
#include <vector>

#include "collective_fixtures.hpp"
#include "comm/gloo_communicator.hpp"

namespace distlab::testing {

inline constexpr std::chrono::milliseconds kTimeout{5000};

/// `ranks` Gloo communicators connected through one HashStore (each built on its own thread,
/// since connectFullMesh waits for every peer); `alwaysRing` as GlooGroupOptions'.
inline std::vector<std::unique_ptr<comm_detail::GlooCommunicator>> connectGroup(int ranks, std::chrono::milliseconds timeout = kTimeout,
                                                                                bool alwaysRing = false) {
    gloo::rendezvous::HashStore store;
    std::vector<std::unique_ptr<comm_detail::GlooCommunicator>> group(static_cast<std::size_t>(ranks));
    onEveryRank(ranks, [&](int rank) {
        gloo::transport::tcp::attr attr;
        attr.hostname = "127.0.0.1";
        auto device = gloo::transport::tcp::CreateDevice(attr);
        auto context = std::make_shared<gloo::rendezvous::Context>(rank, ranks);
        context->setTimeout(timeout);
        context->connectFullMesh(store, device);
        group[static_cast<std::size_t>(rank)] = std::make_unique<comm_detail::GlooCommunicator>(std::move(context), timeout, alwaysRing);
    });
    return group;
}

}  // namespace distlab::testing
