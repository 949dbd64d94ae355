#pragma once
// A study running on a thread of its own, for the app: StudyRunner::run blocks, a GUI thread must
// not. The job starts at once; the GUI polls runner().progress(i) / curves(i) / row(i) on its timer
// (copies under short locks) and cancels with runner().cancel(i); state changes reach it through
// the observer, called on the job's thread (forward them with one queued call each, as
// SessionController does for a session). No global state: several jobs may run at once.
#include <atomic>
#include <thread>
#include <vector>

#include "distlab/study/study_runner.hpp"

namespace distlab {

class StudyJob {
public:
    /// Starts running every variant of `study` on a new thread (predicting their step times
    /// first when `predictStepTimes`; StudyRunner::setPredictStepTimes). `observer` may be null;
    /// it must outlive the job. Returns at once.
    StudyJob(Study study, StudyObserver* observer, bool predictStepTimes = false);
    /// Cancels every variant and joins the thread: returns within one update of the running ones
    /// (or once a variant that is loading its data has loaded).
    ~StudyJob();
    StudyJob(const StudyJob&) = delete;
    StudyJob& operator=(const StudyJob&) = delete;

    /// The runner: cancel, progress, curves and rows, from any thread.
    StudyRunner& runner() { return m_runner; }
    const StudyRunner& runner() const { return m_runner; }
    /// Whether every variant has ended (finished, cancelled or failed). Any thread.
    bool finished() const { return m_finished.load(std::memory_order_acquire); }

private:
    StudyRunner m_runner;
    std::atomic<bool> m_finished{false};
    std::jthread m_thread;  // last: started once the rest exists, joined first
};

}  // namespace distlab
