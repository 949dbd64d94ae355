#include "python_highlighter.hpp"

namespace distlab::ui {
namespace {

// A block inside a triple-quoted string (a docstring) continues on the next line.
constexpr int kInDocstring = 1;
const QString kTripleQuote = QStringLiteral("\"\"\"");

}  // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document),
      m_keywords(QStringLiteral("\\b(and|as|def|elif|else|except|for|from|if|import|in|is|lambda|not|or|pass|"
                                "return|try|while|with|yield|None|True|False)\\b")),
      m_tokens(QStringLiteral("#.*$|\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'")) {
    m_keywordFormat.setForeground(QColor(0x00, 0x33, 0x99));
    m_keywordFormat.setFontWeight(QFont::Bold);
    m_stringFormat.setForeground(QColor(0x06, 0x7d, 0x17));
    m_commentFormat.setForeground(QColor(0x80, 0x80, 0x80));
    m_commentFormat.setFontItalic(true);
}

void PythonHighlighter::highlightBlock(const QString& text) {
    for (auto it = m_keywords.globalMatch(text); it.hasNext();) {
        const auto match = it.next();
        setFormat(match.capturedStart(), match.capturedLength(), m_keywordFormat);
    }
    int from = 0;
    if (previousBlockState() == kInDocstring) {
        const int end = text.indexOf(kTripleQuote);
        if (end < 0) {
            setFormat(0, text.size(), m_stringFormat);
            setCurrentBlockState(kInDocstring);
            return;
        }
        from = end + 3;
        setFormat(0, from, m_stringFormat);
    }
    setCurrentBlockState(0);
    while (from < text.size()) {
        const int triple = text.indexOf(kTripleQuote, from);
        const auto match = m_tokens.match(text, from);
        if (triple >= 0 && (!match.hasMatch() || triple <= match.capturedStart())) {
            const int end = text.indexOf(kTripleQuote, triple + 3);
            if (end < 0) {
                setFormat(triple, text.size() - triple, m_stringFormat);
                setCurrentBlockState(kInDocstring);
                return;
            }
            setFormat(triple, end + 3 - triple, m_stringFormat);
            from = end + 3;
            continue;
        }
        if (!match.hasMatch()) return;
        const bool isComment = text.at(match.capturedStart()) == QLatin1Char('#');
        setFormat(match.capturedStart(), match.capturedLength(), isComment ? m_commentFormat : m_stringFormat);
        from = match.capturedEnd();
    }
}

}  // namespace distlab::ui
