#pragma once
// The app's file dialogs: they start in the folder last used (kept in the settings) and a save adds
// the suffix when the name has none. GUI thread.
#include <QString>

class QWidget;

namespace distlab::ui {

/// A path to save to, or empty when the person cancelled.
QString askSavePath(QWidget* parent, const QString& caption, const QString& filter, const QString& suffix);
/// A path to open, or empty when the person cancelled.
QString askOpenPath(QWidget* parent, const QString& caption, const QString& filter);

}  // namespace distlab::ui
