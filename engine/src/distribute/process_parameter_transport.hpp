#pragma once
// Parameter servers in processes (docs/cluster.md): the messages between the chief, the workers
// and the servers, and the ParameterTransport that carries pulls and pushes between processes. All
// of it goes over one Communicator of every task (Gloo's point-to-point send/recv between
// distlab-worker processes: cluster_task.hpp), never over a socket of our own.
//
// Who talks to whom (ranks: allTasksRank, the chief 0, worker w 1 + w, ps s 1 + W + s):
//   chief -> worker: Permit (a batch to compute, on the parameters of one version), Stop
//   chief -> ps:     Pull (answer worker w's read), Apply (a gradient slice), Fetch, Load, Stop
//   chief -> a ps or an idle worker: Keepalive, while the chief waits for a gradient (every wait
//                    for a peer is bounded by timeout_seconds; a quiet chief is not a lost one)
//   ps -> worker:    its shards' values, the answer to a Pull
//   worker -> chief: Result (loss and counts) and the gradient, or Failed (why)
//   ps -> chief:     its shards' values, slots and update count, the answer to a Fetch
// Every link goes one way per message kind and each side takes its messages in order, so the
// chief alone orders every read and update, as the coordinating thread does in one process.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "distlab/comm/communicator.hpp"
#include "distlab/distribute/partitioner.hpp"
#include "distlab/telemetry/records.hpp"
#include "distribute/parameter_transport.hpp"

namespace distlab {

enum class PsMessage : std::int64_t { Permit = 1, Stop, Pull, Apply, Fetch, Load, Result, Failed, Keepalive };

/// The fixed head of every control message (64 bytes); what each field holds depends on the kind.
struct PsHeader {
    PsMessage kind = PsMessage::Stop;
    std::int64_t worker = -1;   ///< Pull: the worker to answer
    std::int64_t count = 0;     ///< Permit: batch rows; Failed: message bytes; Load and Fetch's answer: optimizer updates
    std::int64_t code = 0;      ///< Stop: the exit code the task ends with; Result: correct predictions
    double value = 0.0;         ///< Apply: the learning rate; Result: the loss sum
    double norm = 0.0;          ///< Result: the gradient's norm
    std::int64_t examples = 0;  ///< Result: examples
    std::int64_t version = 0;   ///< Permit: the update the parameters it reads come from
    /// Permit: the flat indices of the values the chief watches (-1: none), which the worker
    /// reports back from its pull in `watched` (Result), as a worker thread's copy is watched.
    std::array<std::int64_t, kMaxWatchedValues> watchedIndex{-1, -1, -1, -1};
    std::array<float, kMaxWatchedValues> watched{};
};

/// The ranks of a parameter-server run's tasks in its group.
struct PsLayout {
    int workers = 1;
    int servers = 1;
    static constexpr int kChief = 0;
    int workerRank(int worker) const { return 1 + worker; }
    int serverRank(int server) const { return 1 + workers + server; }
};

void sendHeader(Communicator& group, const PsHeader& header, int peer);
PsHeader receiveHeader(Communicator& group, int peer);
void sendIndices(Communicator& group, std::span<const std::int64_t> indices, int peer);
/// Receives `count` indices into `indices` (resized).
void receiveIndices(Communicator& group, std::vector<std::int64_t>& indices, std::int64_t count, int peer);
void sendText(Communicator& group, const std::string& text, int peer);
std::string receiveText(Communicator& group, std::int64_t bytes, int peer);

/// The elements of the flat parameter buffer server `server` holds: its shards, in placement order.
class ServerShards {
public:
    ServerShards(const std::vector<ShardPlacement>& placements, int server);
    std::int64_t size() const { return m_size; }
    /// Copies this server's elements of `full` (every parameter) into `compact` (size()).
    void gather(std::span<const float> full, std::span<float> compact) const;
    /// Copies `compact` into this server's elements of `full`.
    void scatter(std::span<const float> compact, std::span<float> full) const;
    /// The shards as ranges of the compact buffer (offset into it, and into the full buffer).
    struct Range {
        std::int64_t compactOffset, fullOffset, size;
    };
    const std::vector<Range>& ranges() const { return m_ranges; }

private:
    std::vector<Range> m_ranges;
    std::int64_t m_size = 0;
};

/// Pulls and pushes between processes over `group`. A server sends its shards to a worker; a
/// worker gathers every server's shards into its copy; a worker pushes its whole gradient to the
/// chief, which orders the updates and hands each server its slice (Apply). The chief's receiver
/// thread of a worker takes that worker's gradient; each worker's slot is touched by that thread
/// and, after the worker is queued, by the stepping thread (the trainer's mutex orders them).
class ProcessParameterTransport final : public ParameterTransport {
public:
    ProcessParameterTransport(Communicator& group, PsLayout layout, const std::vector<ShardPlacement>& placements, std::int64_t parameters);
    /// A server: sends `parameters` (its shards, compact) to worker `worker`. Blocks until sent.
    std::int64_t sendParameters(int worker, std::span<const float> parameters) override;
    /// A worker: receives every server's shards into `values` (every parameter). Blocks.
    void receiveParameters(int worker, std::span<float> values) override;
    /// A worker: pushes its gradient to the chief. Blocks until sent.
    std::int64_t sendGradient(int worker, std::span<const float> gradient) override;
    /// The chief: the gradient takeGradient received from `worker` last.
    std::span<const float> receivedGradient(int worker) const override;
    /// The chief: receives worker `worker`'s gradient (after its Result header). Blocks.
    void takeGradient(int worker);
    const ServerShards& shards(int server) const { return m_shards[static_cast<std::size_t>(server)]; }

private:
    Communicator& m_group;
    PsLayout m_layout;
    std::vector<ServerShards> m_shards;
    std::vector<float> m_received;             ///< a worker: one server's shards
    std::vector<std::vector<float>> m_pushed;  ///< the chief: per worker, its last gradient
};

}  // namespace distlab
