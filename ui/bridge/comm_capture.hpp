#pragma once
// Captures one all-reduce of the current run's real gradient buffers for the communication view.
// Between two steps it attaches a CollectiveTrace (with buffer snapshots) to the trainer's
// communicator group, lets one step reduce through it (a paused run takes one step; a running one
// is caught at its next step), then detaches it between steps again: training runs untraced
// except during a capture. The trace's memory is allocated here, on the GUI thread, so the
// session thread only swaps a pointer. Attaching and detaching are tasks posted to the session
// (runBetweenSteps): the GUI thread never waits for them. GUI thread only.
#include <QObject>
#include <QPointer>
#include <QString>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <distlab/comm/collective_trace.hpp>
#include <distlab/comm/gradient_packer.hpp>

#include "bridge/all_reduce_capture.hpp"

namespace distlab {
class TrainingSession;
}

namespace distlab::ui {

class SessionController;

class CommCapture : public QObject {
    Q_OBJECT

public:
    /// Snapshot floats a capture may keep over all ranks (larger models: transfers only, no values).
    static constexpr std::int64_t kMaxSnapshotFloats = 16 * 1024 * 1024;

    explicit CommCapture(SessionController& controller, QObject* parent = nullptr);
    /// Detaches a trace still attached (a task that keeps the trace alive until it has run).
    ~CommCapture() override;

    /// Starts capturing the current run's next all-reduce; returns false, with message() saying
    /// why, when the run has none to capture (one device, parameter servers, finished, loading).
    /// The trace is attached between the run's next two steps; a run that turns out to have no
    /// all-reduce then ends the capture (changed, with the message).
    /// `stepIfPaused` false arms the capture without stepping a paused run: it catches the run's
    /// next step whenever it comes (the first step after Play). A later captureNext() while armed
    /// takes that step at once.
    bool captureNext(bool stepIfPaused = true);
    /// True between captureNext() and the captured() signal (or the capture's end, changed()).
    bool busy() const { return m_session != nullptr || m_detaching; }
    /// The latest capture of the current run (empty before the first).
    const AllReduceCapture& latest() const { return m_latest; }
    /// What the capture is doing or why it could not start; empty when there is nothing to say.
    QString message() const { return m_message; }
    /// Why no capture can start on the current run now; empty when one can.
    QString refusal() const;

signals:
    /// latest() holds a new capture.
    void captured();
    /// busy() or message() changed.
    void changed();

private:
    void poll();
    /// Detaches the trace, then reads the capture from it (captured).
    void finish();
    void abandon(const QString& message);
    /// Posts the trace's detaching to the captured run (if it is still the current one), with
    /// `then` called once it is detached (the run's writes to the trace happen before), and forgets
    /// the session. The task holds the trace, so it outlives this object when it must.
    void detach(std::function<void()> then = {});
    /// The answers of the attaching and the detaching tasks of capture number `capture`.
    void attached(std::uint64_t capture, bool ok, std::int64_t startStep);
    void detached(std::uint64_t capture);

    QPointer<SessionController> m_controller;
    TrainingSession* m_session = nullptr;      // the session being captured; null when idle
    std::shared_ptr<CollectiveTrace> m_trace;  // shared with the detaching task
    std::uint64_t m_capture = 0;               // counts captures: an answer for an older one is dropped
    bool m_attaching = false;                  // the attaching task has not answered yet
    bool m_detaching = false;                  // the step was taken; the detaching task has not answered
    std::vector<PackRange> m_packs;
    CrossDeviceOps m_algorithm = CrossDeviceOps::Ring;
    std::int64_t m_startStep = 0;
    bool m_stepRequested = false;
    bool m_stepIfPaused = true;
    AllReduceCapture m_latest;
    QString m_message;
};

}  // namespace distlab::ui
