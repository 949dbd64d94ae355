#include "collectives_gloo.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <unistd.h>

#include "distlab/comm/cluster_store.hpp"
#include "distlab/comm/gloo_group.hpp"
#include "distlab/tensor/aligned_allocator.hpp"
#include "rank_processes.hpp"

namespace distlab::cli {

namespace {

// How long the rendezvous, each collective and the ranks' ending wait for a peer: bounded, so a
// rank that hangs ends the command instead of holding it.
constexpr std::chrono::milliseconds kTimeout{30000};

// The store's "config hash": a rank measuring another sweep would deadlock the group, so the
// store refuses it by naming the sweep.
std::string sweepOf(const CollectivesOptions& options) {
    return "sweep " + std::to_string(options.replicas) + "x" + std::to_string(options.minBytes) + ".." + std::to_string(options.maxBytes) +
           "/" + std::to_string(options.warmup) + "+" + std::to_string(options.iters) + "/" + opName(options.op) +
           (options.glooRing ? "/ring" : "/auto");
}

std::vector<std::string> rankArguments(const CollectivesOptions& options, int rank, int storePort) {
    return {"collectives",
            "--backend",
            "gloo",
            "--replicas",
            std::to_string(options.replicas),
            "--min-bytes",
            std::to_string(options.minBytes),
            "--max-bytes",
            std::to_string(options.maxBytes),
            "--iters",
            std::to_string(options.iters),
            "--warmup-iters",
            std::to_string(options.warmup),
            "--op",
            opName(options.op),
            "--algorithm",
            options.glooRing ? "ring" : "auto",
            "--rank-process",
            std::to_string(rank),
            "--store-port",
            std::to_string(storePort),
            "--parent-pid",
            std::to_string(::getpid())};
}

/// One rank's membership: its store connection and its communicator, kept together so that the
/// group stays connected until the rank is done reporting.
class GlooRank {
public:
    static Result<std::unique_ptr<GlooRank>> join(const CollectivesOptions& options, int rank, int storePort, const std::string& token) {
        auto self = std::make_unique<GlooRank>();
        auto client = ClusterStoreClient::connect("127.0.0.1", storePort,
                                                  ClusterIdentity{token, sweepOf(options), "rank:" + std::to_string(rank)}, kTimeout);
        if (!client) return client.error();
        self->m_client = std::move(*client);
        GlooRendezvous rendezvous;
        rendezvous.chiefStore = self->m_client.get();
        rendezvous.prefix = "collectives";
        GlooGroupOptions group;
        group.rank = rank;
        group.size = options.replicas;
        group.timeout = kTimeout;
        group.alwaysRing = options.glooRing;
        auto comm = connectGlooGroup(rendezvous, group);
        if (!comm) return comm.error();
        self->m_comm = std::move(*comm);
        return self;
    }

    /// Every size; rank 0 prints. The wrong elements of every rank, or the lost peer.
    Result<long long> measure(const CollectivesOptions& options) {
        AlignedVector<float> buffer(static_cast<std::size_t>(options.maxBytes / 4));
        try {
            return measureSizes(options, options.glooRing ? "ring" : "auto", m_comm->rank() == 0, [&](long long elements) {
                return measureAllReduceRank(*m_comm, std::span<float>(buffer.data(), static_cast<std::size_t>(elements)), options.op,
                                            options.warmup, options.iters);
            });
        } catch (const TrainingError& error) {
            return Error{error.what()};
        }
    }

    /// Leaves in order: the store does not count this rank as lost.
    void leave() { m_client->goodbye(); }

private:
    std::unique_ptr<ClusterStoreClient> m_client;
    std::unique_ptr<Communicator> m_comm;
};

Result<long long> rankZero(const CollectivesOptions& options) {
    const std::string token = makeClusterToken();
    auto server = ClusterStoreServer::start("127.0.0.1", 0, token, sweepOf(options));
    if (!server) return Error{"rank 0 serves the rendezvous: " + server.error().message};
    // A rank that fails dooms the group: the others would wait for it until the timeout. So the
    // command ends at once, the other ranks killed first (RankProcesses does), rank 0 with them.
    RankProcesses ranks([](const std::string& what) {
        std::fprintf(stderr, "error: collectives: %s; the other ranks were stopped\n", what.c_str());
        std::fflush(nullptr);
        std::_Exit(1);
    });
    for (int rank = 1; rank < options.replicas; ++rank) {
        const std::string label = "rank " + std::to_string(rank);
        if (Status started =
                ranks.start(label, rankArguments(options, rank, (*server)->port()), {std::string(kCollectivesTokenVariable) + "=" + token});
            !started)
            return started.error();
    }
    // Rank 0's own failure is most often a peer's death seen from here: the dead rank is named
    // first. The others are killed while this rank's connections are still open, so none of
    // them reports rank 0's exit as its own failure.
    const auto failed = [&](const std::string& message) {
        std::string dead = ranks.failures(std::chrono::milliseconds(500));
        ranks.killAll();
        return Error{(dead.empty() ? "" : dead + "; ") + "rank 0: " + message + "; the other ranks were stopped"};
    };
    auto self = GlooRank::join(options, 0, (*server)->port(), token);
    if (!self) return failed(self.error().message);
    Result<long long> wrong = (*self)->measure(options);
    if (!wrong) return failed(wrong.error().message);
    (*self)->leave();
    if (Status ended = ranks.finish(kTimeout); !ended) return ended.error();
    return wrong;
}

Result<long long> otherRank(const CollectivesOptions& options, const GlooRankRole& role) {
    exitWithParent(static_cast<pid_t>(role.parent));
    const char* token = std::getenv(kCollectivesTokenVariable);
    if (token == nullptr)
        return Error{std::string("--rank-process is for the ranks rank 0 starts: ") + kCollectivesTokenVariable + " is not set"};
    const std::string who = "rank " + std::to_string(role.rank) + ": ";
    auto self = GlooRank::join(options, role.rank, role.storePort, token);
    if (!self) return Error{who + self.error().message};
    Result<long long> wrong = (*self)->measure(options);
    if (!wrong) return Error{who + wrong.error().message};
    (*self)->leave();
    return wrong;
}

}  // namespace

Result<long long> measureGloo(const CollectivesOptions& options, const GlooRankRole& role) {
    return role.rank == 0 ? rankZero(options) : otherRank(options, role);
}

}  // namespace distlab::cli
