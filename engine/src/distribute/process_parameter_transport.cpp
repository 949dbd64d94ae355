#include "distribute/process_parameter_transport.hpp"

#include <algorithm>
#include <cstring>

namespace distlab {
namespace {

static_assert(sizeof(PsHeader) == 112 && sizeof(PsHeader) % sizeof(float) == 0);

/// Bytes as the floats Communicator::send carries (Gloo moves them as bytes; nothing reads them as numbers).
std::vector<float> asFloats(const void* bytes, std::size_t size) {
    std::vector<float> words((size + sizeof(float) - 1) / sizeof(float), 0.0f);
    std::memcpy(words.data(), bytes, size);
    return words;
}

void receiveBytes(Communicator& group, void* bytes, std::size_t size, int peer) {
    std::vector<float> words((size + sizeof(float) - 1) / sizeof(float));
    group.recv(words, peer).wait();
    std::memcpy(bytes, words.data(), size);
}

}  // namespace

void sendHeader(Communicator& group, const PsHeader& header, int peer) { group.send(asFloats(&header, sizeof header), peer).wait(); }

PsHeader receiveHeader(Communicator& group, int peer) {
    PsHeader header;
    receiveBytes(group, &header, sizeof header, peer);
    return header;
}

void sendIndices(Communicator& group, std::span<const std::int64_t> indices, int peer) {
    group.send(asFloats(indices.data(), indices.size_bytes()), peer).wait();
}

void receiveIndices(Communicator& group, std::vector<std::int64_t>& indices, std::int64_t count, int peer) {
    indices.resize(static_cast<std::size_t>(count));
    receiveBytes(group, indices.data(), indices.size() * sizeof(std::int64_t), peer);
}

void sendText(Communicator& group, const std::string& text, int peer) { group.send(asFloats(text.data(), text.size()), peer).wait(); }

std::string receiveText(Communicator& group, std::int64_t bytes, int peer) {
    std::string text(static_cast<std::size_t>(bytes), '\0');
    receiveBytes(group, text.data(), text.size(), peer);
    return text;
}

ServerShards::ServerShards(const std::vector<ShardPlacement>& placements, int server) {
    for (const ShardPlacement& shard : placements) {
        if (shard.server != server) continue;
        m_ranges.push_back(Range{m_size, shard.offset, shard.size});
        m_size += shard.size;
    }
}

void ServerShards::gather(std::span<const float> full, std::span<float> compact) const {
    for (const Range& range : m_ranges) std::copy_n(full.begin() + range.fullOffset, range.size, compact.begin() + range.compactOffset);
}

void ServerShards::scatter(std::span<const float> compact, std::span<float> full) const {
    for (const Range& range : m_ranges) std::copy_n(compact.begin() + range.compactOffset, range.size, full.begin() + range.fullOffset);
}

ProcessParameterTransport::ProcessParameterTransport(Communicator& group, PsLayout layout, const std::vector<ShardPlacement>& placements,
                                                     std::int64_t parameters)
    : m_group(group), m_layout(layout) {
    std::int64_t largest = 0;
    for (int server = 0; server < layout.servers; ++server) {
        m_shards.emplace_back(placements, server);
        largest = std::max(largest, m_shards.back().size());
    }
    m_received.resize(static_cast<std::size_t>(largest));
    m_pushed.assign(static_cast<std::size_t>(layout.workers), std::vector<float>(static_cast<std::size_t>(parameters)));
}

std::int64_t ProcessParameterTransport::sendParameters(int worker, std::span<const float> parameters) {
    return m_group.send(parameters, m_layout.workerRank(worker)).wait().bytesSent;
}

void ProcessParameterTransport::receiveParameters(int, std::span<float> values) {
    for (int server = 0; server < m_layout.servers; ++server) {
        const ServerShards& shards = m_shards[static_cast<std::size_t>(server)];
        const std::span<float> compact(m_received.data(), static_cast<std::size_t>(shards.size()));
        m_group.recv(compact, m_layout.serverRank(server)).wait();
        shards.scatter(compact, values);
    }
}

std::int64_t ProcessParameterTransport::sendGradient(int, std::span<const float> gradient) {
    return m_group.send(gradient, PsLayout::kChief).wait().bytesSent;
}

std::span<const float> ProcessParameterTransport::receivedGradient(int worker) const { return m_pushed[static_cast<std::size_t>(worker)]; }

void ProcessParameterTransport::takeGradient(int worker) {
    m_group.recv(m_pushed[static_cast<std::size_t>(worker)], m_layout.workerRank(worker)).wait();
}

}  // namespace distlab
