#pragma once
// A rank's all-reduces on a thread of their own, so they run while the rank goes on computing:
// PyTorch DDP's buckets, reduced as backward finishes their gradients. The calls run one at a
// time in the order issued, on the communicator the rank would otherwise call itself; each returns
// a Work in flight that the rank waits on before it reads or reuses the buffer.
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "distlab/comm/communicator.hpp"

namespace distlab::comm_detail {

class ReductionThread {
public:
    /// `communicator` must outlive this, and the rank makes no call of its own on it while one
    /// issued here is in flight. `device`: the rank's device, where the calls' buffers count.
    ReductionThread(Communicator& communicator, int device);
    /// Runs the calls issued so far, then ends the thread.
    ~ReductionThread();
    ReductionThread(const ReductionThread&) = delete;
    ReductionThread& operator=(const ReductionThread&) = delete;

    /// Queues communicator.allReduce(buffer, options) and returns at once. The Work's wait()
    /// blocks until it ran and returns its record, or rethrows what it threw; after a call threw,
    /// the later ones throw the same without running (the group cannot go on). `buffer` and the
    /// options' companion are the thread's until then. The rank's thread.
    Work allReduce(std::span<float> buffer, const AllReduceOptions& options);

private:
    struct Call {
        std::span<float> buffer;
        AllReduceOptions options;
        CollectiveTiming timing;
        std::exception_ptr error;
        bool done = false;
    };
    class InFlight;
    void run();

    Communicator& m_communicator;
    int m_device;
    std::mutex m_mutex;
    std::condition_variable m_issued;    ///< a call was queued, or the thread is to end
    std::condition_variable m_finished;  ///< a call is done
    std::deque<std::shared_ptr<Call>> m_queue;
    bool m_stopping = false;
    std::exception_ptr m_failure;  ///< the first call's error, which every later call reports
    std::thread m_thread;          ///< last: starts once the rest is built
};

}  // namespace distlab::comm_detail
