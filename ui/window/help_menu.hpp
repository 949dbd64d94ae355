#pragma once
// The window's Help menu: Lessons (and the Lesson dock beside the Explain dock, created with the
// first lesson), the README's topics and reference documents (Guide), the keyboard shortcuts and
// About. GUI thread.
#include <QObject>
#include <QString>

class QDockWidget;
class QMenu;

namespace distlab::ui {

class HelpBrowser;
class LessonPanel;
class MainWindow;

class HelpMenu : public QObject {
    Q_OBJECT

public:
    explicit HelpMenu(MainWindow& window);

    /// Fills `help` (the menu bar's last menu, so the shortcuts dialog lists every other menu).
    void build(QMenu* help);
    /// Opens a lesson in the Lesson dock (created on first use).
    bool openLesson(const QString& path);
    /// The Lesson dock's panel, or null before the first lesson.
    LessonPanel* lessonPanel() const { return m_lessonPanel; }
    /// The Help ▸ Guide window, or null before a topic was first shown.
    HelpBrowser* helpBrowser() const { return m_helpBrowser; }

private:
    MainWindow& m_window;
    HelpBrowser* m_helpBrowser = nullptr;
    LessonPanel* m_lessonPanel = nullptr;
    QDockWidget* m_lessonDock = nullptr;
};

}  // namespace distlab::ui
