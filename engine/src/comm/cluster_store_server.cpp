// The rendezvous store's server: one thread, one poll() over an eventfd (which ends it), the
// listener and every connection. Sockets never block it: reads and writes are non-blocking, and a
// reply the socket does not take at once waits in the connection's outbox for POLLOUT. Pending
// gets and waits are answered when their keys are set (cluster_store_requests.cpp) or at their
// deadline, which, with the frame deadlines, is the poll's timeout: nothing is polled in a loop.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <exception>
#include <thread>

#include "comm/cluster_store_server_state.hpp"

namespace distlab {

namespace {

constexpr std::size_t kKeptRefusals = 100;
constexpr std::size_t kKeptLostTasks = 1000;  // keeps a lost_tasks reply far under a frame's 1 MiB
constexpr int kListenBacklog = 128;

/// Why bind failed, naming the address, in words a user can act on.
std::string bindError(const std::string& address, int error) {
    switch (error) {
        case EADDRINUSE:
            return address + " is in use (another run's chief or another program listens there; choose another port)";
        case EADDRNOTAVAIL:
            return address + " is not an address of this machine";
        case EACCES:
            return address + ": a port under 1024 needs privileges";
        default:
            return "cannot listen on " + address + ": " + cluster_net::errorText(error);
    }
}

void setNoDelay(int fd) {
    // Requests and replies are small and answered at once: without this, Nagle's algorithm and
    // delayed acknowledgements add tens of milliseconds to each exchange.
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

Result<std::unique_ptr<ClusterStoreServer>> ClusterStoreServer::start(const std::string& host, int port, std::string token,
                                                                      std::string configHash, ClusterStoreLimits limits) {
    if (token.empty()) return Error{"the rendezvous store needs a token (makeClusterToken)"};
    auto address = cluster_net::resolveAddress(host, port);
    if (!address) return address.error();
    // A stored value goes back in a reply frame, which must stay under the wire's limit.
    limits.maxValueBytes = std::min<std::size_t>(limits.maxValueBytes, cluster_wire::kMaxFrameBytes - 4096);

    auto state = std::make_unique<State>(std::move(token), std::move(configHash), limits);
    const int family = address->storage.ss_family;
    state->listener.reset(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!state->listener.valid()) return Error{"cannot listen on " + address->text + ": " + cluster_net::errorText(errno)};
    const int one = 1;
    // A restarted chief can listen again at once, while its previous connections linger in TIME_WAIT.
    ::setsockopt(state->listener.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    // "::1" means IPv6 loopback only, exactly the address given.
    if (family == AF_INET6) ::setsockopt(state->listener.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (::bind(state->listener.get(), reinterpret_cast<const sockaddr*>(&address->storage), address->length) != 0)
        return Error{bindError(address->text, errno)};
    if (::listen(state->listener.get(), kListenBacklog) != 0)
        return Error{"cannot listen on " + address->text + ": " + cluster_net::errorText(errno)};
    sockaddr_storage bound{};
    socklen_t boundLength = sizeof(bound);
    ::getsockname(state->listener.get(), reinterpret_cast<sockaddr*>(&bound), &boundLength);
    state->address = cluster_net::describeAddress(bound, boundLength);
    state->port = ntohs(family == AF_INET6 ? reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
    state->wake.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!state->wake.valid()) return Error{"cannot start the rendezvous store: eventfd: " + cluster_net::errorText(errno)};

    State* loop = state.get();
    state->thread = std::thread([loop] { loop->run(); });
    return std::unique_ptr<ClusterStoreServer>(new ClusterStoreServer(std::move(state)));
}

ClusterStoreServer::ClusterStoreServer(std::unique_ptr<State> state) : m_state(std::move(state)) {}

ClusterStoreServer::~ClusterStoreServer() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(m_state->wake.get(), &one, sizeof(one));
    m_state->thread.join();
}

int ClusterStoreServer::port() const { return m_state->port; }

const std::string& ClusterStoreServer::address() const { return m_state->address; }

std::vector<std::string> ClusterStoreServer::lostTasks() const {
    const std::lock_guard lock(m_state->logMutex);
    return {m_state->lost.begin(), m_state->lost.end()};
}

std::vector<std::string> ClusterStoreServer::joinedTasks() const {
    const std::lock_guard lock(m_state->logMutex);
    return m_state->joined;
}

std::vector<std::string> ClusterStoreServer::refusals() const {
    const std::lock_guard lock(m_state->logMutex);
    return {m_state->refusalLog.begin(), m_state->refusalLog.end()};
}

void ClusterStoreServer::State::run() {
    std::vector<pollfd> polled;
    for (;;) {
        polled.clear();
        polled.push_back({wake.get(), POLLIN, 0});
        polled.push_back({listener.get(), POLLIN, 0});
        for (const auto& peer : peers)
            polled.push_back({peer->fd.get(), static_cast<short>(POLLIN | (peer->outbox.empty() ? 0 : POLLOUT)), 0});
        const int ready = ::poll(polled.data(), polled.size(), pollTimeoutMs(StoreClock::now()));
        if (ready < 0 && errno != EINTR) {
            logLine("the store stopped serving: poll failed: " + cluster_net::errorText(errno));
            return;
        }
        if (ready > 0 && polled[0].revents != 0) return;
        // Peers accepted during this round are appended after these; the indices stay valid.
        const std::size_t polledPeers = peers.size();
        for (std::size_t i = 0; i < polledPeers && ready > 0; ++i) {
            Peer& peer = *peers[i];
            const short events = polled[i + 2].revents;
            try {
                if (!peer.closed && (events & POLLOUT) != 0) flush(peer);
                if (!peer.closed && (events & (POLLIN | POLLHUP | POLLERR)) != 0) readFrom(peer);
            } catch (const std::exception& e) {
                // One connection's failure (memory, a malformed field the checks missed) must not
                // end the thread that serves the others.
                if (!peer.closed) refuse(peer, std::string("internal error: ") + e.what());
            }
        }
        if (ready > 0 && (polled[1].revents & POLLIN) != 0) acceptAll();
        expireDeadlines(StoreClock::now());
        std::erase_if(peers, [](const std::unique_ptr<Peer>& peer) { return peer->closed; });
    }
}

void ClusterStoreServer::State::acceptAll() {
    for (;;) {
        sockaddr_storage from{};
        socklen_t fromLength = sizeof(from);
        cluster_net::UniqueFd fd(::accept4(listener.get(), reinterpret_cast<sockaddr*>(&from), &fromLength, SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!fd.valid()) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            logLine("accepting a connection on " + address + " failed: " + cluster_net::errorText(errno));
            // Out of descriptors, the listener stays readable: a pause keeps the loop from spinning.
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return;
        }
        auto peer = std::make_unique<Peer>();
        peer->address = cluster_net::describeAddress(from, fromLength);
        peer->fd = std::move(fd);
        peer->frameStarted = StoreClock::now();
        if (peers.size() >= limits.maxConnections) {
            logRefusal(*peer, "over the limit of " + std::to_string(limits.maxConnections) + " connections");
            continue;  // closed as it goes out of scope
        }
        setNoDelay(peer->fd.get());
        peers.push_back(std::move(peer));
    }
}

void ClusterStoreServer::State::readFrom(Peer& peer) {
    while (!peer.closed) {
        const ssize_t got = ::recv(peer.fd.get(), readBuffer.data(), readBuffer.size(), MSG_DONTWAIT);
        if (got > 0) {
            if (!peer.reader.midFrame() && peer.greeted) peer.frameStarted = StoreClock::now();
            peer.reader.append(readBuffer.data(), static_cast<std::size_t>(got));
            readFrames(peer);
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        // The peer is gone. A task that had said hello is lost (close() records it); anything else
        // ends as a refusal, which says how far it got.
        const std::string how = got == 0 ? "closed the connection" : "connection failed (" + cluster_net::errorText(errno) + ")";
        if (peer.reader.midFrame())
            logRefusal(peer, how + " in the middle of a message (a truncated frame: " + std::to_string(peer.reader.announcedLength()) +
                                 " bytes announced)");
        else if (!peer.greeted)
            logRefusal(peer, how + " before its hello");
        close(peer);
    }
}

void ClusterStoreServer::State::readFrames(Peer& peer) {
    cluster_wire::Bytes payload;
    while (!peer.closed) {
        const auto status = peer.reader.next(payload);
        if (status == cluster_wire::FrameReader::Status::needMore) return;
        if (status == cluster_wire::FrameReader::Status::tooLarge)
            return refuse(peer, "a frame of " + std::to_string(peer.reader.announcedLength()) + " bytes announced, over the limit of " +
                                    std::to_string(cluster_wire::kMaxFrameBytes));
        peer.frameStarted = StoreClock::now();  // the next frame, if any of it came, began now
        std::string why;
        const auto message = cluster_wire::decodeMessage(payload, why);
        if (!message) return refuse(peer, why);
        handle(peer, *message);
    }
}

void ClusterStoreServer::State::reply(Peer& peer, const cluster_wire::Message& message) {
    const cluster_wire::Bytes frame = cluster_wire::encodeFrame(message);
    peer.outbox.insert(peer.outbox.end(), frame.begin(), frame.end());
    flush(peer);
}

void ClusterStoreServer::State::flush(Peer& peer) {
    std::size_t sent = 0;
    while (sent < peer.outbox.size()) {
        // MSG_NOSIGNAL: a peer that is gone is an error here, never a SIGPIPE for the whole process.
        const ssize_t n = ::send(peer.fd.get(), peer.outbox.data() + sent, peer.outbox.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;  // POLLOUT brings it back
        } else {
            close(peer);
            return;
        }
    }
    peer.outbox.erase(peer.outbox.begin(), peer.outbox.begin() + static_cast<std::ptrdiff_t>(sent));
}

void ClusterStoreServer::State::refuse(Peer& peer, const std::string& reason) {
    logRefusal(peer, reason);
    // Best effort: one non-blocking send, since a peer that sends garbage need not read.
    const cluster_wire::Bytes frame = cluster_wire::encodeFrame({{"op", "error"}, {"message", reason}});
    [[maybe_unused]] const ssize_t sent = ::send(peer.fd.get(), frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(peer);
}

void ClusterStoreServer::State::close(Peer& peer) {
    if (peer.closed) return;
    if (peer.greeted && !peer.saidGoodbye) {
        const std::lock_guard lock(logMutex);
        lost.push_back(peer.task);
        if (lost.size() > kKeptLostTasks) lost.pop_front();
    }
    peer.closed = true;
    peer.pending.reset();
    peer.outbox.clear();
    peer.fd.reset();
}

void ClusterStoreServer::State::expireDeadlines(StoreClock::time_point now) {
    for (const auto& peer : peers) {
        if (peer->closed) continue;
        if ((!peer->greeted || peer->reader.midFrame()) && now >= peer->frameStarted + limits.frameTimeout) {
            refuse(*peer, std::string(peer->greeted ? "no complete message" : "no hello") + " within " +
                              std::to_string(limits.frameTimeout.count()) + " ms");
            continue;
        }
        if (peer->pending && now >= peer->pending->deadline) {
            cluster_wire::Message answer = {{"op", "timeout"}, {"missing", table.missing(peer->pending->keys)}};
            peer->pending.reset();
            reply(*peer, answer);
        }
    }
}

int ClusterStoreServer::State::pollTimeoutMs(StoreClock::time_point now) const {
    std::optional<StoreClock::time_point> next;
    const auto consider = [&next](StoreClock::time_point at) { next = next ? std::min(*next, at) : at; };
    for (const auto& peer : peers) {
        if (peer->closed) continue;
        if (!peer->greeted || peer->reader.midFrame()) consider(peer->frameStarted + limits.frameTimeout);
        if (peer->pending) consider(peer->pending->deadline);
    }
    if (!next) return -1;
    if (*next <= now) return 0;
    // Rounded up, so the loop wakes at or after the deadline, not just before it (and again).
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
    return static_cast<int>(std::min<std::int64_t>(wait, INT_MAX));
}

void ClusterStoreServer::State::logRefusal(const Peer& peer, const std::string& reason) {
    std::string line = peer.address;
    if (peer.greeted) line += " (" + peer.task + ")";
    line += ": " + reason;
    logLine(std::move(line));
}

void ClusterStoreServer::State::logLine(std::string line) {
    const std::lock_guard lock(logMutex);
    refusalLog.push_back(std::move(line));
    if (refusalLog.size() > kKeptRefusals) refusalLog.pop_front();
}

}  // namespace distlab
