#pragma once
// The telemetry a task of a cluster streams to the app that watches it (distlab-worker
// --telemetry): the messages of engine/proto/task_telemetry.proto, each in protobuf's delimited
// frame (a varint length, then the message). Encoding on the task's side; on the app's, an
// incremental reader that takes bytes as a socket delivers them and refuses anything that is not a
// frame of a task message: whatever connects to the app's port is untrusted until its hello
// carries the run's token (fuzzed: tests/fuzz/fuzz_task_telemetry.cpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "distlab/core/error.hpp"
#include "distlab/telemetry/data_points.hpp"
#include "distlab/telemetry/model_snapshot.hpp"
#include "distlab/telemetry/records.hpp"
#include "distlab/telemetry/shard_layout.hpp"
#include "distlab/telemetry/step_report.hpp"

namespace distlab {

/// A task's first message: who it is, where its replicas sit among the cluster's, its clock.
struct TaskHello {
    std::string token;  ///< the cluster's token; the app refuses a connection with any other
    std::string task;   ///< "worker:1"
    int firstReplica = 0;
    int replicas = 0;
    int globalReplicas = 0;
    std::int64_t pid = 0;
    std::int64_t clockOriginUnixNs = 0;  ///< the wall-clock time of the task's clock 0
    std::string configHash;              ///< ClusterTask::configHash of the config it runs
    std::int64_t firstStep = 0;          ///< updates done before (a resumed checkpoint's)
    std::int64_t steps = 0;              ///< its step limit; 0: until stopped
    std::int64_t parameters = 0;         ///< the model's parameter count
};

/// One step of one task: the step's record as the task saw it (the loss and accuracy are the
/// global batch's on every task) and its local replicas' records, numbered globally.
struct TaskStep {
    StepRecord step;
    std::vector<ReplicaRecord> replicas;
};

enum class TaskPhase { Training, Finished, Failed, Interrupted };
/// "training", "finished", "failed", "interrupted".
const char* taskPhaseName(TaskPhase phase);

struct TaskStateMessage {
    TaskPhase phase = TaskPhase::Training;
    std::string message;  ///< why it failed; empty otherwise
};

/// The JSON summary line the task prints last.
struct TaskSummaryMessage {
    std::string json;
};

/// The coordinator's model, for the app's diagram and decision boundary (ModelSnapshot), its
/// sample of the 2-D data the boundary is drawn over (DataPoints), and a parameter-server chief's
/// shards (ShardLayout).
using TaskMessage = std::variant<TaskHello, TaskStep, TaskStateMessage, TaskSummaryMessage, ModelSnapshot, DataPoints, ShardLayout>;

/// A frame's largest message: a step of kMaxTaskReplicas replicas fits many times over.
inline constexpr std::size_t kMaxTaskFrameBytes = std::size_t{1} << 20;
/// The largest model whose snapshots a task streams: 4 bytes a value, with room in a frame for the
/// parameters' names and a boundary grid of kMaxSnapshotGrid cells a side (960,000 + 65,536 bytes
/// and a few thousand of names and shapes < kMaxTaskFrameBytes). A 784-256-128-10 model (W1,
/// Fashion-MNIST) has 235,146.
inline constexpr std::int64_t kMaxSnapshotValues = 240'000;
inline constexpr int kMaxSnapshotGrid = 128;
/// The most shards a chief reports (every variable's, over at most this many servers).
inline constexpr int kMaxReportedShards = 4096;
inline constexpr int kMaxReportedServers = 1024;
/// The most local replicas one task may report.
inline constexpr int kMaxTaskReplicas = 4096;

/// The frame of `message`.
std::string encodeTaskMessage(const TaskMessage& message);
/// The frame of one step: `report`'s replicas become global replicas firstReplica, firstReplica+1...
/// (their records exactly as the app's own sessions make them: toReplicaRecord), with `evaluation`
/// when the task evaluated after the step.
std::string encodeTaskStep(const StepReport& report, int firstReplica, const std::optional<EvalRecord>& evaluation);

/// Reads frames from a byte stream. One reader per connection; not thread-safe.
class TaskTelemetryReader {
public:
    /// Appends bytes as they came.
    void append(std::string_view bytes);
    /// The next whole message; nullopt while more bytes are needed. An Error when the stream is not
    /// task telemetry (a frame too long or empty, not a TaskMessage, a field out of range): the
    /// reader stays failed, and the caller drops the connection.
    Result<std::optional<TaskMessage>> next();
    /// Bytes appended and not yet read as messages.
    std::size_t buffered() const { return m_buffer.size() - m_offset; }

private:
    std::string m_buffer;
    std::size_t m_offset = 0;
    std::optional<Error> m_failed;
};

}  // namespace distlab
