// One rank's Communicator of an InProcessGroup: the collectives over published buffers, with
// point-to-point send/recv through the group's mailboxes.
#include "comm/in_process_communicator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "comm/in_process_algorithms.hpp"

namespace distlab::comm_detail {
namespace {

void requireRank(int value, int size, const char* what) {
    if (value < 0 || value >= size)
        throw std::invalid_argument(std::string(what) + " " + std::to_string(value) + " is not a rank of a group of " +
                                    std::to_string(size));
}

void requireBlocks(std::size_t whole, std::size_t block, int size, const char* what) {
    if (whole != block * static_cast<std::size_t>(size))
        throw std::invalid_argument(std::string(what) + ": " + std::to_string(whole) + " elements are not " + std::to_string(size) +
                                    " blocks of " + std::to_string(block));
}

// A completion record that stamps its start on creation and its end on finish().
struct Stamp {
    CollectiveTiming timing;
    Stamp() { timing.startNs = nowNs(); }
    CollectiveTiming finish() {
        timing.endNs = nowNs();
        return timing;
    }
};

}  // namespace

Work InProcessCommunicator::allReduce(std::span<float> buffer, const AllReduceOptions& options) {
    Stamp stamp;
    const std::int64_t sequence = m_sequence++;
    const std::span<float> companion = options.companion;
    if (companion.size() > kMaxCompanionValues)
        throw std::invalid_argument("allReduce: a companion of " + std::to_string(companion.size()) + " values (at most " +
                                    std::to_string(kMaxCompanionValues) + ")");
    const int n = size();
    const bool withCompanion = !companion.empty() && n > 1;
    const int parity = withCompanion ? static_cast<int>(m_companionCalls++ & 1u) : 0;
    if (withCompanion) copyInto(m_group.companionValues(m_rank, parity), companion.data(), companion.size());
    if (withCompanion && buffer.empty()) {
        // Nothing to carry the companion: one barrier is the synchronisation.
        CollectiveStep(m_group, m_rank, sequence, options.packIndex, stamp.timing, nullptr).sync();
    } else if (n > 1 && !buffer.empty()) {
        CollectiveStep step(m_group, m_rank, sequence, options.packIndex, stamp.timing, m_trace);
        switch (m_group.algorithm()) {
            case CrossDeviceOps::ReductionToOneDevice:
                reduceToOneDeviceAllReduce(step, buffer, options.op);
                break;
            case CrossDeviceOps::HierarchicalCopy:
                hierarchicalCopyAllReduce(step, buffer, options.op, options.packIndex);
                break;
            case CrossDeviceOps::Tree:
                treeAllReduce(step, buffer, options.op);
                break;
            case CrossDeviceOps::Ring:
            case CrossDeviceOps::Nccl:  // NCCL is GPU-only; logical CPU devices run the ring
                ringAllReduce(step, buffer, options.op);
                break;
        }
    }
    if (withCompanion) {
        // Every rank has entered this call (no all-reduce finishes before), so every slot is
        // written. Rank order, rank 0's values first: the same result on every rank.
        copyInto(companion.data(), m_group.companionValues(0, parity), companion.size());
        for (int r = 1; r < n; ++r) combineInto(options.op, companion.data(), m_group.companionValues(r, parity), companion.size());
        if (options.op == ReduceOp::Mean) divideBy(companion.data(), static_cast<float>(n), companion.size());
        const auto bytes = static_cast<std::int64_t>(companion.size_bytes()) * (n - 1);
        stamp.timing.bytesSent += bytes;
        stamp.timing.bytesReceived += bytes;
    }
    return stamp.finish();
}

Work InProcessCommunicator::reduce(std::span<float> buffer, int root, ReduceOp op) {
    requireRank(root, size(), "reduce: root");
    Stamp stamp;
    const std::int64_t sequence = m_sequence++;
    const int n = size();
    if (n == 1 || buffer.empty()) return stamp.finish();
    CollectiveStep step(m_group, m_rank, sequence, 0, stamp.timing, m_trace);
    m_group.publish(m_rank, buffer.data());
    step.snapshotInput(buffer);
    step.sync();
    if (m_rank == root) {
        auto peer = [&](int s) { return s < root ? s : s + 1; };
        const std::int64_t started = step.traceClock();
        combineManyInto(
            op, buffer.data(), n - 1, [&](int s) { return m_group.buffer(peer(s)); }, buffer.size());
        const auto count = static_cast<std::int64_t>(buffer.size());
        for (int s = 0; s < n - 1; ++s) step.logTransfer(0, peer(s), TransferKind::Reduce, 0, count, started);
        if (op == ReduceOp::Mean) divideBy(buffer.data(), static_cast<float>(n), buffer.size());
    } else {
        step.sent(static_cast<std::int64_t>(buffer.size()));
    }
    step.endStep(0, buffer);
    return stamp.finish();
}

Work InProcessCommunicator::broadcast(std::span<float> buffer, int root) {
    requireRank(root, size(), "broadcast: root");
    Stamp stamp;
    const std::int64_t sequence = m_sequence++;
    const int n = size();
    if (n == 1 || buffer.empty()) return stamp.finish();
    CollectiveStep step(m_group, m_rank, sequence, 0, stamp.timing, m_trace);
    m_group.publish(m_rank, buffer.data());
    step.snapshotInput(buffer);
    step.sync();
    const auto count = static_cast<std::int64_t>(buffer.size());
    if (m_rank != root)
        step.copyFrom(0, root, buffer.data(), 0, count);
    else
        step.sent(count * (n - 1));
    step.endStep(0, buffer);
    return stamp.finish();
}

Work InProcessCommunicator::allGather(std::span<const float> input, std::span<float> output) {
    const int n = size();
    requireBlocks(output.size(), input.size(), n, "allGather: output");
    Stamp stamp;
    const std::int64_t sequence = m_sequence++;
    const auto block = static_cast<std::int64_t>(input.size());
    auto copyOwn = [&] {
        float* own = output.data() + m_rank * block;
        if (own != input.data()) copyInto(own, input.data(), input.size());
    };
    if (n == 1 || input.empty()) {
        copyOwn();
        return stamp.finish();
    }
    CollectiveStep step(m_group, m_rank, sequence, 0, stamp.timing, m_trace);
    m_group.publish(m_rank, output.data(), input.data());
    step.sync();
    copyOwn();
    for (int peer = 0; peer < n; ++peer) {
        if (peer == m_rank) continue;
        step.transfer(0, peer, TransferKind::Copy, peer * block, (peer + 1) * block,
                      [&] { copyInto(output.data() + peer * block, m_group.input(peer), input.size()); });
    }
    step.sent(block * (n - 1));
    step.endStep(0, output);
    return stamp.finish();
}

Work InProcessCommunicator::reduceScatter(std::span<const float> input, std::span<float> output, ReduceOp op) {
    const int n = size();
    requireBlocks(input.size(), output.size(), n, "reduceScatter: input");
    Stamp stamp;
    const std::int64_t sequence = m_sequence++;
    const auto block = static_cast<std::int64_t>(output.size());
    const std::int64_t offset = m_rank * block;
    if (n == 1 || output.empty()) {
        if (output.data() != input.data()) copyInto(output.data(), input.data(), output.size());
        return stamp.finish();
    }
    CollectiveStep step(m_group, m_rank, sequence, 0, stamp.timing, m_trace);
    m_group.publish(m_rank, output.data(), input.data());
    step.sync();
    // Rank order, every term from its owner's input (this rank's own block included).
    for (int peer = 0; peer < n; ++peer) {
        const float* term = (peer == m_rank ? input.data() : m_group.input(peer)) + offset;
        auto work = [&] {
            if (peer == 0)
                copyInto(output.data(), term, output.size());
            else
                combineInto(op, output.data(), term, output.size());
        };
        if (peer == m_rank)
            work();
        else
            step.transfer(0, peer, peer == 0 ? TransferKind::Copy : TransferKind::Reduce, offset, offset + block, work);
    }
    if (op == ReduceOp::Mean) divideBy(output.data(), static_cast<float>(n), output.size());
    step.sent(block * (n - 1));
    step.endStep(0, output);
    return stamp.finish();
}

Work InProcessCommunicator::send(std::span<const float> buffer, int peer) {
    requireRank(peer, size(), "send: peer");
    if (peer == m_rank) throw std::invalid_argument("send: a rank cannot send to itself");
    Stamp stamp;
    InProcessGroup::Mailbox& box = m_group.mailbox(m_rank, peer);
    const std::uint32_t sequence = box.posted.load(std::memory_order_relaxed);
    box.data = buffer.data();
    box.count = buffer.size();
    box.posted.store(sequence + 1, std::memory_order_release);
    box.posted.notify_all();
    const std::int64_t waitStart = nowNs();
    spinWaitWhileEqual(box.taken, sequence, &m_group.abortFlag());  // the receiver has copied it
    stamp.timing.waitNs = nowNs() - waitStart;
    stamp.timing.bytesSent = static_cast<std::int64_t>(buffer.size_bytes());
    return stamp.finish();
}

Work InProcessCommunicator::recv(std::span<float> buffer, int peer) {
    requireRank(peer, size(), "recv: peer");
    if (peer == m_rank) throw std::invalid_argument("recv: a rank cannot receive from itself");
    Stamp stamp;
    InProcessGroup::Mailbox& box = m_group.mailbox(peer, m_rank);
    const std::uint32_t sequence = box.taken.load(std::memory_order_relaxed);
    const std::int64_t waitStart = nowNs();
    spinWaitWhileEqual(box.posted, sequence, &m_group.abortFlag());  // the sender has offered its message
    stamp.timing.waitNs = nowNs() - waitStart;
    const std::size_t count = std::min(box.count, buffer.size());
    CollectiveStep step(m_group, m_rank, -1, 0, stamp.timing, m_trace);
    step.transfer(0, peer, TransferKind::Copy, 0, static_cast<std::int64_t>(count), [&] { copyInto(buffer.data(), box.data, count); });
    box.taken.store(sequence + 1, std::memory_order_release);
    box.taken.notify_all();
    return stamp.finish();
}

Work InProcessCommunicator::barrier() {
    Stamp stamp;
    ++m_sequence;
    stamp.timing.waitNs = m_group.barrier().arriveAndWait();
    return stamp.finish();
}

}  // namespace distlab::comm_detail
