#pragma once
// A ps task's answers to the workers' reads, sent on one thread per worker. Gloo's send waits
// until the receiver is ready for it, so a worker slow to take its answer (stalled, or its host
// gone quiet) would otherwise hold the server's loop, and with it every other worker and the
// chief, for up to timeout_seconds. The answer's values are copied when the read is served, in
// the order of the chief's messages, so the worker reads the version its permit names.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "distribute/parameter_transport.hpp"

namespace distlab {

class ReadAnswers {
public:
    /// Answers through `transport` (sendParameters), to `workers` workers.
    ReadAnswers(ParameterTransport& transport, int workers);
    /// finish(), if it was not called.
    ~ReadAnswers();
    ReadAnswers(const ReadAnswers&) = delete;
    ReadAnswers& operator=(const ReadAnswers&) = delete;

    /// Queues a copy of `values` for `worker`; returns at once. From the server's loop.
    void answer(int worker, std::span<const float> values);
    /// Sends what is queued (each send bounded by the transport's timeout) and stops the threads.
    /// Returns the answers sent (a lost worker's not counted). Blocks.
    std::int64_t finish();

private:
    struct Lane {
        std::deque<std::vector<float>> queued;
        bool lost = false;  ///< its send failed: the worker is gone, its later answers are dropped
        std::thread thread;
    };
    void send(int worker);

    ParameterTransport& m_transport;
    std::mutex m_mutex;
    std::condition_variable m_queued;
    bool m_stopping = false;
    std::int64_t m_sent = 0;
    std::vector<std::unique_ptr<Lane>> m_lanes;
};

}  // namespace distlab
