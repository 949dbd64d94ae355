#pragma once
// The frame a lesson draws around the control or view a step points at: an orange outline over
// the target's window that follows the target, lets every click through, and brings the target
// into view first (its tab, its page of the set-up, its scroll area). GUI thread.
#include <QPointer>
#include <QTimer>
#include <QWidget>

namespace distlab::ui {

class LessonHighlight : public QWidget {
    Q_OBJECT

public:
    /// Outlines `target` (null: hides). Shows the tabs, tool-box pages and docks it sits in.
    explicit LessonHighlight(QWidget* target);
    QWidget* target() const { return m_target; }
    /// Makes `target` visible as a person would find it: selects the tabs and tool-box pages that
    /// hold it, shows its dock, scrolls it into view.
    static void reveal(QWidget* target);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void follow();

    QPointer<QWidget> m_target;
    QTimer m_follow;
};

}  // namespace distlab::ui
