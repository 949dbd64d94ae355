#pragma once
// The Tasks view of a cluster run (multi-worker mirrored): one row per task with its address,
// process, state, steps and message (why it failed, or its summary), the command that starts a task
// on another host, and what the cluster shares: its coordinator, the app's telemetry port, the
// timeout. The window shows the tab only for cluster runs. GUI thread.
#include <cstdint>

#include "views/live_view.hpp"

class QLabel;
class QPushButton;
class QTableWidget;

namespace distlab::ui {

class TasksView : public LiveView {
    Q_OBJECT

public:
    explicit TasksView(SessionController& controller, QWidget* parent = nullptr);

    QTableWidget& table() const { return *m_table; }
    /// The line about the cluster (coordinator, telemetry address, timeout).
    QString summaryText() const;

protected:
    bool refresh() override;

private:
    void rebuild();

    QLabel* m_coordinator;
    QLabel* m_store;
    QLabel* m_timeout;
    QLabel* m_backups;
    QTableWidget* m_table;
    QPushButton* m_copy;
    bool m_dirty = true;            // the tasks changed since the last redraw
    std::int64_t m_drawnSteps = 0;  // the tasks' steps, summed, as last drawn
};

}  // namespace distlab::ui
