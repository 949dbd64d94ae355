#include "distlab/telemetry/task_telemetry_sender.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "comm/cluster_store_socket.hpp"
#include "distlab/config/cluster_config.hpp"

namespace distlab {

namespace {
/// How long the destructor lets queued frames (the last state, the summary) reach the app.
constexpr auto kFlushTime = std::chrono::seconds(2);
/// Frames are joined into one write up to about this many bytes.
constexpr std::size_t kMaxWriteBytes = std::size_t{256} << 10;
}  // namespace

Result<std::unique_ptr<TaskTelemetrySender>> TaskTelemetrySender::connect(const std::string& address, double timeoutSeconds) {
    auto hostPort = parseHostPort(address, "--telemetry");
    if (!hostPort) return hostPort.error();
    auto resolved = cluster_net::resolveAddress(hostPort->host, hostPort->port);
    if (!resolved) return Error{"--telemetry: " + resolved.error().message};
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeoutSeconds));
    int error = 0;
    cluster_net::UniqueFd fd = cluster_net::connectOnce(*resolved, deadline, error);
    if (!fd.valid()) return Error{"--telemetry: cannot reach the app at " + resolved->text + ": " + cluster_net::errorText(error)};
    // The writer thread blocks in send() (with a timeout per write, below); poll gives it the bound.
    cluster_net::setNonBlocking(fd.get(), false);
    return std::unique_ptr<TaskTelemetrySender>(new TaskTelemetrySender(fd.release()));
}

TaskTelemetrySender::TaskTelemetrySender(int fd) : m_fd(fd) {
    // A blocked write gives up after the flush time, so closing never waits on a stuck app for long.
    const timeval timeout{static_cast<time_t>(std::chrono::seconds(kFlushTime).count()), 0};
    ::setsockopt(m_fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    m_thread = std::thread([this] { writeLoop(); });
}

TaskTelemetrySender::~TaskTelemetrySender() {
    {
        std::lock_guard lock(m_mutex);
        m_closing = true;
    }
    m_ready.notify_all();
    m_thread.join();
    ::close(m_fd);
}

void TaskTelemetrySender::sendStep(std::string frame) { enqueue(std::move(frame), true); }

void TaskTelemetrySender::sendAlways(std::string frame) { enqueue(std::move(frame), false); }

std::string TaskTelemetrySender::lostReason() const {
    std::lock_guard lock(m_mutex);
    return m_lost;
}

void TaskTelemetrySender::enqueue(std::string frame, bool step) {
    {
        std::lock_guard lock(m_mutex);
        if (!m_lost.empty()) return;  // nobody is listening any more
        if (step) {
            if (m_queuedSteps >= kMaxQueuedSteps) {
                m_dropped.fetch_add(1, std::memory_order_relaxed);
                return;
            }
            ++m_queuedSteps;
        }
        m_queue.push_back(Frame{std::move(frame), step});
    }
    m_ready.notify_one();
}

void TaskTelemetrySender::writeLoop() {
    std::unique_lock lock(m_mutex);
    std::chrono::steady_clock::time_point flushDeadline{};
    while (true) {
        m_ready.wait(lock, [this] { return m_closing || !m_queue.empty(); });
        if (m_queue.empty()) return;  // closing, and everything was written
        if (m_closing && flushDeadline == std::chrono::steady_clock::time_point{})
            flushDeadline = std::chrono::steady_clock::now() + kFlushTime;
        if (m_closing && std::chrono::steady_clock::now() > flushDeadline) return;
        // Everything queued goes in one write: one system call (and one wake-up of the app) for
        // many steps when they come faster than a write takes.
        std::string frame = std::move(m_queue.front().bytes);
        if (m_queue.front().step) --m_queuedSteps;
        m_queue.pop_front();
        while (!m_queue.empty() && frame.size() < kMaxWriteBytes) {
            frame += m_queue.front().bytes;
            if (m_queue.front().step) --m_queuedSteps;
            m_queue.pop_front();
        }
        lock.unlock();
        std::size_t sent = 0;
        std::string failure;
        while (sent < frame.size()) {
            const ssize_t n = ::send(m_fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
            if (n > 0) {
                sent += static_cast<std::size_t>(n);
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else {
                failure =
                    n == 0 || errno == EAGAIN || errno == EWOULDBLOCK ? "the app took no data for too long" : cluster_net::errorText(errno);
                break;
            }
        }
        lock.lock();
        if (!failure.empty()) {
            m_lost = failure;
            m_queue.clear();
            m_queuedSteps = 0;
            return;
        }
    }
}

}  // namespace distlab
