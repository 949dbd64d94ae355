#pragma once
// The file actions the trainer itself does (save or load weights, save a run) run as tasks on the
// run's session thread between two steps (SessionController::runBetweenSteps): the window does not
// wait for them. While one waits for its turn the window shows it is busy: the busy cursor, what it
// does in the status bar, and busyChanged so the file actions that would queue behind it disable
// themselves. GUI thread.
#include <QObject>
#include <QString>

#include <functional>

#include <distlab/core/error.hpp>

class QMainWindow;

namespace distlab {
class Trainer;
}

namespace distlab::ui {

class SessionController;

class SessionFileTasks : public QObject {
    Q_OBJECT

public:
    SessionFileTasks(QMainWindow& window, SessionController& controller);

    /// Posts `task`, busy meanwhile (`doing` in the status bar); done(its status, or why it did not
    /// run) and then finished follow on this thread.
    void run(const QString& doing, std::function<Status(Trainer&)> task, std::function<void(const Status&)> done);
    /// True while a task posted by run() has not answered.
    bool busy() const { return m_running > 0; }

signals:
    void busyChanged();
    /// A task has ended: `ok`, or its error was shown. The parts also emit it for an action they
    /// refused or that was cancelled before any task, so a caller waits for one thing.
    void finished(bool ok);

private:
    QMainWindow& m_window;
    SessionController& m_controller;
    int m_running = 0;
};

}  // namespace distlab::ui
