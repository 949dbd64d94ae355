#pragma once
// What the views call lane r of a run: a replica on its logical device, or, for parameter
// servers, a worker (its telemetry lane; the servers have their own view). GUI thread.
#include <QString>
#include <QStringList>

#include <distlab/config/run_config.hpp>

namespace distlab::ui {

/// "replica 2", "worker 2" for parameter servers, "worker 1 · replica 0" for a cluster's lanes:
/// legends and short labels.
QString laneLabel(const StrategyConfig& strategy, int lane);
/// laneDeviceLabel of lanes 0 .. lanes - 1.
QStringList laneNames(const StrategyConfig& strategy, int lanes);
/// "cpu:2 (replica 2)", "worker 2" for parameter servers, "worker 1 · cpu:0" for a
/// cluster's: timeline lanes.
QString laneDeviceLabel(const StrategyConfig& strategy, int lane);

}  // namespace distlab::ui
