#pragma once
// The rendezvous store's sockets (private to the engine): resolving "host:port" to exactly one
// address, owning a descriptor, and the address text every message names.
#include <sys/socket.h>

#include <chrono>
#include <string>

#include "distlab/core/error.hpp"

namespace distlab::cluster_net {

/// One resolved address and how messages write it ("127.0.0.1:12345", "[::1]:12345").
struct SocketAddress {
    sockaddr_storage storage{};
    socklen_t length = 0;
    std::string text;
};

/// host:port as one address. "localhost" and "" are 127.0.0.1 (never every interface); a numeric
/// address is taken as it is; a name is resolved and its first address used. Port 0..65535.
Result<SocketAddress> resolveAddress(const std::string& host, int port);
/// The address text of a connected peer or bound socket.
std::string describeAddress(const sockaddr_storage& storage, socklen_t length);
/// strerror for messages.
std::string errorText(int error);

/// Owns one file descriptor; closes it when destroyed.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    int release();
    void reset(int fd = -1);

private:
    int m_fd = -1;
};

/// O_NONBLOCK on or off; throws std::system_error when fcntl fails.
void setNonBlocking(int fd, bool on);

/// Milliseconds until `deadline` (0 once it has passed), for poll().
int msLeft(std::chrono::steady_clock::time_point deadline);
/// One attempt at a TCP connection (non-blocking, TCP_NODELAY), waiting at most until `deadline`;
/// returns the socket, or an invalid one with `error` set to the errno.
UniqueFd connectOnce(const SocketAddress& address, std::chrono::steady_clock::time_point deadline, int& error);

}  // namespace distlab::cluster_net
