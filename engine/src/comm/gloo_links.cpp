#include "comm/gloo_links.hpp"

#include <stdexcept>
#include <string>

namespace distlab::comm_detail {
namespace {

[[noreturn]] void refuseCollective(const char* what) {
    throw std::logic_error(std::string(what) + ": a group of point-to-point links has no collectives (parameter servers send and receive)");
}

}  // namespace

GlooLinks::GlooLinks(int rank, std::vector<std::unique_ptr<GlooCommunicator>> links) : m_rank(rank), m_links(std::move(links)) {}

GlooCommunicator& GlooLinks::link(const char* what, int peer) const {
    if (peer < 0 || peer >= size() || peer == m_rank || !m_links[static_cast<std::size_t>(peer)])
        throw std::invalid_argument(std::string(what) + ": peer " + std::to_string(peer) + " is not another rank of " +
                                    std::to_string(size()));
    return *m_links[static_cast<std::size_t>(peer)];
}

Work GlooLinks::send(std::span<const float> buffer, int peer) { return link("send", peer).send(buffer, linkRank(peer, m_rank)); }

Work GlooLinks::recv(std::span<float> buffer, int peer) { return link("recv", peer).recv(buffer, linkRank(peer, m_rank)); }

Work GlooLinks::allReduce(std::span<float>, const AllReduceOptions&) { refuseCollective("allReduce"); }
Work GlooLinks::reduce(std::span<float>, int, ReduceOp) { refuseCollective("reduce"); }
Work GlooLinks::broadcast(std::span<float>, int) { refuseCollective("broadcast"); }
Work GlooLinks::allGather(std::span<const float>, std::span<float>) { refuseCollective("allGather"); }
Work GlooLinks::reduceScatter(std::span<const float>, std::span<float>, ReduceOp) { refuseCollective("reduceScatter"); }
Work GlooLinks::barrier() { refuseCollective("barrier"); }

}  // namespace distlab::comm_detail
