#include "distlab/comm/hierarchical_communicator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace distlab {

HierarchicalCommunicator::HierarchicalCommunicator(Communicator& local, Communicator& workers) : m_local(local), m_workers(workers) {}

Work HierarchicalCommunicator::allReduce(std::span<float> buffer, const AllReduceOptions& options) {
    const bool mean = options.op == ReduceOp::Mean;
    AllReduceOptions local = options;
    if (mean) local.op = ReduceOp::Sum;  // divided once, after the whole sum
    CollectiveTiming timing = m_local.allReduce(buffer, local).wait();
    if (m_workers.size() > 1) {
        if (lead()) {
            AllReduceOptions across = local;
            timing.accumulate(m_workers.allReduce(buffer, across).wait());
        }
        timing.accumulate(m_local.broadcast(buffer, 0).wait());
        if (!options.companion.empty()) timing.accumulate(m_local.broadcast(options.companion, 0).wait());
    }
    if (mean) {
        const auto ranks = static_cast<float>(size());
        for (float& value : buffer) value /= ranks;
        for (float& value : options.companion) value /= ranks;
    }
    return timing;
}

Work HierarchicalCommunicator::reduce(std::span<float> buffer, int root, ReduceOp op) {
    if (root < 0 || root >= size()) throw std::invalid_argument("reduce: root " + std::to_string(root) + " is not a rank");
    m_scratch.assign(buffer.begin(), buffer.end());
    const CollectiveTiming timing = allReduce(m_scratch, AllReduceOptions{op, 0, {}}).wait();
    if (rank() == root) std::copy(m_scratch.begin(), m_scratch.end(), buffer.begin());
    return timing;
}

Work HierarchicalCommunicator::broadcast(std::span<float> buffer, int root) {
    if (root < 0 || root >= size()) throw std::invalid_argument("broadcast: root " + std::to_string(root) + " is not a rank");
    const int rootWorker = root / m_local.size();
    const int rootLocal = root % m_local.size();
    const bool rootsWorker = m_workers.rank() == rootWorker;
    CollectiveTiming timing;
    if (rootsWorker) timing.accumulate(m_local.broadcast(buffer, rootLocal).wait());
    if (m_workers.size() > 1) {
        if (lead()) timing.accumulate(m_workers.broadcast(buffer, rootWorker).wait());
        if (!rootsWorker) timing.accumulate(m_local.broadcast(buffer, 0).wait());
    }
    return timing;
}

Work HierarchicalCommunicator::allGather(std::span<const float> input, std::span<float> output) {
    const auto localSize = static_cast<std::size_t>(m_local.size());
    if (output.size() != input.size() * static_cast<std::size_t>(size()))
        throw std::invalid_argument("allGather: the output must hold size() inputs (" + std::to_string(size()) + " x " +
                                    std::to_string(input.size()) + ", got " + std::to_string(output.size()) + ")");
    if (m_workers.size() == 1) return m_local.allGather(input, output);
    m_scratch.resize(input.size() * localSize);
    CollectiveTiming timing = m_local.allGather(input, m_scratch).wait();
    if (lead()) timing.accumulate(m_workers.allGather(m_scratch, output).wait());
    timing.accumulate(m_local.broadcast(output, 0).wait());
    return timing;
}

Work HierarchicalCommunicator::reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) {
    if (input.size() != output.size() * static_cast<std::size_t>(size()))
        throw std::invalid_argument("reduceScatter: the input must hold size() outputs (" + std::to_string(size()) + " x " +
                                    std::to_string(output.size()) + ", got " + std::to_string(input.size()) + ")");
    m_scratch.assign(input.begin(), input.end());
    const CollectiveTiming timing = allReduce(m_scratch, AllReduceOptions{op, 0, {}}).wait();
    const auto first = m_scratch.begin() + static_cast<std::ptrdiff_t>(output.size() * static_cast<std::size_t>(rank()));
    std::copy(first, first + static_cast<std::ptrdiff_t>(output.size()), output.begin());
    return timing;
}

int HierarchicalCommunicator::localPeer(const char* what, int peer) const {
    if (peer < 0 || peer >= size() || peer == rank())
        throw std::invalid_argument(std::string(what) + ": peer " + std::to_string(peer) + " is not another rank of " +
                                    std::to_string(size()));
    if (peer / m_local.size() != m_workers.rank())
        throw std::invalid_argument(std::string(what) + ": rank " + std::to_string(peer) + " is a replica of worker " +
                                    std::to_string(peer / m_local.size()) + ", not of this rank's worker " +
                                    std::to_string(m_workers.rank()) +
                                    " (replicas of different workers exchange values through collectives)");
    return peer % m_local.size();
}

Work HierarchicalCommunicator::send(std::span<const float> buffer, int peer) { return m_local.send(buffer, localPeer("send", peer)); }

Work HierarchicalCommunicator::recv(std::span<float> buffer, int peer) { return m_local.recv(buffer, localPeer("recv", peer)); }

Work HierarchicalCommunicator::barrier() {
    CollectiveTiming timing = m_local.barrier().wait();
    if (m_workers.size() > 1) {
        if (lead()) timing.accumulate(m_workers.barrier().wait());
        timing.accumulate(m_local.barrier().wait());
    }
    return timing;
}

}  // namespace distlab
