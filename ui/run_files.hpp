#pragma once
// The app's files: run configs (JSON of docs/interfaces.md §1, data paths kept relative to the config's
// folder), metrics CSV, the timeline as a Chrome trace, and PNG pictures of any widget. Every
// function blocks on disk I/O (small files) and returns an Error naming the file; GUI thread.
#include <QString>
#include <QStringList>

#include <distlab/core/error.hpp>
#include <distlab/config/run_config.hpp>

class QWidget;

namespace distlab::ui {

class RunHistory;

/// Reads and validates a run config (loadRunConfig), with `--set` style overrides applied first.
Result<RunConfig> openRunConfigFile(const QString& path, const QStringList& overrides = {});
/// `config` with its data paths rewritten relative to `directory` (absolute ones stay absolute
/// when they lie outside it) and baseDirectory = directory.
RunConfig rebaseDataPaths(const RunConfig& config, const QString& directory);
/// Validates and writes `config` atomically as JSON, data paths relative to the file's folder.
Status saveRunConfigFile(const RunConfig& config, const QString& path);
/// Writes the history's metrics table as CSV (header line, one row per kept step, empty = unknown).
Status exportMetricsCsv(const RunHistory& history, const QString& path);
/// Writes the timeline's steps as a Chrome trace (one track per device).
Status exportTimelineTrace(const RunHistory& history, const QStringList& deviceNames, const QString& runName, const QString& path);
/// Where File ▸ Examples looks for example runs, first match wins: where the package installs them
/// (`<applicationDir>/../share/distlab/examples`, then `distlab/examples` under the XDG data folders,
/// e.g. /usr/share) and the source tree's resources/examples (a build that is not installed).
QStringList exampleFolders(const QString& applicationDir);
/// The folders of one kind of the app's resources ("examples", "lessons"), in that order: the
/// package's `<applicationDir>/../share/distlab/<kind>`, `distlab/<kind>` under the XDG data
/// folders, the source tree's resources/<kind>.
QStringList resourceFolders(const QString& applicationDir, const QString& kind);
/// What an example file holds: a run config (*.json) or a study (*.study.json).
enum class ExampleKind { Run, Study };
/// The examples of `kind` in those folders, sorted by file name; a name found twice comes from the
/// first folder.
QStringList exampleFiles(const QString& applicationDir, ExampleKind kind = ExampleKind::Run);
/// Saves a picture of `widget` (QWidget::grab) as PNG.
Status saveWidgetPng(QWidget* widget, const QString& path);

}  // namespace distlab::ui
