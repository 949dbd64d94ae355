#include "bridge/comm_stats.hpp"

#include <algorithm>

#include <distlab/telemetry/phase_split.hpp>
#include <distlab/telemetry/records.hpp>

#include "bridge/run_history.hpp"

namespace distlab::ui {

namespace {
std::int64_t at(const std::vector<std::int64_t>& values, int index) {
    return index >= 0 && index < static_cast<int>(values.size()) ? values[static_cast<std::size_t>(index)] : 0;
}
}  // namespace

CommStats::CommStats() = default;

void CommStats::reset() {
    m_busBandwidth.clear();
    m_algorithmBandwidth.clear();
    m_share.clear();
    m_lastBytes.clear();
    m_bytesSent.clear();
    m_communicationNs.clear();
    m_waitNs.clear();
    m_lastStep = 0;
    m_steps = 0;
    m_missed = 0;
    m_bytesFromRingFormula = false;
    ++m_version;
}

int CommStats::update(const RunHistory& history, std::int64_t gradientBytes) {
    const int replicas = history.replicaCount();
    if (static_cast<int>(m_bytesSent.size()) != replicas) {
        for (auto* values : {&m_lastBytes, &m_bytesSent, &m_communicationNs, &m_waitNs})
            values->assign(static_cast<std::size_t>(replicas), 0);
    }
    const int count = history.timelineCount();
    int first = count;  // the oldest timeline step not taken yet
    while (first > 0 && history.timelineStep(first - 1).step > m_lastStep) --first;
    if (first == count) return 0;
    m_missed += std::max<std::int64_t>(0, history.timelineStep(first).step - m_lastStep - 1);
    for (int i = first; i < count; ++i) {
        const TimelineStep& step = history.timelineStep(i);
        std::int64_t lastArrivalNs = 0, lastDoneNs = 0, communicationNs = 0, stepNs = 0;
        int reported = 0;
        for (int r = 0; r < replicas; ++r) {
            const ReplicaRecord& record = history.timelineRecord(i, r);
            if (record.step == 0) continue;  // this replica did not report the step
            const auto index = static_cast<std::size_t>(r);
            // The reduction, waiting for peers included, as the engine's phase split has it.
            const PhaseSplit phases = splitPhases(stepTimes(record));
            const auto reductionNs = static_cast<std::int64_t>(phases[Phase::Communication] + phases[Phase::Waiting]);
            m_lastBytes[index] = record.bytesSent;
            m_bytesFromRingFormula = record.bytesFromRingFormula;
            m_bytesSent[index] += record.bytesSent;
            m_communicationNs[index] += reductionNs;
            m_waitNs[index] += static_cast<std::int64_t>(phases[Phase::Waiting]);
            lastArrivalNs = std::max(lastArrivalNs, record.computeEndNs);
            lastDoneNs = std::max(lastDoneNs, record.commEndNs);
            communicationNs += reductionNs;
            stepNs += static_cast<std::int64_t>(phases.total());
            ++reported;
        }
        const auto x = static_cast<double>(step.step);
        const double wall = static_cast<double>(step.endNs) / kNanosecondsPerSecond;
        if (reported == replicas && replicas > 1) {
            if (stepNs > 0)
                m_share.append(x, wall, static_cast<float>(100.0 * static_cast<double>(communicationNs) / static_cast<double>(stepNs)));
            const std::int64_t durationNs = lastDoneNs - lastArrivalNs;
            if (gradientBytes > 0 && durationNs > 0) {
                const double algorithm = static_cast<double>(gradientBytes) / static_cast<double>(durationNs);  // bytes/ns = GB/s
                m_algorithmBandwidth.append(x, wall, static_cast<float>(algorithm));
                m_busBandwidth.append(x, wall, static_cast<float>(algorithm * 2.0 * (replicas - 1) / replicas));
            }
        }
        m_lastStep = step.step;
        ++m_steps;
    }
    ++m_version;
    return count - first;
}

std::int64_t CommStats::lastBytesSent(int replica) const { return at(m_lastBytes, replica); }
std::int64_t CommStats::totalBytesSent(int replica) const { return at(m_bytesSent, replica) + m_missed * at(m_lastBytes, replica); }
std::int64_t CommStats::totalCommunicationNs(int replica) const { return at(m_communicationNs, replica); }
std::int64_t CommStats::totalWaitNs(int replica) const { return at(m_waitNs, replica); }

}  // namespace distlab::ui
