// MainWindow: the Help menu (lessons, the README's topics, the reference documents, the keyboard
// shortcuts, About).
#include "main_window.hpp"

#include <QAction>
#include <QMenu>
#include <QMenuBar>

#include "help/about_dialog.hpp"
#include "help/help_browser.hpp"
#include "help/readme_topics.hpp"
#include "help/shortcuts_dialog.hpp"

namespace distlab::ui {

void MainWindow::buildHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    buildLessonMenu(help);  // main_window_lessons.cpp
    auto helpBrowser = [this] {
        if (m_helpBrowser == nullptr) m_helpBrowser = new HelpBrowser(this);
        return m_helpBrowser;
    };
    // The README's sections, as built into the app: a topic is listed only when there is text to show.
    const QList<HelpTopic> topics = readmeTopics(builtInReadme());
    if (!topics.isEmpty()) {
        QMenu* guide = help->addMenu(tr("&Guide"));
        guide->setObjectName(QStringLiteral("guideMenu"));
        for (const HelpTopic& topic : topics)
            guide->addAction(topic.title, this, [helpBrowser, topic] { helpBrowser()->showText(topic.title, topic.markdown); });
        guide->addSeparator();
        for (const auto& [title, path] : helpDocuments())
            guide->addAction(title, this, [helpBrowser, title, path] { helpBrowser()->showFile(title, path); });
    }
    QAction* shortcuts = help->addAction(tr("&Keyboard shortcuts…"), this, [this] {
        auto* dialog = new ShortcutsDialog(*menuBar(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    shortcuts->setObjectName(QStringLiteral("shortcutsAction"));
    help->addSeparator();
    QAction* about = help->addAction(tr("&About DistLab…"), this, [this] {
        auto* dialog = new AboutDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
}

}  // namespace distlab::ui
