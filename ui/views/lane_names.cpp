#include "views/lane_names.hpp"

#include <QCoreApplication>

namespace distlab::ui {

QString laneLabel(const StrategyConfig& strategy, int lane) {
    const char* text = strategy.type == StrategyKind::ParameterServer ? "worker %1" : "replica %1";
    return QCoreApplication::translate("LaneNames", text).arg(lane);
}

QString laneDeviceLabel(const StrategyConfig& strategy, int lane) {
    if (strategy.type == StrategyKind::ParameterServer) return laneLabel(strategy, lane);
    const auto index = static_cast<std::size_t>(lane);
    const QString device =
        index < strategy.devices.size() ? QString::fromStdString(strategy.devices[index].toString()) : QStringLiteral("cpu:%1").arg(lane);
    return QCoreApplication::translate("LaneNames", "%1 (replica %2)").arg(device).arg(lane);
}

}  // namespace distlab::ui
