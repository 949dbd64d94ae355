#include "distlab/study/study_curves.hpp"

namespace distlab {

void RecentTimelines::add(const StepReport& report) {
    StudyTimelineStep& slot = m_slots[m_next];
    slot.step = report.step;
    slot.startNs = report.startNs;
    slot.endNs = report.endNs;
    slot.lanes.clear();  // keeps its capacity
    for (std::size_t r = 0; r < report.replicas.size(); ++r) {
        const ReplicaStepStats& lane = report.replicas[r];
        if (lane.active) slot.lanes.push_back({static_cast<int>(r), stepTimes(lane, report.endNs), lane.bytesSent});
    }
    m_next = (m_next + 1) % m_slots.size();
    m_count = std::min(m_count + 1, m_slots.size());
}

std::vector<StudyTimelineStep> RecentTimelines::ordered() const {
    std::vector<StudyTimelineStep> out;
    out.reserve(m_count);
    const std::size_t first = (m_next + m_slots.size() - m_count) % m_slots.size();
    for (std::size_t i = 0; i < m_count; ++i) out.push_back(m_slots[(first + i) % m_slots.size()]);
    return out;
}

}  // namespace distlab
