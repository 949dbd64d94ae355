#include "comm/gloo_store.hpp"

namespace distlab {

void GlooStore::set(const std::string& key, const std::vector<char>& data) { m_client.set(key, data); }

std::vector<char> GlooStore::get(const std::string& key) { return m_client.get(key, m_timeout); }

void GlooStore::wait(const std::vector<std::string>& keys) { m_client.wait(keys, m_timeout); }

void GlooStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) { m_client.wait(keys, timeout); }

}  // namespace distlab
