#pragma once
// The rendezvous store's keys and values, within the server's limits (private to the engine).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "distlab/comm/cluster_store.hpp"

namespace distlab::cluster_detail {

class ClusterKeyTable {
public:
    explicit ClusterKeyTable(const ClusterStoreLimits& limits) : m_limits(limits) {}

    /// Stores `value` under `key`, replacing any value. Returns "" or why it was refused (which
    /// limit, with the figures); a refused set leaves the table as it was.
    std::string set(const std::string& key, std::vector<std::uint8_t> value);
    /// The value under `key`, or nullptr.
    const std::vector<std::uint8_t>* find(const std::string& key) const;
    /// The keys of `keys` not set yet, in their order.
    std::vector<std::string> missing(const std::vector<std::string>& keys) const;
    std::size_t size() const { return m_values.size(); }

private:
    const ClusterStoreLimits m_limits;
    std::map<std::string, std::vector<std::uint8_t>> m_values;
    std::size_t m_totalBytes = 0;
};

}  // namespace distlab::cluster_detail
