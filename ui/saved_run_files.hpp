#pragma once
// The app's saved runs (docs/interfaces.md §6.1, §12.2): File ▸ Save run writes the current run's
// checkpoint with its curves and metrics in one file; File ▸ Open saved run and Compare with saved
// run read one back. GUI thread; blocks on disk I/O.
#include <QString>

#include <distlab/core/error.hpp>
#include <distlab/config/run_config.hpp>
#include <distlab/formats/saved_run.hpp>

#include "bridge/run_history.hpp"

namespace distlab::ui {

/// A saved run as the app opens it.
struct SavedRunFile {
    RunConfig config;  ///< data paths resolved against the file's folder
    SavedHistory history;
    QString label;  ///< the name it was saved under
    std::int64_t step = 0;
};

/// The file name filter and suffix of saved runs.
QString savedRunFilter();
inline constexpr const char* kSavedRunSuffix = "distlab-run";

/// What File ▸ Save run stores besides the checkpoint: `history`'s curves and rows, the config
/// (data paths relative to the folder of `path`) and the label.
RunRecord savedRunRecord(const RunHistory& history, const RunConfig& config, const QString& path);
/// Reads, checks and parses a saved run; errors name the file and the part.
Result<SavedRunFile> openSavedRunFile(const QString& path);

}  // namespace distlab::ui
