#include "saved_run_files.hpp"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QObject>

#include <distlab/config/run_config_json.hpp>

#include "bridge/saved_history.hpp"
#include "run_files.hpp"

namespace distlab::ui {

QString savedRunFilter() { return QObject::tr("Saved runs (*.distlab-run);;All files (*)"); }

RunRecord savedRunRecord(const RunHistory& history, const RunConfig& config, const QString& path) {
    RunRecord record = recordOf(history.saved());
    record.configJson = runConfigToJson(rebaseDataPaths(config, QFileInfo(path).absolutePath()));
    record.facts["label"] = config.name;
    record.facts["saved_at"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
    return record;
}

Result<SavedRunFile> openSavedRunFile(const QString& path) {
    const std::string local = QFile::encodeName(path).toStdString();
    const std::string name = QFileInfo(path).fileName().toStdString();
    auto run = readSavedRun(local, "run");
    if (!run) return run.error();
    auto config = parseRunConfig(run->configJson, name + ": __metadata__.config");
    if (!config) return config.error();
    config->baseDirectory = QFileInfo(path).absolutePath().toStdString();
    auto history = historyOf(run->record, name);
    if (!history) return history.error();
    const QString label = QString::fromStdString(config->name);
    SavedRunFile file{std::move(*config), std::move(*history), label, run->step};
    if (const auto saved = run->record.facts.find("label"); saved != run->record.facts.end())
        file.label = QString::fromStdString(saved->second);
    return file;
}

}  // namespace distlab::ui
