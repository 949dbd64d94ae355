// The Gloo backend against exact expected buffers: every collective on 3 ranks (threads, each
// with its own TCP pairs on loopback, met through Gloo's in-memory HashStore), then the
// hierarchy of a multi-worker run (2 workers x 2 local replicas: in-process groups joined by
// Gloo), and what a rank sees when a peer is lost: in one context every link ends with it, in a
// group of point-to-point links (a parameter-server run's) only the links to that peer.
#include <QtTest>

#include <chrono>
#include <memory>
#include <thread>

#include "collective_fixtures.hpp"
#include "comm/gloo_communicator.hpp"
#include "gloo_fixtures.hpp"
#include "distlab/comm/cluster_store.hpp"
#include "distlab/comm/gloo_group.hpp"
#include "distlab/comm/hierarchical_communicator.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/core/error.hpp"

using namespace distlab;
using namespace distlab::testing;
using comm_detail::GlooCommunicator;

namespace {

/// `ranks` tasks joined as a parameter-server run joins them (connectGlooGroup with pointToPoint,
/// met through a rendezvous store the test serves), each on a thread of its own.
std::vector<std::unique_ptr<Communicator>> connectLinks(int ranks, std::chrono::milliseconds timeout) {
    const std::string token(64, 'a');
    auto server = ClusterStoreServer::start("127.0.0.1", 0, token, "links");
    if (!server) qFatal("%s", server.error().message.c_str());
    std::vector<std::unique_ptr<ClusterStoreClient>> clients(static_cast<std::size_t>(ranks));
    std::vector<std::unique_ptr<Communicator>> group(static_cast<std::size_t>(ranks));
    onEveryRank(ranks, [&](int rank) {
        auto client = ClusterStoreClient::connect("127.0.0.1", (*server)->port(),
                                                  ClusterIdentity{token, "links", "worker:" + std::to_string(rank)}, timeout);
        if (!client) qFatal("%s", client.error().message.c_str());
        clients[static_cast<std::size_t>(rank)] = std::move(*client);
        GlooRendezvous rendezvous;
        rendezvous.chiefStore = clients[static_cast<std::size_t>(rank)].get();
        GlooGroupOptions options;
        options.rank = rank;
        options.size = ranks;
        options.timeout = timeout;
        options.pointToPoint = true;
        auto joined = connectGlooGroup(rendezvous, options);
        if (!joined) qFatal("%s", joined.error().message.c_str());
        group[static_cast<std::size_t>(rank)] = std::move(*joined);
    });
    return group;  // the rendezvous is over: the store may go
}

/// Rank 0 sends {1, 2, 3} to rank 1 and rank 1 sends it back doubled; what rank 0 got.
std::vector<float> roundTrip(Communicator& zero, Communicator& one) {
    std::vector<float> back(3, 0.0f);
    onEveryRank(2, [&](int r) {
        if (r == 0) {
            std::vector<float> values{1.0f, 2.0f, 3.0f};
            zero.send(values, 1).wait();
            zero.recv(back, 1).wait();
        } else {
            std::vector<float> got(3, 0.0f);
            one.recv(got, 0).wait();
            for (float& value : got) value *= 2.0f;
            one.send(got, 0).wait();
        }
    });
    return back;
}

}  // namespace

class TestGlooCommunicator : public QObject {
    Q_OBJECT
private slots:
    void allReduceEveryOpWithCompanion() {
        const int ranks = 3;
        auto group = connectGroup(ranks);
        for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Min, ReduceOp::Max}) {
            // Up to 4 MiB the companion shares the buffer's ring; past it, it has a ring of its own.
            for (const std::int64_t size : {std::int64_t{1}, std::int64_t{7}, std::int64_t{300001}, std::int64_t{(4 << 20) / 4 + 1}}) {
                auto buffers = filled(ranks, size);
                std::vector<std::vector<float>> companions(ranks);
                for (int r = 0; r < ranks; ++r) companions[r] = {fillValue(r, 1000), fillValue(r, 1001)};
                std::vector<CollectiveTiming> timings(ranks);
                onEveryRank(ranks, [&](int r) {
                    timings[r] = group[r]->allReduce(buffers[r], AllReduceOptions{op, 0, companions[r]}).wait();
                });
                QVERIFY2(wrongElements(buffers, op) == 0, qPrintable(QString("%1, %2 values").arg(opName(op)).arg(size)));
                for (int r = 0; r < ranks; ++r) {
                    QCOMPARE(companions[r][0], expectedAt(ranks, 1000, op));
                    QCOMPARE(companions[r][1], expectedAt(ranks, 1001, op));
                    // Up to 64 KiB on 3 ranks the values and companion go by direct exchange, one
                    // copy to each peer; a ring moves 2 (n - 1) / n of what it reduces each way: the
                    // values and the companion together, or each in its own ring (the companion's
                    // own, tiny, again by exchange).
                    const std::int64_t exchanged = (size + 2) * 4 * (ranks - 1);
                    const std::int64_t joined = (size + 2) * 4 * 2 * (ranks - 1) / ranks;
                    const std::int64_t apart = size * 4 * 2 * (ranks - 1) / ranks + 2 * 4 * (ranks - 1);
                    const std::int64_t bytes = (size + 2) * 4;
                    QCOMPARE(timings[r].bytesSent, bytes <= 64 * 1024 ? exchanged : (size * 4 <= (4 << 20) ? joined : apart));
                    QVERIFY(timings[r].endNs >= timings[r].startNs);
                }
            }
        }
    }

    void twoRanksExchangeAnySizeInOneMessage() {
        // With 2 ranks every all-reduce goes by direct exchange: one copy of the buffer each way.
        auto group = connectGroup(2);
        for (const std::int64_t size : {std::int64_t{3}, std::int64_t{(8 << 20) / 4}}) {
            for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Max}) {
                auto buffers = filled(2, size);
                std::vector<CollectiveTiming> timings(2);
                onEveryRank(2, [&](int r) { timings[r] = group[r]->allReduce(buffers[r], op).wait(); });
                QCOMPARE(wrongElements(buffers, op), 0);
                QCOMPARE(timings[0].bytesSent, size * 4);
            }
        }
    }

    void alwaysRingTakesTheRingAtEverySize() {
        // communication: ring. On 3 ranks a buffer of 1,000 values would go by direct exchange
        // (2 copies of 4,000 bytes out); the ring sends 2 (n - 1) / n of it. On 2 ranks both move
        // the same bytes, so the exact sums are what is checked there.
        for (const int ranks : {2, 3}) {
            auto group = connectGroup(ranks, kTimeout, true);
            for (const std::int64_t size : {std::int64_t{1000}, std::int64_t{300001}}) {
                auto buffers = filled(ranks, size);
                std::vector<CollectiveTiming> timings(static_cast<std::size_t>(ranks));
                onEveryRank(ranks, [&](int r) { timings[r] = group[r]->allReduce(buffers[r], ReduceOp::Sum).wait(); });
                QCOMPARE(wrongElements(buffers, ReduceOp::Sum), 0);
                QCOMPARE(timings[0].bytesSent, size * 4 * 2 * (ranks - 1) / ranks);
            }
        }
    }

    void twoRanksBackToBackExchangesOfChangingSizes() {
        // The exchange receives into two registered blocks taken in turn, so a rank may send its
        // next values while its peer still sums the last: each rank runs its calls without waiting
        // for the other between them, the sizes growing and shrinking (a multi-pack step).
        auto group = connectGroup(2);
        const std::vector<std::int64_t> sizes{3, 300001, 5, 1000, (2 << 20) / 4, 7, 300001, 1};
        const int rounds = 6;
        std::vector<std::vector<std::vector<float>>> results(2);
        onEveryRank(2, [&](int r) {
            for (int round = 0; round < rounds; ++round)
                for (const std::int64_t size : sizes) {
                    std::vector<float> values(static_cast<std::size_t>(size));
                    for (std::int64_t i = 0; i < size; ++i) values[i] = fillValue(r, i + round);
                    group[r]->allReduce(values, ReduceOp::Sum).wait();
                    results[r].push_back(std::move(values));
                }
        });
        std::size_t call = 0;
        for (int round = 0; round < rounds; ++round)
            for (const std::int64_t size : sizes) {
                for (int r = 0; r < 2; ++r)
                    for (std::int64_t i = 0; i < size; i += 997)
                        QCOMPARE(results[r][call][i], fillValue(0, i + round) + fillValue(1, i + round));
                ++call;
            }
    }

    void broadcastReduceGatherScatter() {
        const int ranks = 3;
        auto group = connectGroup(ranks);
        const std::int64_t size = 1001;
        // broadcast from rank 2
        auto buffers = filled(ranks, size);
        onEveryRank(ranks, [&](int r) { group[r]->broadcast(buffers[r], 2).wait(); });
        for (int r = 0; r < ranks; ++r)
            for (std::int64_t i = 0; i < size; ++i) QCOMPARE(buffers[r][i], fillValue(2, i));
        // reduce to rank 1: the others keep their values
        buffers = filled(ranks, size);
        onEveryRank(ranks, [&](int r) { group[r]->reduce(buffers[r], 1, ReduceOp::Sum).wait(); });
        for (std::int64_t i = 0; i < size; ++i) {
            QCOMPARE(buffers[1][i], expectedAt(ranks, i, ReduceOp::Sum));
            QCOMPARE(buffers[0][i], fillValue(0, i));
            QCOMPARE(buffers[2][i], fillValue(2, i));
        }
        // all-gather: rank order
        buffers = filled(ranks, size);
        std::vector<std::vector<float>> gathered(ranks, std::vector<float>(size * ranks));
        onEveryRank(ranks, [&](int r) { group[r]->allGather(buffers[r], gathered[r]).wait(); });
        for (int r = 0; r < ranks; ++r)
            for (int from = 0; from < ranks; ++from)
                for (std::int64_t i = 0; i < size; ++i) QCOMPARE(gathered[r][from * size + i], fillValue(from, i));
        // reduce-scatter: block r of the sum
        auto inputs = filled(ranks, size * ranks);
        std::vector<std::vector<float>> blocks(ranks, std::vector<float>(size));
        onEveryRank(ranks, [&](int r) { group[r]->reduceScatter(inputs[r], blocks[r], ReduceOp::Mean).wait(); });
        for (int r = 0; r < ranks; ++r)
            for (std::int64_t i = 0; i < size; ++i) QCOMPARE(blocks[r][i], expectedAt(ranks, r * size + i, ReduceOp::Mean));
        onEveryRank(ranks, [&](int r) { group[r]->barrier().wait(); });
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group[0]->broadcast(buffers[0], 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group[0]->allGather(buffers[0], buffers[1]));
    }

    void sendAndReceiveAnyLength() {
        auto group = connectGroup(2);
        std::vector<float> message{1, 2, 3, 4, 5};
        std::vector<float> shorter(3, 0), longer(8, -1), empty;
        onEveryRank(2, [&](int r) {
            if (r == 0) {
                group[0]->send(message, 1).wait();
                group[0]->send(message, 1).wait();
                group[0]->send(empty, 1).wait();
            } else {
                const CollectiveTiming first = group[1]->recv(shorter, 0).wait();
                const CollectiveTiming second = group[1]->recv(longer, 0).wait();
                QCOMPARE(first.bytesReceived, 12);
                QCOMPARE(second.bytesReceived, 20);
                QCOMPARE(group[1]->recv(longer, 0).wait().bytesReceived, 0);
            }
        });
        QCOMPARE(shorter, (std::vector<float>{1, 2, 3}));
        QCOMPARE(longer, (std::vector<float>{1, 2, 3, 4, 5, -1, -1, -1}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group[0]->send(message, 0));
    }

    void hierarchyOfTwoWorkersEqualsOneGroupOfFour() {
        const int workers = 2, local = 2, ranks = workers * local;
        auto across = connectGroup(workers);
        std::vector<std::unique_ptr<InProcessGroup>> groups;
        for (int w = 0; w < workers; ++w) groups.push_back(std::make_unique<InProcessGroup>(local, CrossDeviceOps::Ring));
        std::vector<std::unique_ptr<HierarchicalCommunicator>> replicas;
        for (int w = 0; w < workers; ++w)
            for (int l = 0; l < local; ++l)
                replicas.push_back(std::make_unique<HierarchicalCommunicator>(groups[w]->communicator(l), *across[w]));
        for (int r = 0; r < ranks; ++r) {
            QCOMPARE(replicas[r]->rank(), r);
            QCOMPARE(replicas[r]->size(), ranks);
        }
        const std::int64_t size = 4099;
        for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max}) {
            auto buffers = filled(ranks, size);
            std::vector<std::vector<float>> companions(ranks);
            for (int r = 0; r < ranks; ++r) companions[r] = {fillValue(r, 7)};
            onEveryRank(ranks, [&](int r) { replicas[r]->allReduce(buffers[r], AllReduceOptions{op, 0, companions[r]}).wait(); });
            QCOMPARE(wrongElements(buffers, op), 0);
            for (int r = 0; r < ranks; ++r) QCOMPARE(companions[r][0], expectedAt(ranks, 7, op));
        }
        // broadcast from a replica that is not a lead, on the second worker
        auto buffers = filled(ranks, size);
        onEveryRank(ranks, [&](int r) { replicas[r]->broadcast(buffers[r], 3).wait(); });
        for (int r = 0; r < ranks; ++r) QCOMPARE(buffers[r][17], fillValue(3, 17));
        // all-gather in global rank order
        buffers = filled(ranks, 5);
        std::vector<std::vector<float>> gathered(ranks, std::vector<float>(5 * ranks));
        onEveryRank(ranks, [&](int r) { replicas[r]->allGather(buffers[r], gathered[r]).wait(); });
        for (int r = 0; r < ranks; ++r)
            for (int from = 0; from < ranks; ++from) QCOMPARE(gathered[r][from * 5 + 4], fillValue(from, 4));
        onEveryRank(ranks, [&](int r) { replicas[r]->barrier().wait(); });
        // point to point stays inside a worker
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, replicas[0]->send(buffers[0], 2));
    }

    void aLostPeerFailsTheCallWithTrainingError() {
        auto group = connectGroup(2, std::chrono::milliseconds(2000));
        group[1].reset();  // rank 1's process is gone: its sockets close
        std::vector<float> values(1000, 1.0f);
        const auto start = std::chrono::steady_clock::now();
        try {
            group[0]->allReduce(values, ReduceOp::Sum).wait();
            QFAIL("the all-reduce with a lost peer returned");
        } catch (const TrainingError& error) {
            QVERIFY2(QString(error.what()).contains("Gloo all-reduce failed on rank 0 of 2"), error.what());
        }
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(4));
    }

    void aPointToPointGroupLosesOnlyTheLinksOfASilentPeer() {
        // Three tasks as a parameter-server run joins them; rank 2 never answers. Rank 0's wait
        // for it times out, naming the group's ranks, and ranks 0 and 1 go on talking.
        const std::chrono::milliseconds timeout(500);
        auto links = connectLinks(3, timeout);
        QCOMPARE(links[0]->size(), 3);
        QCOMPARE(links[2]->rank(), 2);
        QCOMPARE(roundTrip(*links[0], *links[1]), (std::vector<float>{2.0f, 4.0f, 6.0f}));
        std::vector<float> got(3, 0.0f);
        try {
            links[0]->recv(got, 2).wait();
            QFAIL("the receive from a silent peer returned");
        } catch (const TrainingError& error) {
            QVERIFY2(QString(error.what()).contains("Gloo recv from rank 2 failed on rank 0 of 3"), error.what());
        }
        QCOMPARE(roundTrip(*links[0], *links[1]), (std::vector<float>{2.0f, 4.0f, 6.0f}));
        // Point to point only: a collective needs one context of every rank.
        QVERIFY_THROWS_EXCEPTION(std::logic_error, links[0]->barrier());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, links[0]->send(got, 0));

        // Why: in one context of every rank, Gloo ends every pair when one wait times out.
        auto mesh = connectGroup(3, timeout);
        QVERIFY_THROWS_EXCEPTION(TrainingError, mesh[0]->recv(got, 2).wait());
        try {
            mesh[0]->send(got, 1).wait();
            QFAIL("rank 0's link to rank 1 outlived the timeout on its link to rank 2");
        } catch (const TrainingError& error) {
            QVERIFY2(QString(error.what()).contains("Application timeout caused pair closure"), error.what());
        }
    }

    void aSilentPeerTimesOut() {
        auto group = connectGroup(2, std::chrono::milliseconds(500));
        std::vector<float> values(10, 1.0f);
        const auto start = std::chrono::steady_clock::now();
        QVERIFY_THROWS_EXCEPTION(TrainingError, group[0]->allReduce(values, ReduceOp::Sum).wait());  // rank 1 never calls it
        const auto waited = std::chrono::steady_clock::now() - start;
        QVERIFY(waited >= std::chrono::milliseconds(400));
        QVERIFY(waited < std::chrono::seconds(3));
    }
};

QTEST_APPLESS_MAIN(TestGlooCommunicator)
#include "test_gloo_communicator.moc"
