#include "task_telemetry_stream.hpp"

#include <unistd.h>

#include <chrono>

#include "distlab/distribute/partitioner.hpp"
#include "distlab/session/take_model_snapshot.hpp"
#include "distlab/session/training_session.hpp"
#include "distlab/telemetry/task_telemetry.hpp"

namespace distlab::cli {

Result<std::unique_ptr<TaskTelemetryStream>> TaskTelemetryStream::open(const std::string& address, const ClusterTask& task,
                                                                       Trainer& trainer) {
    const RunConfig& config = trainer.config();
    auto sender = TaskTelemetrySender::connect(address, config.strategy.timeoutSeconds);
    if (!sender) return sender.error();
    TaskHello hello;
    hello.token = task.token();
    hello.task = task.task().name();
    hello.replicas = trainer.replicaCount();
    hello.firstReplica = task.workerRank() * hello.replicas;
    hello.globalReplicas = static_cast<int>(config.globalReplicaCount());
    hello.pid = ::getpid();
    // The wall-clock time of the trainer's clock 0, so the app lines every task's steps up.
    const auto wallNs = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    hello.clockOriginUnixNs = wallNs - trainer.clockNs();
    hello.configHash = ClusterTask::configHash(config);
    hello.firstStep = trainer.stepsDone();
    hello.steps = config.steps;
    hello.parameters = trainer.primaryModel().store().totalSize();
    // Every replica reports its copy of parameter 0's element 0, the value the app follows by default.
    const std::int64_t watched = 0;
    trainer.setWatched({&watched, 1});
    (*sender)->sendAlways(encodeTaskMessage(hello));
    if (task.coordinator()) {
        // The data the app's decision boundary is drawn over, once (every task has it; the coordinator sends it).
        if (DataPoints points = sampleDataPoints(trainer.data()); !points.empty()) (*sender)->sendAlways(encodeTaskMessage(points));
        // A parameter-server chief's shards, once: where the partitioner put them (as every task does).
        if (config.strategy.type == StrategyKind::ParameterServer)
            (*sender)->sendAlways(encodeTaskMessage(shardLayoutOf(
                placeShards(trainer.primaryModel().store(), config.strategy.partitioner, static_cast<int>(config.cluster.ps.size())))));
    }
    const bool snapshots = task.coordinator() && hello.parameters <= kMaxSnapshotValues;
    return std::unique_ptr<TaskTelemetryStream>(new TaskTelemetryStream(std::move(*sender), hello.firstReplica, snapshots));
}

void TaskTelemetryStream::step(const StepReport& report, const std::optional<EvalResult>& test, std::int64_t clockNs) {
    std::optional<EvalRecord> evaluation;
    if (test) {
        evaluation.emplace();
        evaluation->step = report.step;
        evaluation->testLoss = test->loss;
        evaluation->testAccuracy = test->accuracy;
        evaluation->hasTest = true;
        evaluation->wallNs = clockNs;
    }
    m_sender->sendStep(encodeTaskStep(report, m_firstReplica, evaluation));
}

bool TaskTelemetryStream::evaluationDue(std::int64_t nowNs) {
    if (nowNs < m_nextEvaluationNs) return false;
    m_nextEvaluationNs = nowNs + static_cast<std::int64_t>(SessionOptions{}.evalIntervalSeconds * 1e9);
    return true;
}

void TaskTelemetryStream::maybeSnapshot(Trainer& trainer, std::int64_t nowNs, bool last) {
    if (!m_snapshots || (!last && nowNs < m_nextSnapshotNs)) return;
    const SessionOptions session;
    m_nextSnapshotNs = nowNs + static_cast<std::int64_t>(session.snapshotIntervalSeconds * 1e9);
    std::string frame = encodeTaskMessage(*takeModelSnapshot(trainer, session.boundaryResolution));
    // A model of many small parameters whose names outgrow the frame: the app would refuse it, so none is sent.
    if (frame.size() > kMaxTaskFrameBytes) {
        m_snapshots = false;
        return;
    }
    // Queued as a step is: dropped, not waited for, when the app falls behind (the next one follows).
    m_sender->sendStep(std::move(frame));
}

void TaskTelemetryStream::finish(int exitCode, const std::string& failure, const std::string& summary) {
    TaskStateMessage state;
    state.phase = exitCode == 0 ? TaskPhase::Finished : exitCode == 130 ? TaskPhase::Interrupted : TaskPhase::Failed;
    state.message = failure;
    m_sender->sendAlways(encodeTaskMessage(state));
    m_sender->sendAlways(encodeTaskMessage(TaskSummaryMessage{summary}));
}

}  // namespace distlab::cli
