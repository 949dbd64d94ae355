#pragma once
// Help ▸ Lessons: the lessons found (lessonFiles), each with its summary; Open starts the chosen
// one in the Lesson dock. A lesson file that does not load is listed with its error, disabled.
// GUI thread.
#include <QDialog>

class QLabel;
class QListWidget;

namespace distlab::ui {

class LessonBrowser : public QDialog {
    Q_OBJECT

public:
    explicit LessonBrowser(QWidget* parent = nullptr);
    /// The lesson files listed, in order.
    QStringList files() const { return m_files; }
    QString chosenFile() const;
    QListWidget& list() const { return *m_list; }

private:
    QStringList m_files;
    QListWidget* m_list;
    QLabel* m_summary;
};

}  // namespace distlab::ui
