#include "comm/cluster_store_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace distlab::cluster_net {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
}

int UniqueFd::release() {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
}

void UniqueFd::reset(int fd) {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = fd;
}

void setNonBlocking(int fd, bool on) {
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK)) < 0)
        throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
}

int msLeft(std::chrono::steady_clock::time_point deadline) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    return static_cast<int>(std::clamp<std::int64_t>(left, 0, std::int64_t{24} * 3600 * 1000));
}

UniqueFd connectOnce(const SocketAddress& address, std::chrono::steady_clock::time_point deadline, int& error) {
    UniqueFd fd(::socket(address.storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!fd.valid()) {
        error = errno;
        return fd;
    }
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address.storage), address.length) != 0) {
        if (errno != EINPROGRESS) {
            error = errno;
            return {};
        }
        pollfd polled{fd.get(), POLLOUT, 0};
        const int ready = ::poll(&polled, 1, msLeft(deadline));
        socklen_t length = sizeof(error);
        if (ready <= 0) {
            error = ready == 0 ? ETIMEDOUT : errno;
            return {};
        }
        if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
        if (error != 0) return {};
    }
    const int one = 1;  // small messages that should leave at once: no Nagle delay
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

std::string errorText(int error) { return std::system_category().message(error); }

std::string describeAddress(const sockaddr_storage& storage, socklen_t length) {
    std::array<char, NI_MAXHOST> host{};
    std::array<char, NI_MAXSERV> service{};
    if (::getnameinfo(reinterpret_cast<const sockaddr*>(&storage), length, host.data(), host.size(), service.data(), service.size(),
                      NI_NUMERICHOST | NI_NUMERICSERV) != 0)
        return "(unknown address)";
    // IPv6 in brackets, so the port's colon is not read as part of the address. (Appended piece
    // by piece: GCC 12 warns, wrongly, of overlapping copies in '"[" + std::string(...)'.)
    const bool bracketed = storage.ss_family == AF_INET6;
    std::string text;
    if (bracketed) text.append("[");
    text.append(host.data());
    if (bracketed) text.append("]");
    text.append(":").append(service.data());
    return text;
}

Result<SocketAddress> resolveAddress(const std::string& host, int port) {
    if (port < 0 || port > 65535) return Error{"port " + std::to_string(port) + " is not in 0..65535"};
    // "localhost" is the loopback address itself, not whatever the resolver lists first (which
    // may be ::1 on one machine and 127.0.0.1 on another), so the chief and its tasks agree.
    const std::string name = host.empty() || host == "localhost" ? std::string("127.0.0.1") : host;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    if (const int rc = ::getaddrinfo(name.c_str(), service.c_str(), &hints, &found); rc != 0 || found == nullptr)
        return Error{"cannot resolve the address '" + host + "': " + (rc != 0 ? ::gai_strerror(rc) : "no address")};
    SocketAddress address;
    std::memcpy(&address.storage, found->ai_addr, found->ai_addrlen);
    address.length = found->ai_addrlen;
    ::freeaddrinfo(found);
    address.text = describeAddress(address.storage, address.length);
    return address;
}

}  // namespace distlab::cluster_net
