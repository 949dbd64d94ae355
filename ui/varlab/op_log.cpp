#include "varlab/op_log.hpp"

#include <QEvent>
#include <QPalette>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

#include "varlab/varlab_text.hpp"

namespace distlab::ui {

namespace {
constexpr qreal kEntrySpacingPx = 8.0;
}  // namespace

OpLog::OpLog(QWidget* parent) : QTextBrowser(parent) {
    setObjectName(QStringLiteral("varlabLog"));
    setOpenLinks(false);
    setPlaceholderText(
        tr("Every creation and op you apply appears here, newest first, with the copies it left "
           "and the rule that decided the outcome (errors in red)."));
}

void OpLog::addEntry(Entry entry) {
    m_entries.push_front(std::move(entry));
    prependBlock(m_entries.front());
    // Drop the oldest entry (the last block) once over the bound: the cost of an entry stays constant.
    while (m_entries.size() > static_cast<std::size_t>(kMaxEntries)) {
        m_entries.pop_back();
        QTextCursor cursor(document()->lastBlock());
        cursor.movePosition(QTextCursor::PreviousCharacter);  // the separator before the last block
        cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
        cursor.removeSelectedText();
    }
    // Show the newest entry, the one the user just caused (the view's own cursor would pull it elsewhere).
    setTextCursor(QTextCursor(document()));
    verticalScrollBar()->setValue(0);
}

void OpLog::clearEntries() {
    m_entries.clear();
    clear();  // the placeholder shows again
}

int OpLog::blockCount() const { return m_entries.empty() ? 0 : document()->blockCount(); }

QString OpLog::entryText(int index) const {
    if (index < 0 || index >= entryCount()) return {};
    const Entry& entry = m_entries[static_cast<std::size_t>(index)];
    const QString text = entry.title + QLatin1Char('\n') + entry.outcome;
    return entry.rule.isEmpty() ? text : text + QLatin1Char('\n') + entry.rule;
}

bool OpLog::entryIsError(int index) const { return index >= 0 && index < entryCount() && m_entries[static_cast<std::size_t>(index)].error; }

void OpLog::changeEvent(QEvent* event) {
    QTextBrowser::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) rebuild();  // the muted rule colour follows the theme
}

QString OpLog::entryHtml(const Entry& entry) const {
    const QString outcomeStyle =
        entry.error ? QStringLiteral(" style=\"color:%1; font-weight:bold\"").arg(QLatin1String(kVarlabErrorColor)) : QString();
    const QString rule = entry.rule.isEmpty() ? QString()
                                              : QStringLiteral("<br><span style=\"color:%1\">%2</span>")
                                                    .arg(palette().color(QPalette::PlaceholderText).name(), entry.rule.toHtmlEscaped());
    // One block per entry (lines joined by <br>), so prepending and trimming work on whole blocks.
    return QStringLiteral("<b>%1</b><br><span%2>%3</span>%4")
        .arg(entry.title.toHtmlEscaped(), outcomeStyle, entry.outcome.toHtmlEscaped(), rule);
}

void OpLog::prependBlock(const Entry& entry) {
    const bool first = document()->isEmpty();
    QTextCursor cursor(document());
    cursor.movePosition(QTextCursor::Start);
    if (!first) {
        cursor.insertBlock();  // the older entries move down one block
        cursor.movePosition(QTextCursor::Start);
    }
    cursor.setCharFormat(QTextCharFormat());
    cursor.insertHtml(entryHtml(entry));
    QTextBlockFormat format;
    format.setBottomMargin(kEntrySpacingPx);
    cursor.setBlockFormat(format);  // after the insertion, which resets the block's format
}

void OpLog::rebuild() {
    clear();
    for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it) prependBlock(*it);
}

}  // namespace distlab::ui
