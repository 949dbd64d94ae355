#include "views/lane_names.hpp"

#include <QCoreApplication>

namespace distlab::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("LaneNames", text); }
}  // namespace

QString laneLabel(const StrategyConfig& strategy, int lane) {
    return (strategy.type == StrategyKind::ParameterServer ? tr("worker %1") : tr("replica %1")).arg(lane);
}

QString laneDeviceLabel(const StrategyConfig& strategy, int lane) {
    if (strategy.type == StrategyKind::ParameterServer) return laneLabel(strategy, lane);
    const auto index = static_cast<std::size_t>(lane);
    const QString device = index < strategy.devices.size() ? QString::fromStdString(strategy.devices[index].toString())
                                                           : QStringLiteral("cpu:%1").arg(lane);
    return tr("%1 (replica %2)").arg(device).arg(lane);
}

}  // namespace distlab::ui
