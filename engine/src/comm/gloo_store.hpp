#pragma once
// Gloo's rendezvous (gloo::rendezvous::Context::connectFullMesh) over the chief's store: each rank
// sets its address under its own key and gets the others'. Gloo's headers stay in the engine's
// private sources; the public API names only ClusterStoreClient.
#include <chrono>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "distlab/comm/cluster_store.hpp"

namespace distlab {

class GlooStore final : public gloo::rendezvous::Store {
public:
    /// `timeout`: how long get() and the wait without a timeout wait for a key. The client must
    /// outlive this store.
    GlooStore(ClusterStoreClient& client, std::chrono::milliseconds timeout) : m_client(client), m_timeout(timeout) {}

    void set(const std::string& key, const std::vector<char>& data) override;
    std::vector<char> get(const std::string& key) override;
    void wait(const std::vector<std::string>& keys) override;
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

private:
    ClusterStoreClient& m_client;
    const std::chrono::milliseconds m_timeout;
};

}  // namespace distlab
