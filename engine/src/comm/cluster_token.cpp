// The run's token: the secret every task of one run presents to the chief's rendezvous store.
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <system_error>

#include "distlab/comm/cluster_store.hpp"

namespace distlab {

std::string makeClusterToken() {
    std::array<std::uint8_t, 32> bytes{};
    std::size_t filled = 0;
    while (filled < bytes.size()) {
        // The kernel's CSPRNG, not std::random_device, whose source the standard leaves open.
        const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) throw std::system_error(errno, std::generic_category(), "getrandom");
        filled += static_cast<std::size_t>(got);
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string token;
    for (const std::uint8_t byte : bytes) {
        token += kHex[byte >> 4];
        token += kHex[byte & 0xF];
    }
    return token;
}

}  // namespace distlab
