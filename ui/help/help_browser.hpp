#pragma once
// The window Help ▸ Guide shows its topics in: a README section or a reference document from
// the built-in help (readme_topics.hpp), with the links between them followed inside it and web
// links opened in the browser. One per main window, not modal. GUI thread.
#include <QDialog>

class QTextBrowser;

namespace distlab::ui {

class HelpBrowser : public QDialog {
    Q_OBJECT

public:
    explicit HelpBrowser(QWidget* parent = nullptr);

    /// Shows `markdown` under the window title `title`.
    void showText(const QString& title, const QString& markdown);
    /// Shows the Markdown file at `path` (a built-in resource, ":/help/docs/semantics.md").
    void showFile(const QString& title, const QString& path);
    /// The text shown, as plain text (tests).
    QString plainText() const;

private:
    QTextBrowser* m_text = nullptr;
};

}  // namespace distlab::ui
