// MainWindow: Help ▸ Lessons and the Lesson dock beside the Explain dock.
#include "main_window.hpp"

#include <QAction>
#include <QDockWidget>
#include <QMenu>

#include "lessons/lesson_browser.hpp"
#include "lessons/lesson_panel.hpp"

namespace distlab::ui {

void MainWindow::buildLessonMenu(QMenu* help) {
    QAction* lessons = help->addAction(tr("&Lessons…"), this, [this] {
        LessonBrowser browser(this);
        if (browser.exec() == QDialog::Accepted && !browser.chosenFile().isEmpty()) openLesson(browser.chosenFile());
    });
    lessons->setObjectName(QStringLiteral("lessonsAction"));
    lessons->setToolTip(tr("Guided lessons on distributed training, each with the runs and views it needs"));
}

bool MainWindow::openLesson(const QString& path) {
    auto lesson = loadLesson(path);
    if (!lesson) {
        showError(tr("Could not open the lesson"), QString::fromStdString(lesson.error().message));
        return false;
    }
    if (m_lessonDock == nullptr) {
        m_lessonPanel = new LessonPanel(*this);
        m_lessonDock = new QDockWidget(tr("Lesson"), this);
        m_lessonDock->setObjectName(QStringLiteral("lessonDock"));
        m_lessonDock->setWidget(m_lessonPanel);
        m_lessonDock->setMinimumWidth(260);  // beside the set-up dock and all the tabs in a 1280 px window
        addDockWidget(Qt::RightDockWidgetArea, m_lessonDock);
        tabifyDockWidget(m_explainDock, m_lessonDock);
    }
    m_lessonDock->show();
    m_lessonDock->raise();
    m_lessonPanel->open(std::move(*lesson));
    return true;
}

}  // namespace distlab::ui
