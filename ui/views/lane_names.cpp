#include "views/lane_names.hpp"

#include <QCoreApplication>

#include <algorithm>

namespace distlab::ui {

QString laneLabel(const StrategyConfig& strategy, int lane) {
    // A cluster's lane: worker task w's local replica (global rank = w × local replicas + local).
    if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        const int local = static_cast<int>(std::max<std::int64_t>(1, strategy.replicaCount()));
        return QCoreApplication::translate("LaneNames", "worker %1 · replica %2").arg(lane / local).arg(lane % local);
    }
    const char* text = strategy.type == StrategyKind::ParameterServer ? "worker %1" : "replica %1";
    return QCoreApplication::translate("LaneNames", text).arg(lane);
}

QString laneDeviceLabel(const StrategyConfig& strategy, int lane) {
    if (strategy.type == StrategyKind::ParameterServer) return laneLabel(strategy, lane);
    if (strategy.type == StrategyKind::MultiWorkerMirrored) {
        const int local = static_cast<int>(std::max<std::int64_t>(1, strategy.replicaCount()));
        return QCoreApplication::translate("LaneNames", "worker %1 · cpu:%2").arg(lane / local).arg(lane % local);
    }
    const auto index = static_cast<std::size_t>(lane);
    const QString device =
        index < strategy.devices.size() ? QString::fromStdString(strategy.devices[index].toString()) : QStringLiteral("cpu:%1").arg(lane);
    return QCoreApplication::translate("LaneNames", "%1 (replica %2)").arg(device).arg(lane);
}

QStringList laneNames(const StrategyConfig& strategy, int lanes) {
    QStringList names;
    for (int lane = 0; lane < lanes; ++lane) names << laneDeviceLabel(strategy, lane);
    return names;
}

}  // namespace distlab::ui
