#pragma once
// The app's file dialogs: they start in the folder last used (kept in the settings), a save
// proposes a name made from the run's (or study's) name, and adds the suffix when the name has
// none. GUI thread.
#include <QString>

#include <string>

class QWidget;

namespace distlab::ui {

/// A path to save to, or empty when the person cancelled. The dialog proposes `suggestedName` (a
/// file name, no folder; see suggestedFileName) in the folder last used.
QString askSavePath(QWidget* parent, const QString& caption, const QString& filter, const QString& suffix, const QString& suggestedName);
/// "spiral-mirrored-4.py" for the run or study `name` and the suffix "py" (exportFileStem: file-safe).
QString suggestedFileName(const std::string& name, const QString& suffix);
/// A path to open, or empty when the person cancelled.
QString askOpenPath(QWidget* parent, const QString& caption, const QString& filter);

}  // namespace distlab::ui
