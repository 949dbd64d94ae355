#pragma once
// The rendezvous store of a run across processes: a small key-value store served by the chief (as
// PyTorch's TCPStore is served by rank 0), through which the tasks exchange their Gloo addresses
// and by which the chief notices a task that is gone (its connection closed without a goodbye).
//
// Every connection first presents the run's identity: the per-run random token and the hash of the
// run config. A wrong token, another config or a task name already connected is refused with a
// message naming what differs, and the refused connection changes nothing. Messages are CBOR
// documents framed by a 4-byte big-endian length (docs/cluster.md, "Rendezvous store").
#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "distlab/core/error.hpp"

namespace distlab {

/// Who a connecting task is, and which run it belongs to.
struct ClusterIdentity {
    std::string token;       ///< the run's random token (makeClusterToken), the same in every task
    std::string configHash;  ///< hash of the run config; every task must have the chief's
    std::string task;        ///< "chief:0", "worker:1", "ps:0": unique among connected tasks
};

/// What one server keeps at most; a request over a limit is refused with a message saying which.
struct ClusterStoreLimits {
    std::size_t maxKeys = 10'000;
    std::size_t maxKeyBytes = 512;
    std::size_t maxValueBytes = 512UL * 1024;        ///< under the wire's 1 MiB frame limit
    std::size_t maxTotalBytes = 64UL * 1024 * 1024;  ///< keys and values together
    std::size_t maxConnections = 256;
    /// A connection that has begun a frame (or not yet said hello) must complete it within this.
    std::chrono::milliseconds frameTimeout{5000};
};

/// A fresh random token for one run: 32 bytes from the kernel's random source, as 64 hex digits.
std::string makeClusterToken();

/// The store's server: a thread of its own (one poll() loop over the listener and every
/// connection) from start() until destroyed.
class ClusterStoreServer {
public:
    /// Listens on host:port: exactly that address ("localhost" or "" is 127.0.0.1, the default,
    /// so nothing outside the machine can connect unless the user names an address); port 0 takes
    /// any free port (see port()). The error names the address and the cause
    /// ("127.0.0.1:12345 is in use").
    static Result<std::unique_ptr<ClusterStoreServer>> start(const std::string& host, int port, std::string token, std::string configHash,
                                                             ClusterStoreLimits limits = {});
    ~ClusterStoreServer();
    ClusterStoreServer(const ClusterStoreServer&) = delete;
    ClusterStoreServer& operator=(const ClusterStoreServer&) = delete;

    /// The port it listens on (the one chosen when start() was given 0).
    int port() const;
    /// The address it listens on, "127.0.0.1:12345".
    const std::string& address() const;
    /// Tasks whose connection ended without a goodbye, in the order they were lost. Any thread.
    std::vector<std::string> lostTasks() const;
    /// Tasks that have said hello (joined the rendezvous), in the order they came. Any thread.
    std::vector<std::string> joinedTasks() const;
    /// One line per refused connection or request: the reason and the peer's address; the last
    /// 100. Any thread.
    std::vector<std::string> refusals() const;

private:
    struct State;  // engine/src/comm/cluster_store_server_state.hpp
    explicit ClusterStoreServer(std::unique_ptr<State> state);
    std::unique_ptr<State> m_state;
};

/// One task's connection to the store. Thread-safe: calls are serialized by a mutex, so Gloo's
/// rendezvous and a watchdog can share one client (a call waits for the one in progress).
/// After the connection is lost, every call throws. A client destroyed without goodbye() is what
/// the chief reports as a lost task (as is a process that dies).
class ClusterStoreClient {
public:
    /// Connects to the chief's store, retrying every ~100 ms until `timeout` (the chief may start
    /// later), and presents `me`. The error is the chief's refusal ("refused by the chief at
    /// 127.0.0.1:12345: wrong token") or why it could not be reached within the timeout.
    static Result<std::unique_ptr<ClusterStoreClient>> connect(const std::string& host, int port, const ClusterIdentity& me,
                                                               std::chrono::milliseconds timeout);
    ~ClusterStoreClient();
    ClusterStoreClient(const ClusterStoreClient&) = delete;
    ClusterStoreClient& operator=(const ClusterStoreClient&) = delete;

    /// Stores `value` under `key` (replacing any value) and wakes whoever waits for it. Throws
    /// std::runtime_error when the chief refuses (a limit) or the connection is lost.
    void set(const std::string& key, std::span<const char> value);
    /// The value under `key`, waiting until some task sets it. Throws std::runtime_error naming
    /// the key and the timeout, or "lost the connection to the chief at ...".
    std::vector<char> get(const std::string& key, std::chrono::milliseconds timeout);
    /// Waits until every key is set; throws as get() does, naming the keys still missing.
    void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
    /// The chief's lostTasks().
    std::vector<std::string> lostTasks();
    /// Leaves in order: the chief does not count this task as lost. The client is closed after.
    void goodbye();

    /// "127.0.0.1:12345", for messages.
    const std::string& chiefAddress() const;

private:
    struct Connection;  // engine/src/comm/cluster_store_client.cpp
    explicit ClusterStoreClient(std::unique_ptr<Connection> connection);
    std::unique_ptr<Connection> m_connection;
};

}  // namespace distlab
