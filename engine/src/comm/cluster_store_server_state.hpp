#pragma once
// The rendezvous store server's state, shared by its two halves (private to the engine):
// cluster_store_server.cpp (the poll loop: accepting, reading frames, sending, deadlines, closing)
// and cluster_store_requests.cpp (what each message does: hello, set, get, wait, ...). Everything
// but the logs belongs to the server's thread.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "comm/cluster_key_table.hpp"
#include "comm/cluster_store_socket.hpp"
#include "comm/cluster_store_wire.hpp"
#include "distlab/comm/cluster_store.hpp"

namespace distlab::cluster_detail {

using StoreClock = std::chrono::steady_clock;

/// A get or wait not answered yet: answered when its keys are all set, or at its deadline.
struct PendingRequest {
    bool isGet = false;
    std::vector<std::string> keys;
    StoreClock::time_point deadline;
};

/// One connection. A task sends one request at a time, so a connection holds at most one pending
/// request and one reply: what a connection costs is bounded.
struct StorePeer {
    cluster_net::UniqueFd fd;
    std::string address;  ///< "127.0.0.1:54321"
    std::string task;     ///< set by an accepted hello
    bool greeted = false;
    bool saidGoodbye = false;
    bool closed = false;  ///< removed from the loop's list at the end of its round
    cluster_wire::FrameReader reader;
    cluster_wire::Bytes outbox;
    /// When the frame being read began (before hello: when the connection was accepted).
    StoreClock::time_point frameStarted;
    std::optional<PendingRequest> pending;
};

}  // namespace distlab::cluster_detail

namespace distlab {

struct ClusterStoreServer::State {
    using Peer = cluster_detail::StorePeer;
    using StoreClock = cluster_detail::StoreClock;
    using PendingRequest = cluster_detail::PendingRequest;

    State(std::string runToken, std::string runConfigHash, const ClusterStoreLimits& storeLimits)
        : token(std::move(runToken)), configHash(std::move(runConfigHash)), limits(storeLimits), table(storeLimits) {}

    // cluster_store_server.cpp: the loop.
    void run();
    void acceptAll();
    void readFrom(Peer& peer);
    void readFrames(Peer& peer);
    void reply(Peer& peer, const cluster_wire::Message& message);
    void flush(Peer& peer);
    /// Logs the refusal, sends it as an error where the socket takes it at once, and closes.
    void refuse(Peer& peer, const std::string& reason);
    void close(Peer& peer);
    void expireDeadlines(StoreClock::time_point now);
    int pollTimeoutMs(StoreClock::time_point now) const;
    void logRefusal(const Peer& peer, const std::string& reason);
    /// Appends to the refusal log, keeping its last 100 lines.
    void logLine(std::string line);

    // cluster_store_requests.cpp: the messages.
    void handle(Peer& peer, const cluster_wire::Message& message);
    void hello(Peer& peer, const cluster_wire::Message& message);
    void set(Peer& peer, const cluster_wire::Message& message);
    void await(Peer& peer, const cluster_wire::Message& message, bool isGet);
    /// Answers the peer's pending request if its keys are all set now.
    void answerIfReady(Peer& peer);

    const std::string token;
    const std::string configHash;
    const ClusterStoreLimits limits;
    cluster_net::UniqueFd listener;
    cluster_net::UniqueFd wake;  ///< an eventfd: the destructor's write ends the loop
    int port = 0;
    std::string address;
    cluster_detail::ClusterKeyTable table;
    std::vector<std::unique_ptr<Peer>> peers;
    std::array<std::uint8_t, 64UL * 1024> readBuffer{};
    std::thread thread;

    mutable std::mutex logMutex;  ///< guards the two logs, which any thread may read
    std::deque<std::string> lost;
    std::deque<std::string> refusalLog;
    std::vector<std::string> joined;  ///< tasks whose hello was accepted, in order (bounded by the tasks' limit)
};

}  // namespace distlab
