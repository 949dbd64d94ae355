#include "comm/reduction_thread.hpp"

#include "distlab/tensor/device_memory.hpp"

namespace distlab::comm_detail {

/// A queued call's handle: done once the thread has run it.
class ReductionThread::InFlight final : public WorkState {
public:
    InFlight(ReductionThread& owner, std::shared_ptr<Call> call) : m_owner(owner), m_call(std::move(call)) {}
    bool done() override {
        const std::lock_guard lock(m_owner.m_mutex);
        return m_call->done;
    }
    CollectiveTiming wait() override {
        std::unique_lock lock(m_owner.m_mutex);
        m_owner.m_finished.wait(lock, [&] { return m_call->done; });
        if (m_call->error) std::rethrow_exception(m_call->error);
        return m_call->timing;
    }

private:
    ReductionThread& m_owner;
    std::shared_ptr<Call> m_call;
};

ReductionThread::ReductionThread(Communicator& communicator, int device)
    : m_communicator(communicator), m_device(device), m_thread([this] { run(); }) {}

ReductionThread::~ReductionThread() {
    {
        const std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_issued.notify_one();
    m_thread.join();
}

Work ReductionThread::allReduce(std::span<float> buffer, const AllReduceOptions& options) {
    auto call = std::make_shared<Call>();
    call->buffer = buffer;
    call->options = options;
    {
        const std::lock_guard lock(m_mutex);
        m_queue.push_back(call);
    }
    m_issued.notify_one();
    return Work(std::make_unique<InFlight>(*this, std::move(call)));
}

void ReductionThread::run() {
    const DeviceMemoryScope memory(m_device);  // scratch the calls grow counts on the rank's device
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_issued.wait(lock, [&] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty()) return;  // stopping, with nothing left to run
        const std::shared_ptr<Call> call = std::move(m_queue.front());
        m_queue.pop_front();
        const std::exception_ptr earlier = m_failure;
        lock.unlock();
        CollectiveTiming timing;
        std::exception_ptr error = earlier;
        if (!error) {
            try {
                timing = m_communicator.allReduce(call->buffer, call->options).wait();
            } catch (...) {
                error = std::current_exception();
            }
        }
        lock.lock();
        call->timing = timing;
        call->error = error;
        call->done = true;
        if (error && !m_failure) m_failure = error;
        m_finished.notify_all();
    }
}

}  // namespace distlab::comm_detail
