#pragma once
// A StepReport as the fixed-size records the session pushes into its telemetry rings: the one
// translation, so the app's views see exactly what the CLI's metrics see.
#include <cstdint>

#include "distlab/telemetry/step_report.hpp"
#include "distlab/telemetry/records.hpp"

namespace distlab {

/// The whole step, with its time split (splitStep) and its length (stepDurationNs) worked out here
/// once for every view and export.
StepRecord toStepRecord(const StepReport& report);
/// Lane `replica`'s part of the step (its step ends when the report's does); `watchGeneration`
/// says which setWatched() choice its watched values answer.
ReplicaRecord toReplicaRecord(const StepReport& report, int replica, std::uint32_t watchGeneration);

}  // namespace distlab
