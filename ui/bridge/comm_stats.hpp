#pragma once
// The communication numbers of the current run, from the engine's per-replica step records:
// the bus bandwidth of every step's all-reduce (nccl-tests' convention: algbw = gradient bytes /
// time, busbw = algbw × 2(N−1)/N, the time running from the last replica's arrival to the last
// replica's finish), the share of each step spent communicating, and what each device sent and
// how long it communicated. Reads RunHistory's timeline (the newest steps) each tick, so it sees
// every step unless one tick brings more than RunHistory::kTimelineSteps. GUI thread only.
#include <cstdint>
#include <vector>

#include "bridge/decimated_series.hpp"

namespace distlab::ui {

class RunHistory;

class CommStats {
public:
    CommStats();

    /// Forgets everything (a new run).
    void reset();
    /// Takes the steps of `history`'s timeline newer than the last one taken; `gradientBytes` is
    /// the size of one replica's gradient (0 when unknown: no bandwidth points). Returns the
    /// steps taken. Allocation-free once the series are at capacity.
    int update(const RunHistory& history, std::int64_t gradientBytes);

    /// Bus bandwidth of each step's all-reduce, GB/s (1e9 bytes per second).
    const DecimatedSeries& busBandwidth() const { return m_busBandwidth; }
    /// Algorithm bandwidth (gradient bytes / time), GB/s.
    const DecimatedSeries& algorithmBandwidth() const { return m_algorithmBandwidth; }
    /// Share of each step the replicas spent in the all-reduce (waiting included), percent.
    const DecimatedSeries& communicationShare() const { return m_share; }

    int replicas() const { return static_cast<int>(m_bytesSent.size()); }
    /// Steps whose records were taken.
    std::int64_t stepsTaken() const { return m_steps; }
    /// Steps whose records had already left the timeline when this looked (a very slow tick).
    std::int64_t stepsMissed() const { return m_missed; }
    /// Every step of the run so far: taken + missed.
    std::int64_t steps() const { return m_steps + m_missed; }
    /// Bytes replica r sent in its latest step, and over the run (a missed step counts as the
    /// latest: a run sends the same bytes every step).
    std::int64_t lastBytesSent(int replica) const;
    std::int64_t totalBytesSent(int replica) const;
    /// The bytes are the ring's formula, not a count (the last record's ReplicaRecord::bytesFromRingFormula: GPU runs).
    bool bytesFromRingFormula() const { return m_bytesFromRingFormula; }
    /// Replica r's time in the all-reduce over the steps taken, and the part it waited for peers, ns
    /// (divide by stepsTaken() for a mean).
    std::int64_t totalCommunicationNs(int replica) const;
    std::int64_t totalWaitNs(int replica) const;
    /// Changes whenever a step is taken.
    std::uint64_t version() const { return m_version; }

private:
    DecimatedSeries m_busBandwidth;
    DecimatedSeries m_algorithmBandwidth;
    DecimatedSeries m_share;
    std::vector<std::int64_t> m_lastBytes;
    std::vector<std::int64_t> m_bytesSent;
    std::vector<std::int64_t> m_communicationNs;
    std::vector<std::int64_t> m_waitNs;
    std::int64_t m_lastStep = 0;
    std::int64_t m_steps = 0;
    std::int64_t m_missed = 0;
    bool m_bytesFromRingFormula = false;
    std::uint64_t m_version = 0;
};

}  // namespace distlab::ui
