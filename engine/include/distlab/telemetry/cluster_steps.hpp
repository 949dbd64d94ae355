#pragma once
// Joins the steps a cluster's tasks report (task_telemetry.hpp) into the records of one run, as a
// session in one process makes them: a step is whole once every task still training has sent it;
// its replicas are every task's local replicas (numbered globally), its times on one clock, its
// phase split the mean over all of them (phase_split.hpp). Qt-free; the app feeds it from its
// sockets, one thread.
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "distlab/telemetry/records.hpp"
#include "distlab/telemetry/task_telemetry.hpp"

namespace distlab {

struct ClusterStep {
    StepRecord step;
    std::vector<ReplicaRecord> replicas;  ///< every task's, by global replica index
};

class ClusterStepJoin {
public:
    /// Pending steps at most: a task this far behind the others has its older steps handed over
    /// without it (their replica records missing), so memory stays bounded.
    static constexpr std::size_t kMaxPendingSteps = 1024;

    explicit ClusterStepJoin(int tasks);
    /// Task `task`'s step; its times are `clockOffsetNs` behind the run's clock (added to them).
    void add(int task, const TaskStep& step, std::int64_t clockOffsetNs);
    /// Task `task` sends no more steps (it ended): steps now waiting only for it become whole.
    void taskEnded(int task);
    /// The whole steps, in order; removed from the join.
    std::vector<ClusterStep> takeReady();
    /// Steps waiting for some task.
    std::size_t pending() const { return m_pending.size(); }

private:
    struct Pending {
        TaskStep merged;             // the first report's record, then every task's replicas
        std::vector<bool> reported;  // per task
        bool evaluated = false;
    };
    bool whole(const Pending& pending) const;

    int m_tasks;
    std::vector<bool> m_ended;
    std::map<std::int64_t, Pending> m_pending;
    std::int64_t m_lastTaken = std::numeric_limits<std::int64_t>::min();  ///< the last step handed over
};

/// The whole step's record from its replicas' records: its start, end and duration over every
/// replica, its phase split the mean over the active ones, the spread of the first watched value.
void finishClusterStep(ClusterStep& step);

}  // namespace distlab
