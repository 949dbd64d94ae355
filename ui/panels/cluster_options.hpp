#pragma once
// The knobs of multi-worker mirrored (a cluster of distlab-worker processes the app starts): how
// many worker tasks, how long a task waits for a lost peer, how the workers' sums cross between
// them (auto or ring), and the tasks with their addresses.
// The local replicas per worker and the reduction are the mirrored group's controls above it.
// GUI thread.
#include <QWidget>

#include <distlab/config/run_config.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace distlab::ui {

class ClusterOptions : public QWidget {
    Q_OBJECT

public:
    explicit ClusterOptions(QWidget* parent = nullptr);
    /// Shows `config`'s cluster and timeout (emits nothing).
    void setConfig(const RunConfig& config);
    /// Writes the timeout and the cluster: the shown one while the worker count is unchanged, else
    /// that many tasks on free loopback ports.
    void applyTo(RunConfig& config) const;

    QSpinBox& workersBox() const { return *m_workers; }
    /// The cluster of the config last shown (setConfig), as it was written.
    const ClusterSpec& shownCluster() const { return m_shown; }
    QDoubleSpinBox& timeoutBox() const { return *m_timeout; }
    /// The all-reduce between the workers: auto or ring (strategy.communication).
    QComboBox& communicationBox() const { return *m_communication; }

signals:
    void edited();

private:
    void updateTasks();

    ClusterSpec m_shown;
    mutable ClusterSpec m_made;  // the loopback cluster made for a new worker count: the same until it changes
    QSpinBox* m_workers;
    QDoubleSpinBox* m_timeout;
    QComboBox* m_communication;
    QLabel* m_tasks;
};

}  // namespace distlab::ui
