#pragma once
// The chief of a parameter-server run in processes (parameter_server_cluster.hpp): the run's
// Trainer. It does what ParameterServerTrainer's coordinating thread does, with the workers and the
// servers in other processes: it hands out batches (the sampler is here), serves each read by
// telling every server to answer it, orders the updates (asynchronous: each gradient as it comes,
// with its staleness; synchronous: the average of the fresh gradients, stale ones dropped) and
// hands each server its slice of the gradient to apply. One thread per worker (its link) sends that
// worker its permits and takes its answers, so a worker that is slow to listen (stalled) holds only
// its own link, never the chief. The chief's own copy of the variables and optimizer slots is read from the servers when
// it is asked for (weights, checkpoints, evaluation) and written to them after a load or resume.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distribute/process_parameter_transport.hpp"

namespace distlab {

struct EvaluationBuffers;  // distribute/model_evaluation.hpp

class ClusterParameterServerTrainer final : public Trainer {
public:
    /// `group`: every task's (ClusterTask, the chief's rank 0). Blocks until every server holds the
    /// initial values. Throws TrainingError when a server is lost.
    ClusterParameterServerTrainer(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> group);
    ~ClusterParameterServerTrainer() override;

    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;
    const Tensor& predict(const Tensor& input) override;
    GradientAggregationStats gradientAggregation() const override { return {}; }
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_data; }
    int replicaCount() const override { return static_cast<int>(m_workers.size()); }
    /// Every lane shows the chief's copy: the workers' own copies are in their processes.
    Model& replicaModel(int) override { return primaryModel(); }
    const Model& replicaModel(int) const override { return *m_model; }
    /// The chief's copy of the variables, read from the servers first when updates were applied since.
    Model& primaryModel() override;
    int optimizerCount() const override { return 1; }
    Optimizer& replicaOptimizer(int) override;
    /// Writes the chief's copy (variables and optimizer slots) to the servers, after a load.
    void broadcastParameters() override;
    /// Each worker reports its copy of these from its pull with its gradient (PsHeader::watched).
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    void shutdown() override;
    std::int64_t stepsDone() const override { return m_version; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override { return nowNs() - m_clockOriginNs; }

private:
    struct RemoteWorker {
        enum class State { Idle, Permitted, Pushed };
        int index = 0;
        // Guarded by m_mutex:
        State state = State::Idle;
        bool alive = true;
        std::vector<std::int64_t> batch;
        std::int64_t readVersion = 0;
        ReplicaStepStats stats;
        std::thread link;
    };

    /// A worker's link: sends it each permit and takes its answer (its gradient, or why it failed);
    /// while it waits for a permit, tells it every m_keepalivePeriod that the chief lives (it waits
    /// for the chief's next message at most timeout_seconds); at the end, its Stop.
    void link(RemoteWorker& worker);
    /// A worker is lost (`cause`: the failed call's message): its unanswered batch goes to the redo
    /// queue. Under m_mutex.
    void loseWorker(RemoteWorker& worker, const std::string& cause);
    /// Gives an idle live worker its next batch (a lost worker's first), for its link to send, and
    /// has every server answer its read. Under m_mutex.
    void grantPermit(RemoteWorker& worker);
    void grantIdleWorkers();
    /// Waits until a gradient is queued; throws when the run cannot go on. Under m_mutex.
    void waitForInbox(std::unique_lock<std::mutex>& lock);
    /// Tells every server that the chief lives: a server waits for the chief's next message at
    /// most timeout_seconds, and the chief may wait for a slow gradient that long.
    void keepServersWaiting();
    /// Sends each server its slice of `gradient` to apply; one update.
    void applyUpdate(std::span<const float> gradient);
    const StepReport& stepAsync();
    const StepReport& stepSync();
    void fillReport(std::int64_t startNs, std::int64_t samples, double lossSum, std::int64_t correct);
    /// Reads the variables and slots from the servers into the chief's copy, if it is behind.
    /// Throws TrainingError when a server is lost (and the run has failed).
    void fetch();
    void fetchFromServers();
    void sendToServers(const PsHeader& header);
    /// The Stop every task gets at the end: the exit code (3 when a step failed) and the updates applied.
    PsHeader stopMessage() const;

    RunConfig m_config;
    DataSplit m_data;
    BatchSampler m_sampler;
    PsLayout m_layout;
    std::unique_ptr<Communicator> m_group;
    std::unique_ptr<Model> m_model;  ///< the chief's copy, current when m_fetchedVersion == m_version
    std::unique_ptr<Optimizer> m_optimizer;
    std::unique_ptr<EvaluationBuffers> m_evaluation;
    std::vector<ShardPlacement> m_placements;
    std::unique_ptr<ProcessParameterTransport> m_transport;
    std::vector<std::unique_ptr<RemoteWorker>> m_workers;
    std::atomic<float> m_learningRate;
    std::chrono::milliseconds m_keepalivePeriod;  ///< a quarter of timeout_seconds
    std::int64_t m_version = 0;
    std::int64_t m_fetchedVersion = 0;
    std::atomic<bool> m_failed{false};  ///< a step threw: the tasks are stopped with exit code 3
    std::vector<float> m_slice;
    std::vector<float> m_aggregate;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_stopping = false;
    std::array<std::int64_t, kMaxWatchedValues> m_watched{-1, -1, -1, -1};  ///< sent with every permit
    std::deque<int> m_inbox;                                                ///< workers whose gradient waits to be applied
    std::deque<std::vector<std::int64_t>> m_redo;                           ///< batches of lost workers, to run again
    std::string m_failure;                                                  ///< why a worker could not finish its step
    std::string m_firstLoss;                                                ///< the first lost worker and why
    std::vector<RemoteWorker*> m_fresh;                                     ///< sync: the fresh gradients gathered so far
    std::int64_t m_clockOriginNs;
    StepReport m_report;
};

}  // namespace distlab
