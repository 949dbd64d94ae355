#pragma once
// Help ▸ Keyboard shortcuts: every menu command that has a shortcut, read from the menu bar's
// actions when the dialog opens (so the list is the app's real shortcuts, never a copy that drifts).
// GUI thread.
#include <QDialog>
#include <QList>
#include <QString>

class QMenuBar;

namespace distlab::ui {

struct ShortcutEntry {
    QString command;   ///< where it is and what it is called: "Run ▸ Play"
    QString shortcut;  ///< as the platform writes it: "Ctrl+Return"
};

/// The commands of `bar`'s menus (submenus included) that have a shortcut, in menu order.
QList<ShortcutEntry> menuShortcuts(const QMenuBar& bar);

class ShortcutsDialog : public QDialog {
    Q_OBJECT

public:
    explicit ShortcutsDialog(const QMenuBar& bar, QWidget* parent = nullptr);
};

}  // namespace distlab::ui
