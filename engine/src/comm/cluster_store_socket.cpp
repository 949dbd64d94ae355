#include "comm/cluster_store_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

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
