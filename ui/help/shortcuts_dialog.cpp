#include "help/shortcuts_dialog.hpp"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace distlab::ui {

namespace {
/// A menu text as shown: no mnemonic ampersands, no trailing ellipsis.
QString shownText(QString text) {
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    if (text.endsWith(QChar(0x2026))) text.chop(1);
    return text.trimmed();
}

void collect(const QList<QAction*>& actions, const QString& path, QList<ShortcutEntry>& entries) {
    for (const QAction* action : actions) {
        if (action->isSeparator()) continue;
        const QString name = path + shownText(action->text());
        if (action->menu() != nullptr) {
            collect(action->menu()->actions(), name + QStringLiteral(" ▸ "), entries);
            continue;
        }
        QStringList keys;
        for (const QKeySequence& key : action->shortcuts()) keys.append(key.toString(QKeySequence::NativeText));
        if (!keys.isEmpty()) entries.append(ShortcutEntry{name, keys.join(QStringLiteral(", "))});
    }
}
}  // namespace

QList<ShortcutEntry> menuShortcuts(const QMenuBar& bar) {
    QList<ShortcutEntry> entries;
    collect(bar.actions(), QString(), entries);
    return entries;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar& bar, QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard shortcuts"));
    const QList<ShortcutEntry> entries = menuShortcuts(bar);
    auto* table = new QTableWidget(static_cast<int>(entries.size()), 2, this);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Command"), tr("Shortcut")});
    table->verticalHeader()->setVisible(false);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionMode(QAbstractItemView::NoSelection);  // a list to read, nothing to pick
    table->setFocusPolicy(Qt::NoFocus);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    for (int row = 0; row < entries.size(); ++row) {
        table->setItem(row, 0, new QTableWidgetItem(entries[row].command));
        table->setItem(row, 1, new QTableWidgetItem(entries[row].shortcut));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table, 1);
    layout->addWidget(buttons);
    resize(std::max(520, table->horizontalHeader()->length() + 60), 560);
}

}  // namespace distlab::ui
