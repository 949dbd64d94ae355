#pragma once
// Parameter-server training (docs/semantics.md §6): W worker threads each read the current parameters,
// compute a gradient on their own batch of `global_batch_size` samples (synchronously over their
// R replicas) and push it; P server threads own the variable shards and apply each gradient as it
// arrives (async), or wait for a set number of fresh gradients, average them and drop stale ones
// (sync). step() returns after each applied update. The thread that calls step() coordinates the
// servers, runs server 0 and serves the workers' reads, so only it touches the parameters.
#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "distlab/distribute/parameter_server_controls.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/distribute/trainer.hpp"

namespace distlab {

struct EvaluationBuffers;  // distribute/model_evaluation.hpp
class ParameterTransport;  // distribute/parameter_transport.hpp

class ParameterServerTrainer final : public Trainer, public ParameterServerControls {
public:
    ParameterServerTrainer(const RunConfig& config, DataSplit data);
    ~ParameterServerTrainer() override;

    const StepReport& step() override;
    EvalResult evaluate(const Dataset& data, std::int64_t maxExamples = 0) override;
    const Tensor& predict(const Tensor& input) override;
    GradientAggregationStats gradientAggregation() const override;
    void setLearningRate(float rate) override { m_learningRate.store(rate, std::memory_order_relaxed); }
    float learningRate() const override { return m_learningRate.load(std::memory_order_relaxed); }
    const RunConfig& config() const override { return m_config; }
    const DataSplit& data() const override { return m_data; }
    int replicaCount() const override { return workerCount(); }
    Model& replicaModel(int worker) override;
    const Model& replicaModel(int worker) const override;
    Model& primaryModel() override { return *m_serverModel; }
    int optimizerCount() const override { return 1; }
    Optimizer& replicaOptimizer(int) override { return *m_optimizer; }
    void broadcastParameters() override {}  // workers read the servers' parameters every step
    void setWatched(std::span<const std::int64_t> flatIndices) override;
    void shutdown() override;
    ParameterServerControls* parameterServerControls() override { return this; }
    std::int64_t stepsDone() const override { return m_version; }
    const BatchSampler& sampler() const override { return m_sampler; }
    void restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) override;
    std::int64_t clockNs() const override;

    /// The OpenMP team of the coordinator's own passes (updates, evaluation, predictions) beside
    /// `workers` workers on `cores` cores: the cores the workers leave, at least one. With a team of
    /// the whole machine beside workers that fill the cores, its threads' spin after every parallel
    /// region took their cores: 2 workers on 2 cores ran their updates about 1.8 times slower in a
    /// study, which evaluates between updates, than in `bench`, which does not. The step-time model
    /// calibrates the update with the same team.
    static int coordinatorThreads(int cores, int workers) { return cores > workers ? cores - workers : 1; }

    int workerCount() const override { return static_cast<int>(m_workers.size()); }
    int serverCount() const override { return m_serverCount; }
    void setWorkerSpeed(int worker, double speed) override;
    void setWorkerPaused(int worker, bool paused) override;
    void killWorker(int worker) override;
    void killParameterServer(int server) override;
    void setMode(ParameterServerMode mode) override { m_mode.store(mode, std::memory_order_relaxed); }
    ParameterServerMode mode() const override { return m_mode.load(std::memory_order_relaxed); }
    void setUpdateRateLimit(double updatesPerSecond) override;
    double updateRateLimit() const override { return m_rateLimit.load(std::memory_order_relaxed); }
    WorkerStatus workerStatus(int worker) const override;
    void restoreWorkerCounts(int worker, std::int64_t gradients, std::int64_t updates) override;
    const std::vector<ShardPlacement>& placements() const override { return m_placements; }

    struct Worker;  // defined in parameter_server_worker.hpp

private:
    void workerLoop(Worker& worker);
    void computeGradient(Worker& worker);
    void grantPermit(Worker& worker);
    void applyUpdate(std::span<const float> gradient);
    void serverTask(int server);
    bool waitForInbox(std::unique_lock<std::mutex>& lock);
    /// Nanoseconds a gradient takes at full speed under the update-rate limit (0: no limit).
    double pacedGradientNs() const;
    const StepReport& stepAsync();
    const StepReport& stepSync();
    void fillReport(std::int64_t startNs);
    /// Puts `worker`'s stats and a copy of its spans in its lane of the report.
    void reportWorker(const Worker& worker);

    RunConfig m_config;
    DataSplit m_data;
    LossFunction m_loss;
    BatchSampler m_sampler;
    std::unique_ptr<Model> m_serverModel;    // the canonical variables, split over the servers
    std::unique_ptr<Optimizer> m_optimizer;  // its slots live with the shards they update
    std::vector<ShardPlacement> m_placements;
    int m_serverCount;
    int m_coordinatorThreads = 1;                     // coordinatorThreads(this machine's cores, the workers)
    std::unique_ptr<ParameterTransport> m_transport;  // the only way parameters and gradients cross
    std::vector<std::unique_ptr<Worker>> m_workers;
    std::unique_ptr<ReplicaPool> m_servers;

    mutable std::mutex m_mutex;   // worker states, the inbox, the sampler, the redo queue
    std::string m_workerFailure;  // guarded by m_mutex: why a worker's thread ended, if it failed
    std::condition_variable m_workerWake;
    std::condition_variable m_inboxReady;
    std::deque<int> m_inbox;                       // workers whose gradient waits to be applied
    std::deque<std::vector<std::int64_t>> m_redo;  // batches of killed workers, to run again
    std::int64_t m_version = 0;                    // updates applied
    std::atomic<float> m_learningRate;
    std::atomic<ParameterServerMode> m_mode;
    std::atomic<int> m_lostServer{-1};
    std::atomic<double> m_rateLimit{0.0};  // updates per second; 0: none (setUpdateRateLimit)
    std::vector<Worker*> m_syncFresh;      // sync mode: fresh gradients gathered so far (a paced step returns early)
    std::atomic<bool> m_stopping{false};
    std::span<const float> m_applyGradient;  // what the servers apply in serverTask
    std::vector<float> m_aggregate;          // sync mode: the averaged gradient
    std::vector<std::int64_t> m_serverBusyNs;
    std::array<std::int64_t, kMaxWatchedValues> m_watched{};
    int m_watchedCount = 0;
    std::int64_t m_clockOriginNs;
    StepReport m_report;
    std::unique_ptr<EvaluationBuffers> m_evaluation;
    std::vector<std::vector<Span>> m_reportSpans;  ///< per worker: the spans its lane in m_report shows
};

}  // namespace distlab
