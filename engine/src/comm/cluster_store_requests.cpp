// What each message to the rendezvous store does (the server's thread only). A message the
// protocol does not allow (a request before hello, a second request before the first's answer, a
// field missing or of the wrong type) is refused and its connection closed: the engine's own
// client never sends one. A request over a limit is only answered with an error.
#include <algorithm>
#include <cstdint>

#include "comm/cluster_store_server_state.hpp"

namespace distlab {

namespace {

constexpr std::size_t kMaxTaskNameBytes = 128;
constexpr std::uint64_t kMaxWaitMs = 7ULL * 24 * 3600 * 1000;  // a week: far beyond any run's rendezvous

/// Equal secrets, in a time that depends only on the expected one's length, so that how long a
/// refusal takes says nothing of how many leading characters of a guess were right.
bool sameSecret(const std::string& expected, const std::string& given) {
    unsigned difference = expected.size() == given.size() ? 0U : 1U;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const char other = i < given.size() ? given[i] : '\0';
        difference |= static_cast<unsigned char>(expected[i]) ^ static_cast<unsigned char>(other);
    }
    return difference == 0;
}

/// A task name as messages can show it: short, printable, no spaces ("worker:1").
bool validTaskName(const std::string& task) {
    return !task.empty() && task.size() <= kMaxTaskNameBytes &&
           std::all_of(task.begin(), task.end(), [](char c) { return c > ' ' && c < 127; });
}

const std::uint64_t* requestedWaitMs(const cluster_wire::Message& message) {
    const auto found = message.find("timeout_ms");
    return found == message.end() ? nullptr : found->get_ptr<const std::uint64_t*>();
}

}  // namespace

void ClusterStoreServer::State::handle(Peer& peer, const cluster_wire::Message& message) {
    const std::string& op = *cluster_wire::stringField(message, "op");
    if (!peer.greeted) {
        if (op != "hello") return refuse(peer, "the first message must be hello, not '" + op.substr(0, 32) + "'");
        return hello(peer, message);
    }
    if (peer.pending || !peer.outbox.empty())
        return refuse(peer, "sent '" + op.substr(0, 32) + "' before the answer to its previous request");
    if (op == "set") return set(peer, message);
    if (op == "get") return await(peer, message, true);
    if (op == "wait") return await(peer, message, false);
    if (op == "lost_tasks") {
        const std::lock_guard lock(logMutex);
        return reply(peer, {{"op", "lost_tasks"}, {"tasks", lost}});
    }
    if (op == "goodbye") {
        peer.saidGoodbye = true;
        reply(peer, {{"op", "bye"}});
        return close(peer);
    }
    refuse(peer, op == "hello" ? std::string("said hello twice") : "unknown op '" + op.substr(0, 32) + "'");
}

void ClusterStoreServer::State::hello(Peer& peer, const cluster_wire::Message& message) {
    const auto protocol = message.find("protocol");
    if (protocol == message.end() || !protocol->is_number_integer() || *protocol != cluster_wire::kProtocolVersion)
        return refuse(peer, "speaks another protocol than the chief's (version " + std::to_string(cluster_wire::kProtocolVersion) + ")");
    const std::string* presented = cluster_wire::stringField(message, "token");
    const std::string* hash = cluster_wire::stringField(message, "config_hash");
    const std::string* task = cluster_wire::stringField(message, "task");
    if (presented == nullptr || hash == nullptr || task == nullptr) return refuse(peer, "a hello without its token, config_hash and task");
    // The token first: who does not hold it learns nothing else (not even the config's hash).
    if (!sameSecret(token, *presented)) return refuse(peer, "wrong token");
    if (!validTaskName(*task)) return refuse(peer, "the task name must be 1-128 printable characters without spaces");
    if (*hash != configHash)
        return refuse(peer,
                      "run config differs from the chief's: chief has hash " + configHash + ", " + *task + " has " + hash->substr(0, 128));
    for (const auto& other : peers)
        if (other.get() != &peer && other->greeted && !other->closed && other->task == *task)
            return refuse(peer, "task " + *task + " is already connected (from " + other->address + ")");
    peer.greeted = true;
    peer.task = *task;
    {
        const std::lock_guard lock(logMutex);
        if (std::find(joined.begin(), joined.end(), peer.task) == joined.end()) joined.push_back(peer.task);
    }
    reply(peer, {{"op", "welcome"}});
}

void ClusterStoreServer::State::set(Peer& peer, const cluster_wire::Message& message) {
    const std::string* key = cluster_wire::stringField(message, "key");
    const auto value = message.find("value");
    if (key == nullptr || value == message.end() || !value->is_binary())
        return refuse(peer, "a set without a string key and a byte-string value");
    const std::string why = table.set(*key, value->get_binary());
    if (!why.empty()) {
        logRefusal(peer, "set refused: " + why);
        return reply(peer, {{"op", "error"}, {"message", why}});
    }
    reply(peer, {{"op", "ok"}});
    for (const auto& waiting : peers)
        if (!waiting->closed && waiting->pending) answerIfReady(*waiting);
}

void ClusterStoreServer::State::await(Peer& peer, const cluster_wire::Message& message, bool isGet) {
    const std::uint64_t* timeout = requestedWaitMs(message);
    PendingRequest request;
    request.isGet = isGet;
    if (isGet) {
        const std::string* key = cluster_wire::stringField(message, "key");
        if (key == nullptr || timeout == nullptr) return refuse(peer, "a get without a string key and an unsigned timeout_ms");
        request.keys.push_back(*key);
    } else {
        const auto keys = message.find("keys");
        const bool allStrings = keys != message.end() && keys->is_array() &&
                                std::all_of(keys->begin(), keys->end(), [](const auto& k) { return k.is_string(); });
        if (!allStrings || timeout == nullptr) return refuse(peer, "a wait without a list of string keys and an unsigned timeout_ms");
        request.keys = keys->get<std::vector<std::string>>();
    }
    request.deadline = StoreClock::now() + std::chrono::milliseconds(std::min(*timeout, kMaxWaitMs));
    peer.pending = std::move(request);
    answerIfReady(peer);
}

void ClusterStoreServer::State::answerIfReady(Peer& peer) {
    if (!peer.pending || !table.missing(peer.pending->keys).empty()) return;
    const PendingRequest request = std::move(*peer.pending);
    peer.pending.reset();
    if (!request.isGet) return reply(peer, {{"op", "ready"}});
    reply(peer, {{"op", "value"}, {"value", cluster_wire::Message::binary(*table.find(request.keys.front()))}});
}

}  // namespace distlab
