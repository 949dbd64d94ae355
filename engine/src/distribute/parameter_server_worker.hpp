#pragma once
// One parameter-server worker: R replica models that compute one gradient synchronously (a small
// mirrored group inside the worker), its batch, and its state as seen by the coordinator.
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "distlab/comm/in_process_group.hpp"
#include "distlab/distribute/parameter_server_trainer.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {

struct ParameterServerTrainer::Worker {
    enum class State { Idle, Permitted, Computing, Pushed };

    struct Replica {
        Replica(const ModelConfig& config, std::int64_t features) : model(config, features), batch(model) {}
        Model model;
        ReplicaBatch batch;
    };

    int index = 0;
    std::vector<std::unique_ptr<Replica>> replicas;  // replica 0's gradient is the worker's push
    std::unique_ptr<InProcessGroup> group;
    std::unique_ptr<ReplicaPool> pool;  // created on the worker's own thread
    std::vector<std::int64_t> batch;    // this step's sample indices (global_batch_size)
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
