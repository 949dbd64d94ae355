// Joining a Gloo group: a TCP device on the rank's address, the rendezvous through the chief's
// store or a Redis server, then a full mesh of pairs in one context, or a context per pair.
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/redis_store.h>
#include <gloo/transport/tcp/device.h>

#include "comm/gloo_communicator.hpp"
#include "comm/gloo_links.hpp"
#include "comm/gloo_store.hpp"
#include "distlab/comm/gloo_group.hpp"

namespace distlab {
namespace {

/// GlooGroupOptions::pointToPoint's group: a context of two ranks for each pair this rank is in,
/// joined in the order of the pairs (lowest rank first, then the other), the same order in every
/// rank, so no two ranks wait for each other on different pairs.
std::unique_ptr<Communicator> connectLinks(gloo::rendezvous::Store& base, std::shared_ptr<gloo::transport::Device>& device,
                                           const std::string& prefix, const GlooGroupOptions& options) {
    std::vector<std::unique_ptr<comm_detail::GlooCommunicator>> links(static_cast<std::size_t>(options.size));
    for (int low = 0; low < options.size; ++low)
        for (int high = low + 1; high < options.size; ++high) {
            if (low != options.rank && high != options.rank) continue;
            auto context = std::make_shared<gloo::rendezvous::Context>(options.rank == low ? 0 : 1, 2);
            const bool waitsForRankZero = low == 0 && options.rank != 0 && options.rankZeroTimeout.count() > 0;
            const std::chrono::milliseconds timeout = waitsForRankZero ? options.rankZeroTimeout : options.timeout;
            context->setTimeout(timeout);
            gloo::rendezvous::PrefixStore store(prefix + "/link/" + std::to_string(low) + "-" + std::to_string(high), base);
            context->connectFullMesh(store, device);
            const int peer = options.rank == low ? high : low;
            links[static_cast<std::size_t>(peer)] = std::make_unique<comm_detail::GlooCommunicator>(
                std::move(context), timeout, false, comm_detail::GlooRankNames{{low, high}, options.size});
        }
    return std::make_unique<comm_detail::GlooLinks>(options.rank, std::move(links));
}

}  // namespace

Result<std::unique_ptr<Communicator>> connectGlooGroup(const GlooRendezvous& rendezvous, const GlooGroupOptions& options) {
    if (options.size < 1 || options.rank < 0 || options.rank >= options.size)
        return Error{"Gloo group: rank " + std::to_string(options.rank) + " is not in [0, " + std::to_string(options.size) + ")"};
    try {
        gloo::transport::tcp::attr attr;
        attr.hostname = options.listenHost;
        std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
        std::unique_ptr<gloo::rendezvous::Store> base;
        if (rendezvous.chiefStore != nullptr)
            base = std::make_unique<GlooStore>(*rendezvous.chiefStore, options.timeout);
        else
            base = std::make_unique<gloo::rendezvous::RedisStore>(rendezvous.redisHost, rendezvous.redisPort);
        if (options.pointToPoint) return connectLinks(*base, device, rendezvous.prefix, options);
        auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
        context->setTimeout(options.timeout);
        gloo::rendezvous::PrefixStore store(rendezvous.prefix, *base);
        context->connectFullMesh(store, device);
        return std::unique_ptr<Communicator>(
            std::make_unique<comm_detail::GlooCommunicator>(std::move(context), options.timeout, options.alwaysRing));
    } catch (const std::exception& error) {
        // gloo::Exception for a peer that never came or an address that cannot be bound;
        // std::runtime_error from the stores (a Redis server that cannot be reached).
        return Error{"Gloo group: rank " + std::to_string(options.rank) + " of " + std::to_string(options.size) +
                     " could not connect (listening on " + options.listenHost + "): " + error.what()};
    }
}

}  // namespace distlab
