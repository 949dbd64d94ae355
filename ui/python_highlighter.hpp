#pragma once
// A small Python syntax highlighter for code shown read-only (File ▸ Show as TensorFlow code):
// keywords, strings (one line and triple-quoted) and comments. GUI thread.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace distlab::ui {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT

public:
    explicit PythonHighlighter(QTextDocument* document);

protected:
    void highlightBlock(const QString& text) override;

private:
    QRegularExpression m_keywords;
    QRegularExpression m_tokens;  ///< one-line strings and comments, leftmost first: a '#' inside a string is text
    QTextCharFormat m_keywordFormat;
    QTextCharFormat m_stringFormat;
    QTextCharFormat m_commentFormat;
};

}  // namespace distlab::ui
