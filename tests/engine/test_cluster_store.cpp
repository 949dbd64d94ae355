// The rendezvous store served by the chief (ClusterStoreServer / ClusterStoreClient): values pass
// between tasks and a get waits for its key; timeouts name what is missing; a wrong token, another
// run config or a task name already connected is refused with a message saying which, and changes
// nothing; garbage on the port (random bytes, truncated, stalled or oversized frames, bad or too
// deeply nested CBOR, a request before hello) is refused and logged while the server goes on
// serving; a connection closed without goodbye is a lost task; a port in use and a chief nobody
// serves fail within their timeout; and Gloo's own rendezvous runs over it (GlooStore). Every wait
// here is bounded, and the whole program takes a few seconds.
#include <QtTest>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "comm/cluster_store_wire.hpp"
#include "comm/gloo_store.hpp"
#include "distlab/comm/cluster_store.hpp"

using namespace distlab;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "0123456789abcdef-test-token";
const std::string kHash = "hash-A";
using TestClock = std::chrono::steady_clock;

std::unique_ptr<ClusterStoreServer> startServer(ClusterStoreLimits limits = {}) {
    auto server = ClusterStoreServer::start("localhost", 0, kToken, kHash, limits);
    if (!server) throw std::runtime_error(server.error().message);
    return std::move(server).value();
}

ClusterIdentity identity(const std::string& task, const std::string& token = kToken, const std::string& hash = kHash) {
    return {token, hash, task};
}

std::unique_ptr<ClusterStoreClient> connectTask(const ClusterStoreServer& server, const std::string& task) {
    auto client = ClusterStoreClient::connect("127.0.0.1", server.port(), identity(task), 2s);
    if (!client) throw std::runtime_error(client.error().message);
    return std::move(client).value();
}

std::span<const char> bytesOf(const std::string& text) { return {text.data(), text.size()}; }
std::string textOf(const std::vector<char>& bytes) { return {bytes.begin(), bytes.end()}; }

/// Polls `condition` every 10 ms for up to `limit`; true once it holds.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = 3s) {
    const auto deadline = TestClock::now() + limit;
    while (TestClock::now() < deadline) {
        if (condition()) return true;
        std::this_thread::sleep_for(10ms);
    }
    return condition();
}

/// A hand-made connection that can send anything at all.
class RawPeer {
public:
    explicit RawPeer(int port) : m_fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
            throw std::runtime_error("raw connect failed");
    }
    ~RawPeer() { closeNow(); }
    RawPeer(const RawPeer&) = delete;
    RawPeer& operator=(const RawPeer&) = delete;

    void send(const std::vector<std::uint8_t>& bytes) const {
        if (::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size()))
            throw std::runtime_error("raw send failed");
    }
    void sendMessage(const cluster_wire::Message& message) const { send(cluster_wire::encodeFrame(message)); }
    void closeNow() {
        if (m_fd >= 0) ::close(m_fd);
        m_fd = -1;
    }
    /// The next message the server sends within `limit`, if any.
    std::optional<cluster_wire::Message> receive(std::chrono::milliseconds limit = 2s) {
        const auto deadline = TestClock::now() + limit;
        std::vector<std::uint8_t> payload;
        while (TestClock::now() < deadline) {
            if (m_reader.next(payload) == cluster_wire::FrameReader::Status::frame) {
                std::string why;
                return cluster_wire::decodeMessage(payload, why);
            }
            pollfd polled{m_fd, POLLIN, 0};
            if (::poll(&polled, 1, 50) <= 0) continue;
            std::array<std::uint8_t, 4096> chunk{};
            const ssize_t got = ::recv(m_fd, chunk.data(), chunk.size(), 0);
            if (got <= 0) return std::nullopt;
            m_reader.append(chunk.data(), static_cast<std::size_t>(got));
        }
        return std::nullopt;
    }

private:
    int m_fd;
    cluster_wire::FrameReader m_reader;
};

std::vector<std::uint8_t> framed(const std::vector<std::uint8_t>& payload) {
    const auto length = static_cast<std::uint32_t>(payload.size());
    std::vector<std::uint8_t> frame{static_cast<std::uint8_t>(length >> 24), static_cast<std::uint8_t>(length >> 16),
                                    static_cast<std::uint8_t>(length >> 8), static_cast<std::uint8_t>(length)};
    frame.insert(frame.end(), payload.begin(), payload.end());
    return frame;
}

cluster_wire::Message helloMessage(const std::string& token, const std::string& task) {
    return {{"op", "hello"}, {"protocol", cluster_wire::kProtocolVersion}, {"token", token}, {"config_hash", kHash}, {"task", task}};
}

cluster_wire::Message setMessage(const std::string& key, const std::string& value) {
    return {{"op", "set"}, {"key", key}, {"value", cluster_wire::Message::binary(std::vector<std::uint8_t>(value.begin(), value.end()))}};
}

bool anyLineHas(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

QString joined(const std::vector<std::string>& lines) {
    QStringList list;
    for (const std::string& line : lines) list << QString::fromStdString(line);
    return list.join(" | ");
}

/// Runs `body` on a thread of its own, keeping what it throws for the test to report (an exception
/// leaving a std::thread would end the whole program).
std::thread onThread(std::string& failure, std::function<void()> body) {
    return std::thread([&failure, body = std::move(body)] {
        try {
            body();
        } catch (const std::exception& e) {
            failure = e.what();
        }
    });
}

/// A key set by one task is read by another: the server still serves well-behaved tasks.
void checkStillServes(const ClusterStoreServer& server, const std::string& key) {
    auto writer = connectTask(server, "worker:8");
    auto reader = connectTask(server, "worker:9");
    writer->set(key, bytesOf("still here"));
    QCOMPARE(textOf(reader->get(key, 1s)), std::string("still here"));
    writer->goodbye();
    reader->goodbye();
}

}  // namespace

class TestClusterStore : public QObject {
    Q_OBJECT
private slots:
    void listensOnLoopbackByDefault() {
        auto server = startServer();
        QVERIFY(server->port() > 0);
        QCOMPARE(server->address(), "127.0.0.1:" + std::to_string(server->port()));
        auto empty = ClusterStoreServer::start("", 0, kToken, kHash);
        QVERIFY(empty);
        QVERIFY(empty.value()->address().starts_with("127.0.0.1:"));
        QCOMPARE(makeClusterToken().size(), std::size_t(64));
        QVERIFY(makeClusterToken() != makeClusterToken());
    }

    void setAndGetBetweenTasksInThreads() {
        auto server = startServer();
        std::string seen, writerFailure, readerFailure;
        std::thread writer = onThread(writerFailure, [&] {
            auto client = connectTask(*server, "worker:0");
            client->set("address/0", bytesOf("10.0.0.1:4000"));
            client->goodbye();
        });
        std::thread reader = onThread(readerFailure, [&] {
            auto client = connectTask(*server, "worker:1");
            seen = textOf(client->get("address/0", 2s));
            client->goodbye();
        });
        writer.join();
        reader.join();
        QVERIFY2(writerFailure.empty(), writerFailure.c_str());
        QVERIFY2(readerFailure.empty(), readerFailure.c_str());
        QCOMPARE(seen, std::string("10.0.0.1:4000"));
        QVERIFY2(server->lostTasks().empty(), qPrintable(joined(server->lostTasks())));
    }

    void getWaitsUntilAnotherTaskSets() {
        auto server = startServer();
        auto writer = connectTask(*server, "worker:0");
        std::atomic<bool> done{false};
        std::string seen, failure;
        std::thread reader = onThread(failure, [&] {
            auto client = connectTask(*server, "worker:1");
            seen = textOf(client->get("late", 2s));
            done = true;
            client->goodbye();
        });
        std::this_thread::sleep_for(300ms);
        const bool doneEarly = done.load();
        writer->set("late", bytesOf("now"));
        reader.join();
        QVERIFY2(failure.empty(), failure.c_str());
        QVERIFY2(!doneEarly, "get returned before the key was set");
        QCOMPARE(seen, std::string("now"));
    }

    void getTimeoutNamesTheKey() {
        auto server = startServer();
        auto client = connectTask(*server, "worker:0");
        const auto start = TestClock::now();
        try {
            client->get("never/set", 200ms);
            QFAIL("get returned a key nobody set");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("'never/set'") != std::string::npos && message.find("200 ms") != std::string::npos, e.what());
        }
        const auto waited = TestClock::now() - start;
        QVERIFY(waited >= 190ms && waited < 3s);
        // The timeout is an answer, not a broken connection: the client goes on.
        client->set("k", bytesOf("v"));
        QCOMPARE(textOf(client->get("k", 1s)), std::string("v"));
        // wait() names the keys still missing, and only those.
        try {
            client->wait({"k", "absent"}, 100ms);
            QFAIL("wait returned with a key missing");
        } catch (const std::runtime_error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("'absent'") != std::string::npos && message.find("'k'") == std::string::npos, e.what());
        }
        client->wait({"k"}, 1s);
    }

    void wrongTokenIsRefusedAndChangesNothing() {
        auto server = startServer();
        auto refused = ClusterStoreClient::connect("localhost", server->port(), identity("worker:1", "not-the-token"), 2s);
        QVERIFY(!refused);
        const std::string expected = "refused by the chief at 127.0.0.1:" + std::to_string(server->port()) + ": wrong token";
        QCOMPARE(refused.error().message, expected);
        // A hand-made task sends its hello and, right behind it, a set: the set is never applied.
        RawPeer raw(server->port());
        auto both = cluster_wire::encodeFrame(helloMessage("not-the-token", "worker:2"));
        const auto set = cluster_wire::encodeFrame(setMessage("sneaky", "x"));
        both.insert(both.end(), set.begin(), set.end());
        raw.send(both);
        const auto answer = raw.receive();
        QVERIFY(answer && (*answer)["op"] == "error" && (*answer)["message"] == "wrong token");
        QVERIFY(eventually([&] { return server->refusals().size() == 2; }));
        QVERIFY2(anyLineHas(server->refusals(), "wrong token"), qPrintable(joined(server->refusals())));
        auto honest = connectTask(*server, "worker:3");
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, honest->get("sneaky", 100ms));
        QVERIFY(server->lostTasks().empty());
    }

    void otherRunConfigIsRefusedNamingBothHashes() {
        auto server = startServer();
        auto refused = ClusterStoreClient::connect("localhost", server->port(), identity("worker:1", kToken, "hash-B"), 2s);
        QVERIFY(!refused);
        QCOMPARE(refused.error().message, "refused by the chief at " + server->address() +
                                              ": run config differs from the chief's: chief has hash hash-A, worker:1 has hash-B");
    }

    void aTaskNameAlreadyConnectedIsRefused() {
        auto server = startServer();
        auto first = connectTask(*server, "worker:1");
        auto second = ClusterStoreClient::connect("localhost", server->port(), identity("worker:1"), 2s);
        QVERIFY(!second);
        QVERIFY2(second.error().message.find("task worker:1 is already connected") != std::string::npos,
                 qPrintable(QString::fromStdString(second.error().message)));
        // The refusal did not disturb the first, and once it has left the name is free again.
        first->set("k", bytesOf("v"));
        first->goodbye();
        QVERIFY(eventually(
            [&] { return static_cast<bool>(ClusterStoreClient::connect("localhost", server->port(), identity("worker:1"), 2s)); }));
    }

    void garbageIsRefusedAndLogged_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("closeAfter");
        QTest::addColumn<QString>("logged");
        QTest::addColumn<QString>("answered");  // the error sent back, where the peer is still there to read it

        std::mt19937 random(42);
        QByteArray noise;
        for (int i = 0; i < 300; ++i) noise.append(static_cast<char>(random() & 0xFF));
        const auto asBytes = [](const std::vector<std::uint8_t>& bytes) {
            return QByteArray(reinterpret_cast<const char*>(bytes.data()), static_cast<qsizetype>(bytes.size()));
        };
        const auto cbor = [&](const cluster_wire::Message& message) { return asBytes(cluster_wire::encodeFrame(message)); };

        QTest::newRow("random bytes") << noise << true << "127.0.0.1:"
                                      << "";
        QTest::newRow("truncated frame") << cbor(helloMessage(kToken, "worker:1")).left(20) << true << "truncated frame"
                                         << "";
        QTest::newRow("stalled frame") << cbor(helloMessage(kToken, "worker:1")).left(20) << false << "no hello within 300 ms"
                                       << "no hello within 300 ms";
        QTest::newRow("huge length") << asBytes({0xFF, 0xFF, 0xFF, 0xF0}) << false << "4294967280 bytes announced, over the limit"
                                     << "over the limit of 1048576";
        QTest::newRow("bad CBOR") << asBytes(framed({0xFF, 0x12, 0x34})) << false << "not a CBOR message"
                                  << "not a CBOR message";
        QTest::newRow("trailing bytes") << asBytes(framed({0xA0, 0x00})) << false << "not a CBOR message"
                                        << "not a CBOR message";
        // An array announcing 2^63 elements: the DOM builder threw out of the decoder, and the
        // server answered "internal error" (fuzz_cluster_wire found it).
        QTest::newRow("huge array") << asBytes(framed({0xA1, 0x62, 'o', 'p', 0x9B, 0x80, 0, 0, 0, 0, 0, 0, 0})) << false
                                    << "not a CBOR message"
                                    << "not a CBOR message";
        QTest::newRow("CBOR but no map") << asBytes(framed({0x18, 0x2A})) << false << "not a map with a string 'op'"
                                         << "not a map";
        std::vector<std::uint8_t> nested(100'000, 0x81);  // [[[[...]]]]: a decoder that recursed would overflow its stack
        nested.push_back(0x00);
        QTest::newRow("deeply nested") << asBytes(framed(nested)) << false << "nests deeper than 4 levels"
                                       << "nests deeper";
        QTest::newRow("request before hello") << cbor(setMessage("before-hello", "x")) << false
                                              << "the first message must be hello, not 'set'"
                                              << "must be hello";
        QTest::newRow("old protocol") << cbor(
                                             {{"op", "hello"}, {"protocol", 0}, {"token", kToken}, {"config_hash", kHash}, {"task", "w:1"}})
                                      << false << "another protocol"
                                      << "another protocol";
    }

    void garbageIsRefusedAndLogged() {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, closeAfter);
        QFETCH(QString, logged);
        QFETCH(QString, answered);
        ClusterStoreLimits limits;
        limits.frameTimeout = 300ms;
        auto server = startServer(limits);
        auto bystander = connectTask(*server, "worker:0");  // connected throughout: must not notice
        RawPeer raw(server->port());
        raw.send(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
        if (closeAfter) raw.closeNow();
        if (!answered.isEmpty()) {
            const auto answer = raw.receive(3s);
            QVERIFY2(answer.has_value(), "no error sent back");
            QCOMPARE(QString::fromStdString((*answer)["op"].get<std::string>()), QString("error"));
            QVERIFY2(QString::fromStdString((*answer)["message"].get<std::string>()).contains(answered),
                     qPrintable(QString::fromStdString(answer->dump())));
        }
        QVERIFY2(eventually([&] { return anyLineHas(server->refusals(), logged.toStdString()); }), qPrintable(joined(server->refusals())));
        QVERIFY2(server->refusals().front().starts_with("127.0.0.1:"), qPrintable(joined(server->refusals())));
        checkStillServes(*server, "after/" + QString(QTest::currentDataTag()).toStdString());
        QCOMPARE(textOf(bystander->get("after/" + QString(QTest::currentDataTag()).toStdString(), 1s)), std::string("still here"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, bystander->get("before-hello", 50ms));  // a refused set changed nothing
        QVERIFY2(server->lostTasks().empty(), qPrintable(joined(server->lostTasks())));
    }

    void limitsAreRefusedWithAMessage() {
        ClusterStoreLimits limits;
        limits.maxKeys = 2;
        limits.maxValueBytes = 16;
        auto server = startServer(limits);
        auto client = connectTask(*server, "worker:0");
        try {
            client->set("big", bytesOf(std::string(17, 'x')));
            QFAIL("a value over the limit was stored");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("17 bytes, over the limit of 16") != std::string::npos, e.what());
        }
        client->set("a", bytesOf("1"));
        client->set("b", bytesOf("2"));
        client->set("a", bytesOf("3"));  // replacing is not a new key
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, client->set("c", bytesOf("4")));
        // Over a frame's 1 MiB the client refuses it itself, and sends nothing.
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, client->set("huge", bytesOf(std::string(2 << 20, 'x'))));
        QCOMPARE(textOf(client->get("a", 1s)), std::string("3"));  // still connected
        QVERIFY(anyLineHas(server->refusals(), "(worker:0): set refused: the store holds its limit of 2 keys"));
    }

    void aConnectionClosedWithoutGoodbyeIsALostTask() {
        auto server = startServer();
        auto watcher = connectTask(*server, "chief:0");
        connectTask(*server, "worker:1")->goodbye();
        connectTask(*server, "worker:2").reset();  // gone without a word, as a crashed process
        connectTask(*server, "worker:3")->goodbye();
        QVERIFY(eventually([&] { return !server->lostTasks().empty(); }));
        std::this_thread::sleep_for(50ms);
        QCOMPARE(server->lostTasks(), std::vector<std::string>{"worker:2"});
        QCOMPARE(watcher->lostTasks(), std::vector<std::string>{"worker:2"});
        watcher->goodbye();
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, watcher->get("k", 10ms));  // a client that left is closed
        std::this_thread::sleep_for(50ms);
        QCOMPARE(server->lostTasks(), std::vector<std::string>{"worker:2"});
    }

    void aPortInUseIsNamed() {
        auto server = startServer();
        auto second = ClusterStoreServer::start("127.0.0.1", server->port(), kToken, kHash);
        QVERIFY(!second);
        QVERIFY2(second.error().message.starts_with("127.0.0.1:" + std::to_string(server->port()) + " is in use"),
                 qPrintable(QString::fromStdString(second.error().message)));
    }

    void aChiefNobodyServesFailsWithinTheTimeout() {
        const int port = startServer()->port();  // free again once the server is gone
        const auto start = TestClock::now();
        auto client = ClusterStoreClient::connect("localhost", port, identity("worker:1"), 400ms);
        const auto waited = TestClock::now() - start;
        QVERIFY(!client);
        QVERIFY2(client.error().message.starts_with("could not reach the chief's rendezvous store at 127.0.0.1:" + std::to_string(port) +
                                                    " within 400 ms: Connection refused"),
                 qPrintable(QString::fromStdString(client.error().message)));
        QVERIFY(waited >= 250ms && waited < 2s);
    }

    void aTaskMayStartBeforeTheChief() {
        const int port = startServer()->port();
        std::optional<Result<std::unique_ptr<ClusterStoreClient>>> client;
        std::thread early([&] { client.emplace(ClusterStoreClient::connect("localhost", port, identity("worker:1"), 5s)); });
        std::this_thread::sleep_for(300ms);
        auto server = ClusterStoreServer::start("localhost", port, kToken, kHash);
        early.join();
        QVERIFY2(server, server ? "" : server.error().message.c_str());
        QVERIFY2(client->ok(), client->ok() ? "" : client->error().message.c_str());
        client->value()->goodbye();
    }

    void glooRendezvousAndAllReduceOverTheStore() {
        auto server = startServer();
        constexpr int kRanks = 2;
        std::vector<std::vector<float>> values{{1.0F, 2.0F, 3.0F, 4.0F}, {10.0F, 20.0F, 30.0F, 40.0F}};
        std::vector<std::string> failures(kRanks);
        std::vector<std::thread> ranks;
        for (int rank = 0; rank < kRanks; ++rank) {
            ranks.emplace_back([&, rank] {
                try {
                    auto client = connectTask(*server, "worker:" + std::to_string(rank));
                    GlooStore store(*client, 10s);
                    gloo::transport::tcp::attr attr;
                    attr.hostname = "127.0.0.1";
                    auto device = gloo::transport::tcp::CreateDevice(attr);
                    auto context = std::make_shared<gloo::rendezvous::Context>(rank, kRanks);
                    context->setTimeout(10s);
                    context->connectFullMesh(store, device);
                    gloo::AllreduceOptions options(context);
                    auto& mine = values[static_cast<std::size_t>(rank)];
                    options.setOutput(mine.data(), mine.size());
                    options.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
                    gloo::allreduce(options);
                    client->goodbye();
                } catch (const std::exception& e) {
                    failures[static_cast<std::size_t>(rank)] = e.what();
                }
            });
        }
        for (std::thread& rank : ranks) rank.join();
        for (const std::string& failure : failures) QVERIFY2(failure.empty(), failure.c_str());
        const std::vector<float> sum{11.0F, 22.0F, 33.0F, 44.0F};
        QCOMPARE(values[0], sum);
        QCOMPARE(values[1], sum);
        QVERIFY(server->lostTasks().empty());
    }
};

QTEST_APPLESS_MAIN(TestClusterStore)
#include "test_cluster_store.moc"
