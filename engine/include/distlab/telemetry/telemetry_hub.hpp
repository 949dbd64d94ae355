#pragma once
// The telemetry of one session: the steps' channel (a ring, and a backlog for what the ring had no
// room for: no step is lost), one ring per replica, one for evaluations taken apart from a step.
// The session thread produces; one reader (the GUI thread) drains.
#include <memory>
#include <vector>

#include "distlab/telemetry/records.hpp"
#include "distlab/telemetry/spsc_ring.hpp"
#include "distlab/telemetry/step_channel.hpp"

namespace distlab {

class TelemetryHub {
public:
    explicit TelemetryHub(int replicas, std::size_t capacity = 8192) : m_steps(capacity), m_evals(256) {
        for (int r = 0; r < replicas; ++r) m_replicas.push_back(std::make_unique<SpscRing<ReplicaRecord>>(capacity));
    }
    int replicaCount() const { return static_cast<int>(m_replicas.size()); }
    /// The steps: publish() on the producer's side, ring() and the backlogs on the reader's.
    StepChannel& stepChannel() { return m_steps; }
    SpscRing<StepRecord>& steps() { return m_steps.ring(); }
    /// A replica's records: a full ring drops them (the step's own record still arrives).
    SpscRing<ReplicaRecord>& replica(int index) { return *m_replicas[static_cast<std::size_t>(index)]; }
    /// Evaluations forced between steps (a pause, the last step); the others ride on their StepRecord.
    SpscRing<EvalRecord>& evals() { return m_evals; }

private:
    StepChannel m_steps;
    std::vector<std::unique_ptr<SpscRing<ReplicaRecord>>> m_replicas;
    SpscRing<EvalRecord> m_evals;
};

}  // namespace distlab
