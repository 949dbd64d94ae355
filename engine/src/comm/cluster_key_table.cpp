#include "comm/cluster_key_table.hpp"

#include <utility>

namespace distlab::cluster_detail {

std::string ClusterKeyTable::set(const std::string& key, std::vector<std::uint8_t> value) {
    if (key.empty()) return "an empty key";
    if (key.size() > m_limits.maxKeyBytes)
        return "key of " + std::to_string(key.size()) + " bytes is over the limit of " + std::to_string(m_limits.maxKeyBytes);
    if (value.size() > m_limits.maxValueBytes)
        return "value of '" + key + "' has " + std::to_string(value.size()) + " bytes, over the limit of " +
               std::to_string(m_limits.maxValueBytes);
    const auto existing = m_values.find(key);
    const std::size_t released = existing == m_values.end() ? 0 : key.size() + existing->second.size();
    if (existing == m_values.end() && m_values.size() >= m_limits.maxKeys)
        return "the store holds its limit of " + std::to_string(m_limits.maxKeys) + " keys";
    const std::size_t total = m_totalBytes - released + key.size() + value.size();
    if (total > m_limits.maxTotalBytes)
        return "the store would hold " + std::to_string(total) + " bytes, over its limit of " + std::to_string(m_limits.maxTotalBytes);
    m_totalBytes = total;
    m_values[key] = std::move(value);
    return {};
}

const std::vector<std::uint8_t>* ClusterKeyTable::find(const std::string& key) const {
    const auto found = m_values.find(key);
    return found == m_values.end() ? nullptr : &found->second;
}

std::vector<std::string> ClusterKeyTable::missing(const std::vector<std::string>& keys) const {
    std::vector<std::string> absent;
    for (const std::string& key : keys)
        if (!m_values.contains(key)) absent.push_back(key);
    return absent;
}

}  // namespace distlab::cluster_detail
