#include "user_prompts.hpp"

#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QStatusBar>

#include "file_dialogs.hpp"

namespace distlab::ui {

UserPrompts UserPrompts::messageBoxes() {
    UserPrompts prompts;
    prompts.error = [](QWidget* parent, const QString& title, const QString& message) { QMessageBox::critical(parent, title, message); };
    prompts.confirm = [](QWidget* parent, const QString& title, const QString& question) {
        return QMessageBox::question(parent, title, question, QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    };
    prompts.saveDiscardCancel = [](QWidget* parent, const QString& title, const QString& question) {
        QMessageBox box(QMessageBox::Warning, title, question, QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
        box.button(QMessageBox::Save)->setText(QMessageBox::tr("Save…"));
        box.setDefaultButton(QMessageBox::Save);
        box.setEscapeButton(QMessageBox::Cancel);
        switch (box.exec()) {
            case QMessageBox::Save:
                return SaveChoice::Save;
            case QMessageBox::Discard:
                return SaveChoice::Discard;
            default:
                return SaveChoice::Cancel;
        }
    };
    prompts.savePath = &askSavePath;
    return prompts;
}

bool allowLosingWork(const UserPrompts& prompts, QWidget* parent, const QString& title, const QString& question,
                     const std::function<bool()>& save) {
    if (!prompts.saveDiscardCancel) return false;
    switch (prompts.saveDiscardCancel(parent, title, question)) {
        case SaveChoice::Save:
            return save();
        case SaveChoice::Discard:
            return true;
        case SaveChoice::Cancel:
            return false;
    }
    return false;
}

void showSaved(QMainWindow& window, const QString& what, const QString& path) {
    window.statusBar()->showMessage(
        QMainWindow::tr("Saved %1 to %2").arg(what, QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath())), 10000);
}

bool reportSave(QMainWindow& window, const UserPrompts& prompts, const Status& outcome, const QString& failureTitle, const QString& what,
                const QString& path) {
    if (!outcome) {
        if (prompts.error) prompts.error(&window, failureTitle, QString::fromStdString(outcome.error().message));
        return false;
    }
    showSaved(window, what, path);
    return true;
}

}  // namespace distlab::ui
