#pragma once
// What SessionController keeps of one run (private to the controller's source files): the run's
// session, its history and telemetry drain, the answers it is waiting for, and the bridge that
// brings the session's events to the controller's thread.
#include <QMetaObject>
#include <QString>

#include <future>
#include <memory>
#include <string>

#include "bridge/cluster_run.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "bridge/telemetry_drain.hpp"

namespace distlab::ui {

// Marshals the session's events (engine thread) to the controller's thread. Never blocks the engine.
class SessionController::ObserverBridge : public SessionObserver {
public:
    ObserverBridge(SessionController* controller, std::uint64_t runId) : m_controller(controller), m_runId(runId) {}
    void onStateChanged(SessionState state) override {
        // A queued call to a destroyed controller is discarded by Qt; runs never outlive it anyway.
        QMetaObject::invokeMethod(
            m_controller, [controller = m_controller, id = m_runId, state] { controller->onRunState(id, state); }, Qt::QueuedConnection);
    }
    void onError(const std::string& message) override {
        QMetaObject::invokeMethod(
            m_controller,
            [controller = m_controller, id = m_runId, text = QString::fromStdString(message)] { controller->onRunError(id, text); },
            Qt::QueuedConnection);
    }

private:
    SessionController* m_controller;
    std::uint64_t m_runId;
};

// What a checkpoint task posted to the session answers.
struct CheckpointAnswer {
    std::string path;
    std::int64_t step = -1;
    std::string error;  // empty: written
};

// A run is a session in this process, or a cluster of distlab-worker processes (cluster_run.hpp):
// exactly one of the two. What both have is asked through state(), stepsDone() and telemetry().
struct SessionController::Run {
    Run(std::uint64_t runId, int replicas) : id(runId), history(replicas), drain(replicas) {}
    SessionState state() const { return session ? session->state() : cluster->state(); }
    std::int64_t stepsDone() const { return session ? session->stepsDone() : cluster->stepsDone(); }
    TelemetryHub& telemetry() { return session ? session->telemetry() : cluster->telemetry(); }
    std::uint64_t id;
    RunConfig config;
    bool playWhenLoaded = false;
    bool stepWhenLoaded = false;
    bool loaded = false;
    QString error;
    RunHistory history;
    TelemetryDrain drain;
    std::unique_ptr<ObserverBridge> observer;
    std::future<DataPoints> points;            // the session's answer to requestPoints()
    std::future<CheckpointAnswer> checkpoint;  // an automatic checkpoint on its way
    std::future<CheckpointAnswer> resume;      // resumeFromCheckpoint()'s restore, run after loading
    bool clearHistoryOnFailedResume = false;   // the history shown is a saved run's (openSavedRun)
    std::unique_ptr<ClusterRun> cluster;       // its processes are stopped before the rest goes
    std::unique_ptr<TrainingSession> session;  // last: stopped and joined before the rest goes
};

}  // namespace distlab::ui
