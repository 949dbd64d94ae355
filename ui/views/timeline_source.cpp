#include "views/timeline_source.hpp"

namespace distlab::ui {

std::optional<TimelineLaneTimes> HistoryTimelineSource::lane(int index, int lane) const {
    if (m_history == nullptr || lane < 0 || lane >= m_history->replicaCount()) return std::nullopt;
    const ReplicaRecord& record = m_history->timelineRecord(index, lane);
    if (record.step != m_history->timelineStep(index).step) return std::nullopt;  // not reported (dropped)
    return TimelineLaneTimes{stepTimes(record), record.bytesSent, record.bytesFromRingFormula, record.networkBeginNs, record.networkNs};
}

}  // namespace distlab::ui
