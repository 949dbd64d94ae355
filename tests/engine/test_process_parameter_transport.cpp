// What a parameter-server run in processes moves (distribute/process_parameter_transport.hpp): each
// server's compact copy of its shards, a worker's read gathered from every server, its push to the
// chief, and the control messages. Over an in-process group here (threads as ranks); the e2e test
// tests/e2e/test_ps_cluster.cpp runs the same code over Gloo between processes.
#include <QtTest>

#include <thread>

#include "distlab/comm/in_process_group.hpp"
#include "distribute/process_parameter_transport.hpp"

using namespace distlab;

namespace {

/// Six parameters in three shards: [0, 3) and [5, 6) on server 0, [3, 5) on server 1.
std::vector<ShardPlacement> threeShards() {
    return {ShardPlacement{"a", 0, 0, 0, 3, 3}, ShardPlacement{"b", 1, 1, 3, 2, 2}, ShardPlacement{"c", 2, 0, 5, 1, 1}};
}

}  // namespace

class TestProcessParameterTransport : public QObject {
    Q_OBJECT

private slots:
    void eachServerHoldsItsShardsCompact() {
        const std::vector<float> full{10, 11, 12, 13, 14, 15};
        const ServerShards first(threeShards(), 0), second(threeShards(), 1);
        QCOMPARE(first.size(), 4);
        QCOMPARE(second.size(), 2);
        std::vector<float> compact(4);
        first.gather(full, compact);
        QCOMPARE(compact, (std::vector<float>{10, 11, 12, 15}));
        std::vector<float> back(6, 0.0f);
        first.scatter(compact, back);
        QCOMPARE(back, (std::vector<float>{10, 11, 12, 0, 0, 15}));  // only its own elements
        compact.resize(2);
        second.gather(full, compact);
        QCOMPARE(compact, (std::vector<float>{13, 14}));
    }

    void aReadGathersEveryServerAndAPushReachesTheChief() {
        // Ranks as a run in processes has them: the chief 0, worker 0 at 1, ps 0 and 1 at 2 and 3.
        const PsLayout layout{1, 2};
        QCOMPARE(layout.workerRank(0), 1);
        QCOMPARE(layout.serverRank(1), 3);
        InProcessGroup group(4, CrossDeviceOps::Ring);
        const std::vector<float> full{10, 11, 12, 13, 14, 15};
        std::vector<float> read(6, 0.0f);
        std::int64_t sentBytes[2] = {0, 0};
        std::vector<std::thread> servers;
        for (int server = 0; server < 2; ++server)
            servers.emplace_back([&, server] {
                ProcessParameterTransport transport(group.communicator(layout.serverRank(server)), layout, threeShards(), 6);
                std::vector<float> compact(static_cast<std::size_t>(transport.shards(server).size()));
                transport.shards(server).gather(full, compact);
                sentBytes[server] = transport.sendParameters(0, compact);
            });
        std::thread worker([&] {
            ProcessParameterTransport transport(group.communicator(layout.workerRank(0)), layout, threeShards(), 6);
            transport.receiveParameters(0, read);
            const std::vector<float> gradient{1, 2, 3, 4, 5, 6};
            transport.sendGradient(0, gradient);
        });
        ProcessParameterTransport chief(group.communicator(PsLayout::kChief), layout, threeShards(), 6);
        chief.takeGradient(0);
        worker.join();
        for (auto& server : servers) server.join();
        QCOMPARE(read, full);
        QCOMPARE(sentBytes[0], 4 * 4);  // each server sent its own elements only
        QCOMPARE(sentBytes[1], 2 * 4);
        const auto pushed = chief.receivedGradient(0);
        QCOMPARE(std::vector<float>(pushed.begin(), pushed.end()), (std::vector<float>{1, 2, 3, 4, 5, 6}));
    }

    void controlMessagesArriveWhole() {
        InProcessGroup group(2, CrossDeviceOps::Ring);
        PsHeader permit;
        permit.kind = PsMessage::Permit;
        permit.count = 3;
        permit.version = 41;
        permit.value = 0.125;
        const std::vector<std::int64_t> batch{7, (std::int64_t{1} << 40) + 3, 0};  // past float's exact integers
        std::thread chief([&] {
            sendHeader(group.communicator(0), permit, 1);
            sendIndices(group.communicator(0), batch, 1);
            sendText(group.communicator(0), "ps:1 is gone", 1);
        });
        const PsHeader got = receiveHeader(group.communicator(1), 0);
        std::vector<std::int64_t> indices;
        receiveIndices(group.communicator(1), indices, got.count, 0);
        const std::string text = receiveText(group.communicator(1), 12, 0);
        chief.join();
        QCOMPARE(got.kind, PsMessage::Permit);
        QCOMPARE(got.version, 41);
        QCOMPARE(got.value, 0.125);
        QCOMPARE(indices, batch);
        QCOMPARE(text, std::string("ps:1 is gone"));
    }
};

QTEST_GUILESS_MAIN(TestProcessParameterTransport)
#include "test_process_parameter_transport.moc"
