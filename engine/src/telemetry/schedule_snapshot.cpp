#include "distlab/telemetry/schedule_snapshot.hpp"

#include <algorithm>

namespace distlab {

std::vector<HeldActivations> heldActivations(const ScheduleSnapshot& schedule, std::size_t lane) {
    // Each pass changes what is held when it ends; the lane's cells are in time order, and on one
    // device the passes do not overlap, so their ends are too.
    std::vector<HeldActivations> points{{schedule.beginNs, 0}};
    if (lane >= schedule.lanes.size()) return points;
    std::int64_t held = 0;
    for (const ScheduleCell& cell : schedule.lanes[lane]) {
        if (cell.stage < 0 || static_cast<std::size_t>(cell.stage) >= schedule.stageActivationBytes.size()) continue;
        const std::int64_t bytes = schedule.stageActivationBytes[static_cast<std::size_t>(cell.stage)];
        if (cell.kind == SpanKind::Forward)
            held += bytes;
        else if (cell.kind == SpanKind::Backward || cell.kind == SpanKind::BackwardWeight)
            held = std::max<std::int64_t>(0, held - bytes);
        else
            continue;  // B keeps them for its W
        points.push_back({cell.endNs, held});
    }
    return points;
}

}  // namespace distlab
