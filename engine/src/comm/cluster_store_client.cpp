// A task's connection to the rendezvous store: one request, then its answer, under the
// connection's mutex. Every wait is bounded: the socket is non-blocking and each read or write
// polls with what is left of its deadline. An answer that does not come in time leaves the stream
// out of step, so the connection counts as lost from then on and every later call throws.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "comm/cluster_store_socket.hpp"
#include "comm/cluster_store_wire.hpp"
#include "distlab/comm/cluster_store.hpp"

namespace distlab {

namespace {

using ClientClock = std::chrono::steady_clock;
using cluster_wire::Message;

constexpr auto kRetryInterval = std::chrono::milliseconds(100);
/// How much longer than a get's or wait's own timeout the answer may take to arrive: the chief
/// answers at the deadline itself, and a busy machine may take a while to deliver it.
constexpr auto kAnswerSlack = std::chrono::seconds(5);
/// For the requests the chief answers at once (set, lost_tasks, goodbye).
constexpr auto kPromptAnswer = std::chrono::seconds(10);
/// The least time a hello's answer is given, however little of connect()'s timeout is left.
constexpr auto kLeastHelloTime = std::chrono::milliseconds(500);

std::string quotedList(const std::vector<std::string>& keys) {
    std::string text;
    for (const std::string& key : keys) text += (text.empty() ? "'" : ", '") + key + "'";
    return text;
}

}  // namespace

struct ClusterStoreClient::Connection {
    std::mutex mutex;
    cluster_net::UniqueFd fd;
    std::string chief;  ///< "127.0.0.1:12345"
    cluster_wire::FrameReader reader;
    std::string brokenReason;  ///< set once the connection is unusable

    /// Sends `request` and returns the answer, which must come by `deadline`. Throws
    /// std::runtime_error, and marks the connection broken, when either fails. Mutex held.
    Message exchange(const Message& request, ClientClock::time_point deadline) {
        if (!brokenReason.empty()) throw std::runtime_error(brokenReason);
        cluster_wire::Bytes frame;
        try {
            frame = cluster_wire::encodeFrame(request);
        } catch (const std::length_error& e) {
            throw std::runtime_error(e.what());  // nothing was sent: the connection goes on
        }
        try {
            send(frame, deadline);
            return receive(deadline);
        } catch (const std::runtime_error& e) {
            brokenReason = e.what();
            fd.reset();
            throw;
        }
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("lost the connection to the chief at " + chief + ": " + what);
    }

    void send(const cluster_wire::Bytes& frame, ClientClock::time_point deadline) {
        std::size_t sent = 0;
        while (sent < frame.size()) {
            const ssize_t n = ::send(fd.get(), frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
            if (n > 0) {
                sent += static_cast<std::size_t>(n);
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                pollfd polled{fd.get(), POLLOUT, 0};
                if (::poll(&polled, 1, cluster_net::msLeft(deadline)) == 0) fail("it took no data for too long");
                continue;
            }
            fail(cluster_net::errorText(errno));
        }
    }

    Message receive(ClientClock::time_point deadline) {
        cluster_wire::Bytes payload;
        std::array<std::uint8_t, 16UL * 1024> chunk{};
        for (;;) {
            const auto status = reader.next(payload);
            if (status == cluster_wire::FrameReader::Status::tooLarge) fail("it sent a frame over 1 MiB");
            if (status == cluster_wire::FrameReader::Status::frame) {
                std::string why;
                auto message = cluster_wire::decodeMessage(payload, why);
                if (!message) fail("it sent an unreadable message: " + why);
                return std::move(*message);
            }
            pollfd polled{fd.get(), POLLIN, 0};
            const int ready = ::poll(&polled, 1, cluster_net::msLeft(deadline));
            if (ready == 0) fail("no answer in time");
            if (ready < 0 && errno == EINTR) continue;
            const ssize_t got = ::recv(fd.get(), chunk.data(), chunk.size(), 0);
            if (got > 0) {
                reader.append(chunk.data(), static_cast<std::size_t>(got));
            } else if (got == 0) {
                fail("it closed the connection");
            } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
                fail(cluster_net::errorText(errno));
            }
        }
    }

    /// The chief's error answer as an exception; any other unexpected answer as a broken stream.
    [[noreturn]] void unexpected(const Message& answer) {
        if (const std::string* message = cluster_wire::stringField(answer, "message");
            message && *cluster_wire::stringField(answer, "op") == "error")
            throw std::runtime_error("the chief at " + chief + " refused: " + *message);
        brokenReason =
            "lost the connection to the chief at " + chief + ": unexpected answer '" + *cluster_wire::stringField(answer, "op") + "'";
        fd.reset();
        throw std::runtime_error(brokenReason);
    }
};

Result<std::unique_ptr<ClusterStoreClient>> ClusterStoreClient::connect(const std::string& host, int port, const ClusterIdentity& me,
                                                                        std::chrono::milliseconds timeout) {
    auto address = cluster_net::resolveAddress(host, port);
    if (!address) return address.error();
    const auto deadline = ClientClock::now() + timeout;
    auto connection = std::make_unique<Connection>();
    connection->chief = address->text;
    int error = 0;
    // The chief may not be listening yet: connection refused is retried until the deadline.
    for (;;) {
        connection->fd = cluster_net::connectOnce(*address, deadline, error);
        if (connection->fd.valid() || ClientClock::now() + kRetryInterval >= deadline) break;
        std::this_thread::sleep_for(kRetryInterval);
    }
    if (!connection->fd.valid())
        return Error{"could not reach the chief's rendezvous store at " + address->text + " within " + std::to_string(timeout.count()) +
                     " ms: " + cluster_net::errorText(error) + " (is the chief running, at this address and port?)"};

    const Message hello = {{"op", "hello"},
                           {"protocol", cluster_wire::kProtocolVersion},
                           {"token", me.token},
                           {"config_hash", me.configHash},
                           {"task", me.task}};
    Message answer;
    try {
        answer = connection->exchange(hello, std::max(deadline, ClientClock::now() + kLeastHelloTime));
    } catch (const std::runtime_error& e) {
        return Error{std::string("the chief's rendezvous store did not answer the hello: ") + e.what()};
    }
    const std::string& op = *cluster_wire::stringField(answer, "op");
    if (op == "welcome") return std::unique_ptr<ClusterStoreClient>(new ClusterStoreClient(std::move(connection)));
    const std::string* message = cluster_wire::stringField(answer, "message");
    return Error{"refused by the chief at " + address->text + ": " +
                 (op == "error" && message ? *message : "unexpected answer '" + op + "'")};
}

ClusterStoreClient::ClusterStoreClient(std::unique_ptr<Connection> connection) : m_connection(std::move(connection)) {}

ClusterStoreClient::~ClusterStoreClient() = default;

const std::string& ClusterStoreClient::chiefAddress() const { return m_connection->chief; }

void ClusterStoreClient::set(const std::string& key, std::span<const char> value) {
    const Message request = {{"op", "set"}, {"key", key}, {"value", Message::binary(cluster_wire::Bytes(value.begin(), value.end()))}};
    const std::lock_guard lock(m_connection->mutex);
    const Message answer = m_connection->exchange(request, ClientClock::now() + kPromptAnswer);
    if (*cluster_wire::stringField(answer, "op") != "ok") m_connection->unexpected(answer);
}

std::vector<char> ClusterStoreClient::get(const std::string& key, std::chrono::milliseconds timeout) {
    const Message request = {
        {"op", "get"}, {"key", key}, {"timeout_ms", static_cast<std::uint64_t>(std::max<std::int64_t>(timeout.count(), 0))}};
    const std::lock_guard lock(m_connection->mutex);
    const Message answer = m_connection->exchange(request, ClientClock::now() + timeout + kAnswerSlack);
    const std::string& op = *cluster_wire::stringField(answer, "op");
    if (op == "timeout")
        throw std::runtime_error("the rendezvous store has no key '" + key + "' after waiting " + std::to_string(timeout.count()) +
                                 " ms (chief at " + m_connection->chief + ")");
    const auto value = answer.find("value");
    if (op != "value" || value == answer.end() || !value->is_binary()) m_connection->unexpected(answer);
    return {value->get_binary().begin(), value->get_binary().end()};
}

void ClusterStoreClient::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
    const Message request = {
        {"op", "wait"}, {"keys", keys}, {"timeout_ms", static_cast<std::uint64_t>(std::max<std::int64_t>(timeout.count(), 0))}};
    const std::lock_guard lock(m_connection->mutex);
    const Message answer = m_connection->exchange(request, ClientClock::now() + timeout + kAnswerSlack);
    const std::string& op = *cluster_wire::stringField(answer, "op");
    if (op == "ready") return;
    if (op != "timeout") m_connection->unexpected(answer);
    const auto missing = answer.find("missing");
    std::vector<std::string> absent;
    if (missing != answer.end() && missing->is_array())
        for (const auto& key : *missing)
            if (key.is_string()) absent.push_back(key.get<std::string>());
    throw std::runtime_error("the rendezvous store still lacks " + quotedList(absent) + " after waiting " +
                             std::to_string(timeout.count()) + " ms (chief at " + m_connection->chief + ")");
}

std::vector<std::string> ClusterStoreClient::lostTasks() {
    const std::lock_guard lock(m_connection->mutex);
    const Message answer = m_connection->exchange({{"op", "lost_tasks"}}, ClientClock::now() + kPromptAnswer);
    const auto tasks = answer.find("tasks");
    if (*cluster_wire::stringField(answer, "op") != "lost_tasks" || tasks == answer.end() || !tasks->is_array())
        m_connection->unexpected(answer);
    std::vector<std::string> lost;
    for (const auto& task : *tasks)
        if (task.is_string()) lost.push_back(task.get<std::string>());
    return lost;
}

void ClusterStoreClient::goodbye() {
    const std::lock_guard lock(m_connection->mutex);
    if (!m_connection->brokenReason.empty()) return;  // nothing left to leave
    try {
        m_connection->exchange({{"op", "goodbye"}}, ClientClock::now() + kPromptAnswer);
    } catch (const std::runtime_error&) {
        // The chief closes the connection after its "bye"; a connection already gone has been
        // reported lost by the chief, which a goodbye can no longer change.
    }
    m_connection->brokenReason = "this task said goodbye to the chief at " + m_connection->chief;
    m_connection->fd.reset();
}

}  // namespace distlab
