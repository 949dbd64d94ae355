#pragma once
// How the window talks to the person: error messages and yes/no questions. Injectable, so tests
// (offscreen, nobody to click) record them instead of blocking on a modal dialog.
#include <QString>

#include <functional>

#include <distlab/core/error.hpp>

class QMainWindow;
class QWidget;

namespace distlab::ui {

/// The answer to "save what would be lost first?".
enum class SaveChoice { Save, Discard, Cancel };

struct UserPrompts {
    /// Shows an error (title, message naming the file and what is wrong).
    std::function<void(QWidget* parent, const QString& title, const QString& message)> error;
    /// Asks a yes/no question; true for yes.
    std::function<bool(QWidget* parent, const QString& title, const QString& question)> confirm;
    /// Before work is lost (a trained run, a study's results): Save it first, Discard it, or Cancel.
    std::function<SaveChoice(QWidget* parent, const QString& title, const QString& question)> saveDiscardCancel;
    /// A path to save to, empty when the person cancelled (file_dialogs.hpp askSavePath's arguments).
    std::function<QString(QWidget* parent, const QString& caption, const QString& filter, const QString& suffix,
                          const QString& suggestedName)>
        savePath;

    /// Modal QMessageBox dialogs (the app's default).
    static UserPrompts messageBoxes();
};

/// Before work is lost: asks `prompts` Save / Discard / Cancel; true to go on (Discard, or Save and
/// `save()` saved it), false to stop (Cancel, no prompt to ask with, or a save cancelled or failed).
bool allowLosingWork(const UserPrompts& prompts, QWidget* parent, const QString& title, const QString& question,
                     const std::function<bool()>& save);
/// "Saved WHAT to PATH" (the absolute path) in `window`'s status bar, for ten seconds.
void showSaved(QMainWindow& window, const QString& what, const QString& path);
/// A save's outcome told to the person: the error through `prompts`, titled `failureTitle`, or
/// showSaved. Returns whether it was saved.
bool reportSave(QMainWindow& window, const UserPrompts& prompts, const Status& outcome, const QString& failureTitle, const QString& what,
                const QString& path);

}  // namespace distlab::ui
