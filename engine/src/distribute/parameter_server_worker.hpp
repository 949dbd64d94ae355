#pragma once
// One parameter-server worker thread: its replicas' gradient (worker_gradient.hpp), its batch, and
// its state as seen by the coordinator.
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "distlab/distribute/parameter_server_trainer.hpp"
#include "distribute/worker_gradient.hpp"

namespace distlab {

struct ParameterServerTrainer::Worker {
    enum class State { Idle, Permitted, Computing, Pushed };

    int index = 0;
    std::unique_ptr<WorkerGradient> replicas;  // replica 0's gradient is the worker's push
    std::vector<std::int64_t> batch;           // this step's sample indices (global_batch_size)
    ReplicaStepStats stats;
    SpanRecorder spans;  ///< this worker's spans of its current gradient (its thread writes them)
    std::int64_t readVersion = 0;
    // Guarded by the trainer's mutex:
    State state = State::Idle;
    bool alive = true;
    std::int64_t gradients = 0;
    std::int64_t updates = 0;  // updates that applied this worker's gradient
    // Set from any thread:
    std::atomic<double> speed{1.0};
    std::atomic<bool> paused{false};
    std::atomic<bool> killed{false};
    std::thread thread;
};

}  // namespace distlab
