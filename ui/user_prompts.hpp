#pragma once
// How the window talks to the person: error messages and yes/no questions. Injectable, so tests
// (offscreen, nobody to click) record them instead of blocking on a modal dialog.
#include <QString>

#include <functional>

#include <distlab/core/error.hpp>

class QMainWindow;
class QWidget;

namespace distlab::ui {

struct UserPrompts {
    /// Shows an error (title, message naming the file and what is wrong).
    std::function<void(QWidget* parent, const QString& title, const QString& message)> error;
    /// Asks a yes/no question; true for yes.
    std::function<bool(QWidget* parent, const QString& title, const QString& question)> confirm;

    /// Modal QMessageBox dialogs (the app's default).
    static UserPrompts messageBoxes();
};

/// "Saved WHAT to PATH" (the absolute path) in `window`'s status bar, for ten seconds.
void showSaved(QMainWindow& window, const QString& what, const QString& path);
/// A save's outcome told to the person: the error through `prompts`, titled `failureTitle`, or
/// showSaved. Returns whether it was saved.
bool reportSave(QMainWindow& window, const UserPrompts& prompts, const Status& outcome, const QString& failureTitle,
                const QString& what, const QString& path);

}  // namespace distlab::ui
