#include "window/session_file_tasks.hpp"

#include <QGuiApplication>
#include <QMainWindow>
#include <QStatusBar>

#include <optional>

#include "bridge/session_controller.hpp"

namespace distlab::ui {

SessionFileTasks::SessionFileTasks(QMainWindow& window, SessionController& controller)
    : QObject(&window), m_window(window), m_controller(controller) {}

void SessionFileTasks::run(const QString& doing, std::function<Status(Trainer&)> task, std::function<void(const Status&)> done) {
    if (m_running++ == 0) QGuiApplication::setOverrideCursor(Qt::BusyCursor);
    m_window.statusBar()->showMessage(doing);
    emit busyChanged();
    m_controller.askTrainer(this, std::move(task), [this, done = std::move(done)](std::optional<Status> status) {
        if (--m_running == 0) QGuiApplication::restoreOverrideCursor();
        m_window.statusBar()->clearMessage();
        emit busyChanged();
        const Status result = status ? std::move(*status) : Status(Error{tr("No run is loaded, or it has ended.").toStdString()});
        done(result);
        emit finished(result.ok());
    });
}

}  // namespace distlab::ui
