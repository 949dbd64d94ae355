#include "distlab/telemetry/cluster_steps.hpp"

#include <algorithm>
#include <limits>

#include "distlab/telemetry/phase_split.hpp"

namespace distlab {

namespace {
void shift(ReplicaRecord& record, std::int64_t offsetNs) {
    record.startNs += offsetNs;
    record.computeEndNs += offsetNs;
    record.commEndNs += offsetNs;
    record.updateEndNs += offsetNs;
    record.stepEndNs += offsetNs;
    if (record.networkNs > 0) record.networkBeginNs += offsetNs;
}
}  // namespace

ClusterStepJoin::ClusterStepJoin(int tasks) : m_tasks(tasks), m_ended(static_cast<std::size_t>(tasks), false) {}

void ClusterStepJoin::add(int task, const TaskStep& step, std::int64_t clockOffsetNs) {
    // A step already handed over (a task far behind, whose step went on without it) is too late.
    if (task < 0 || task >= m_tasks || step.step.step <= m_lastTaken) return;
    auto [it, fresh] = m_pending.try_emplace(step.step.step);
    Pending& pending = it->second;
    if (fresh) {
        pending.merged.step = step.step;
        pending.merged.step.startNs += clockOffsetNs;
        pending.merged.step.endNs += clockOffsetNs;
        pending.merged.step.evaluation = {};  // kept below from the first task that evaluated
        pending.reported.assign(static_cast<std::size_t>(m_tasks), false);
    }
    if (pending.reported[static_cast<std::size_t>(task)]) return;  // a task reports a step once
    pending.reported[static_cast<std::size_t>(task)] = true;
    // Every task evaluates the same weights (they are in step); the first evaluation reported is kept.
    if (!pending.evaluated && step.step.evaluation.step > 0) {
        pending.merged.step.evaluation = step.step.evaluation;
        pending.merged.step.evaluation.wallNs += clockOffsetNs;
        pending.evaluated = true;
    }
    for (ReplicaRecord record : step.replicas) {
        shift(record, clockOffsetNs);
        pending.merged.replicas.push_back(record);
    }
    // A task far behind: the oldest step goes on without it.
    if (m_pending.size() > kMaxPendingSteps) {
        std::vector<bool>& oldest = m_pending.begin()->second.reported;
        std::fill(oldest.begin(), oldest.end(), true);
    }
}

void ClusterStepJoin::taskEnded(int task) {
    if (task >= 0 && task < m_tasks) m_ended[static_cast<std::size_t>(task)] = true;
}

bool ClusterStepJoin::whole(const Pending& pending) const {
    for (int t = 0; t < m_tasks; ++t)
        if (!pending.reported[static_cast<std::size_t>(t)] && !m_ended[static_cast<std::size_t>(t)]) return false;
    return true;
}

std::vector<ClusterStep> ClusterStepJoin::takeReady() {
    std::vector<ClusterStep> ready;
    // In step order: a step waits for the ones before it, so the history gets them in order.
    while (!m_pending.empty() && whole(m_pending.begin()->second)) {
        ClusterStep step{m_pending.begin()->second.merged.step, std::move(m_pending.begin()->second.merged.replicas)};
        m_lastTaken = m_pending.begin()->first;
        m_pending.erase(m_pending.begin());
        std::sort(step.replicas.begin(), step.replicas.end(),
                  [](const ReplicaRecord& a, const ReplicaRecord& b) { return a.replica < b.replica; });
        finishClusterStep(step);
        ready.push_back(std::move(step));
    }
    return ready;
}

void finishClusterStep(ClusterStep& cluster) {
    StepRecord& step = cluster.step;
    std::int64_t end = step.endNs;
    for (const ReplicaRecord& record : cluster.replicas) end = std::max(end, record.stepEndNs);
    std::int64_t start = step.startNs;
    for (const ReplicaRecord& record : cluster.replicas)
        if (record.active) start = std::min(start, record.startNs);
    step.endNs = end;
    step.durationNs = end - start;
    step.phases = {};
    step.hasLanes = false;
    float low = std::numeric_limits<float>::infinity(), high = -low;
    int active = 0;
    for (ReplicaRecord& record : cluster.replicas) {
        record.stepEndNs = end;  // the slowest replica of the whole cluster ends everyone's step
        if (!record.active) continue;
        step.phases.add(splitPhases(stepTimes(record)));
        low = std::min(low, record.watched[0]);
        high = std::max(high, record.watched[0]);
        ++active;
    }
    if (active > 0) {
        PhaseSplit mean;
        mean.add(step.phases, 1.0 / active);
        step.phases = mean;
        step.hasLanes = true;
        step.watchedSpread = high - low;
    }
}

}  // namespace distlab
