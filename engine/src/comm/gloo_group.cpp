// Joining a Gloo group: a TCP device on the rank's address, the rendezvous through the chief's
// store or a Redis server, a full mesh of pairs.
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/redis_store.h>
#include <gloo/transport/tcp/device.h>

#include "comm/gloo_communicator.hpp"
#include "comm/gloo_store.hpp"
#include "distlab/comm/gloo_group.hpp"

namespace distlab {

Result<std::unique_ptr<Communicator>> connectGlooGroup(const GlooRendezvous& rendezvous, const GlooGroupOptions& options) {
    if (options.size < 1 || options.rank < 0 || options.rank >= options.size)
        return Error{"Gloo group: rank " + std::to_string(options.rank) + " is not in [0, " + std::to_string(options.size) + ")"};
    try {
        gloo::transport::tcp::attr attr;
        attr.hostname = options.listenHost;
        std::shared_ptr<gloo::transport::Device> device = gloo::transport::tcp::CreateDevice(attr);
        auto context = std::make_shared<gloo::rendezvous::Context>(options.rank, options.size);
        context->setTimeout(options.timeout);
        std::unique_ptr<gloo::rendezvous::Store> base;
        if (rendezvous.chiefStore != nullptr)
            base = std::make_unique<GlooStore>(*rendezvous.chiefStore, options.timeout);
        else
            base = std::make_unique<gloo::rendezvous::RedisStore>(rendezvous.redisHost, rendezvous.redisPort);
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
