#include "distribute/read_answers.hpp"

#include "distlab/core/error.hpp"

namespace distlab {

ReadAnswers::ReadAnswers(ParameterTransport& transport, int workers) : m_transport(transport) {
    for (int w = 0; w < workers; ++w) m_lanes.push_back(std::make_unique<Lane>());
    for (int w = 0; w < workers; ++w) m_lanes[static_cast<std::size_t>(w)]->thread = std::thread([this, w] { send(w); });
}

ReadAnswers::~ReadAnswers() { finish(); }

std::int64_t ReadAnswers::finish() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_queued.notify_all();
    for (auto& lane : m_lanes)
        if (lane->thread.joinable()) lane->thread.join();
    std::lock_guard lock(m_mutex);
    return m_sent;
}

void ReadAnswers::answer(int worker, std::span<const float> values) {
    {
        std::lock_guard lock(m_mutex);
        Lane& lane = *m_lanes[static_cast<std::size_t>(worker)];
        if (lane.lost) return;
        lane.queued.emplace_back(values.begin(), values.end());
    }
    m_queued.notify_all();
}

void ReadAnswers::send(int worker) {
    Lane& lane = *m_lanes[static_cast<std::size_t>(worker)];
    for (;;) {
        std::vector<float> values;
        {
            std::unique_lock lock(m_mutex);
            m_queued.wait(lock, [&] { return m_stopping || !lane.queued.empty(); });
            if (lane.queued.empty()) return;  // stopping, nothing left to send
            values = std::move(lane.queued.front());
            lane.queued.pop_front();
        }
        try {
            m_transport.sendParameters(worker, values);
        } catch (const TrainingError&) {
            // The worker is gone (or silent past the timeout): the chief sees it too and gives its
            // step to another worker.
            std::lock_guard lock(m_mutex);
            lane.lost = true;
            lane.queued.clear();
            continue;
        }
        std::lock_guard lock(m_mutex);
        ++m_sent;
    }
}

}  // namespace distlab
