#pragma once
// The Lesson dock (Help ▸ Lessons): one lesson at a time, step by step. Each step opens what it
// needs (an example run with its overrides, a study, a variable-lab script), shows the tab, points at
// the control or view with a highlight, starts training when it says so, and may ask a question
// whose answer is checked against the live run (lesson_facts.hpp). GUI thread.
#include <QWidget>

#include <memory>
#include <optional>

#include "lessons/lesson.hpp"

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace distlab::ui {

class EngineFact;
class LessonHighlight;
class MainWindow;

class LessonPanel : public QWidget {
    Q_OBJECT

public:
    LessonPanel(MainWindow& window, QWidget* parent = nullptr);
    ~LessonPanel() override;

    /// Opens `lesson` at its first step.
    void open(Lesson lesson);
    bool hasLesson() const { return m_lesson.has_value(); }
    const Lesson& lesson() const { return *m_lesson; }
    int stepIndex() const { return m_step; }
    /// Shows step `index` and does what it says (opens, highlights, plays). False, with the reason
    /// shown in the panel, when something it needs cannot be opened.
    bool showStep(int index);
    /// The widget the current step points at, or null (none named, or not found).
    QWidget* highlightTarget() const;
    /// The right answer to the current step's question as the live run gives it now (the choice's
    /// text, or the number), or nothing when the run cannot tell yet. An engine fact is the run's
    /// last answer to a task between its steps: it comes a tick or two after the run has trained.
    std::optional<QString> expectedAnswer() const;
    /// Checks `answer` (a choice's text or a number) as the Check button does; the feedback says
    /// whether it is right and, if so, why. When the run cannot tell yet it says so (false), and an
    /// engine fact's answer, once it comes, checks `answer` again.
    bool check(const QString& answer);
    QString feedback() const;
    /// Why the current step could not do what it says (empty when it could). A control that only
    /// exists once the step's run has loaded is looked for again meanwhile.
    QString problem() const { return m_problem; }

private:
    void buildQuestion(const LessonQuestion& question);
    void clearQuestion();
    QString findExample(const QString& fileName) const;
    bool runVarlabScript(const QString& script);
    /// Outlines the step's control, looking again while the step's run loads.
    void pointAtTarget();

    MainWindow& m_window;
    std::optional<Lesson> m_lesson;
    int m_step = 0;
    QString m_problem;
    QLabel* m_title;
    QLabel* m_counter;
    QLabel* m_text;
    QWidget* m_questionBox;
    QVBoxLayout* m_questionLayout;
    QLabel* m_questionText;
    QButtonGroup* m_choices = nullptr;
    QLineEdit* m_number = nullptr;
    QLabel* m_feedback;
    QPushButton* m_back;
    QPushButton* m_next;
    LessonHighlight* m_highlight = nullptr;
    int m_highlightTries = 0;
    EngineFact* m_engineFact;
    std::optional<QString> m_waitingAnswer;  // checked again when the engine fact comes
};

}  // namespace distlab::ui
