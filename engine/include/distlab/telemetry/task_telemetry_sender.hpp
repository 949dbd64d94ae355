#pragma once
// A task's stream of telemetry to the app that watches it (task_telemetry.hpp's frames over TCP).
// The task's training never waits for the app: frames queue and a thread of the sender's own
// writes them. When the app falls behind, steps are dropped (counted) and the queue stays bounded;
// the task's state and summary are never dropped. An app that goes away ends the stream, not the
// run.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "distlab/core/error.hpp"

namespace distlab {

class TaskTelemetrySender {
public:
    /// Steps queued at most; further steps are dropped until the app catches up.
    static constexpr std::size_t kMaxQueuedSteps = 4096;

    /// Connects to the app at `address` ("host:port") within `timeoutSeconds`; an Error names the
    /// address and why (refused, unreachable, timed out).
    static Result<std::unique_ptr<TaskTelemetrySender>> connect(const std::string& address, double timeoutSeconds);
    /// Writes what is queued (for at most two seconds), then closes.
    ~TaskTelemetrySender();
    TaskTelemetrySender(const TaskTelemetrySender&) = delete;
    TaskTelemetrySender& operator=(const TaskTelemetrySender&) = delete;

    /// Queues a step's frame; never blocks. Dropped when kMaxQueuedSteps are waiting.
    void sendStep(std::string frame);
    /// Queues a frame that is never dropped (hello, state, summary); never blocks.
    void sendAlways(std::string frame);
    /// Steps dropped because the app fell behind.
    std::int64_t droppedSteps() const { return m_dropped.load(std::memory_order_relaxed); }
    /// Why the stream ended (the app closed it, a write failed); empty while it goes on.
    std::string lostReason() const;

private:
    explicit TaskTelemetrySender(int fd);
    void enqueue(std::string frame, bool step);
    void writeLoop();

    int m_fd;
    mutable std::mutex m_mutex;
    std::condition_variable m_ready;
    struct Frame {
        std::string bytes;
        bool step = false;  ///< may be dropped
    };
    std::deque<Frame> m_queue;      // guarded by m_mutex
    std::size_t m_queuedSteps = 0;  // guarded by m_mutex
    bool m_closing = false;         // guarded by m_mutex
    std::string m_lost;             // guarded by m_mutex
    std::atomic<std::int64_t> m_dropped{0};
    std::thread m_thread;  // last: started once the rest is set
};

}  // namespace distlab
