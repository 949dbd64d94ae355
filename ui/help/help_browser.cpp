#include "help/help_browser.hpp"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "help/readme_topics.hpp"

namespace distlab::ui {

HelpBrowser::HelpBrowser(QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("helpBrowser"));
    m_text = new QTextBrowser(this);
    m_text->setObjectName(QStringLiteral("helpText"));
    m_text->setOpenExternalLinks(true);  // http links go to the web browser; relative ones stay here
    m_text->setSearchPaths({QString::fromLatin1(kHelpResourceRoot)});
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);
    resize(760, 640);
}

void HelpBrowser::showText(const QString& title, const QString& markdown) {
    setWindowTitle(title);
    m_text->clearHistory();
    m_text->setMarkdown(markdown);
    show();
    raise();
    activateWindow();
}

void HelpBrowser::showFile(const QString& title, const QString& path) {
    setWindowTitle(title);
    m_text->setSource(QUrl(QStringLiteral("qrc") + path), QTextDocument::MarkdownResource);
    show();
    raise();
    activateWindow();
}

QString HelpBrowser::plainText() const { return m_text->toPlainText(); }

}  // namespace distlab::ui
