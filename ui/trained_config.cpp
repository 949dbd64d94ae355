#include "trained_config.hpp"

#include <QCoreApplication>
#include <QLocale>

namespace distlab::ui {

TrainedConfig trainedConfig(const RunConfig& config, std::int64_t stepsDone) {
    TrainedConfig trained{config, {}};
    if (config.steps != 0 || stepsDone <= 0) return trained;
    trained.config.steps = stepsDone;
    trained.note = stepsDone == 1 ? QCoreApplication::translate("TrainedConfig", "steps 1: the one update this run trained until paused")
                                  : QCoreApplication::translate("TrainedConfig", "steps %1: the %2 updates this run trained until paused")
                                        .arg(stepsDone)
                                        .arg(QLocale().toString(static_cast<qlonglong>(stepsDone)));
    return trained;
}

}  // namespace distlab::ui
