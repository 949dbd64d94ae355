#include "window/help_menu.hpp"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>

#include "help/about_dialog.hpp"
#include "help/help_browser.hpp"
#include "help/readme_topics.hpp"
#include "help/shortcuts_dialog.hpp"
#include "lessons/lesson_browser.hpp"
#include "lessons/lesson_panel.hpp"
#include "main_window.hpp"

namespace distlab::ui {

HelpMenu::HelpMenu(MainWindow& window) : QObject(&window), m_window(window) {}

void HelpMenu::build(QMenu* help) {
    QAction* lessons = help->addAction(tr("&Lessons…"), this, [this] {
        LessonBrowser browser(&m_window);
        if (browser.exec() == QDialog::Accepted && !browser.chosenFile().isEmpty()) openLesson(browser.chosenFile());
    });
    lessons->setObjectName(QStringLiteral("lessonsAction"));
    lessons->setToolTip(tr("Guided lessons on distributed training, each with the runs and views it needs"));
    auto helpBrowser = [this] {
        if (m_helpBrowser == nullptr) m_helpBrowser = new HelpBrowser(&m_window);
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
        auto* dialog = new ShortcutsDialog(*m_window.menuBar(), &m_window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    shortcuts->setObjectName(QStringLiteral("shortcutsAction"));
    help->addSeparator();
    QAction* about = help->addAction(tr("&About DistLab…"), this, [this] {
        auto* dialog = new AboutDialog(&m_window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    about->setObjectName(QStringLiteral("aboutAction"));
    about->setMenuRole(QAction::AboutRole);
}

bool HelpMenu::openLesson(const QString& path) {
    auto lesson = loadLesson(path);
    if (!lesson) {
        m_window.showError(tr("Could not open the lesson"), QString::fromStdString(lesson.error().message));
        return false;
    }
    if (m_lessonDock == nullptr) {
        m_lessonPanel = new LessonPanel(m_window);
        m_lessonDock = new QDockWidget(tr("Lesson"), &m_window);
        m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
        m_lessonDock->setWidget(m_lessonPanel);
        m_lessonDock->setMinimumWidth(260);  // beside the set-up dock and all the tabs in a 1280 px window
        m_window.addDockWidget(Qt::RightDockWidgetArea, m_lessonDock);
        m_window.tabifyDockWidget(&m_window.explainDock(), m_lessonDock);
    }
    m_lessonDock->show();
    m_lessonDock->raise();
    m_lessonPanel->open(std::move(*lesson));
    return true;
}

}  // namespace distlab::ui
