#include "distlab/distribute/mirrored_trainer.hpp"

#include <thread>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "distribute/model_evaluation.hpp"

namespace distlab {
namespace {
std::string replicaDevice(const StrategyConfig& strategy, int replica) {
    const auto index = static_cast<std::size_t>(replica);
    return index < strategy.devices.size() ? strategy.devices[index].toString() : "cpu:" + std::to_string(replica);
}
}  // namespace

MirroredTrainer::MirroredTrainer(const RunConfig& config, DataSplit data, std::unique_ptr<Communicator> workers)
    : m_config(config),
      m_data(std::move(data)),
      m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_clockOriginNs(nowNs()),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    m_workers = std::move(workers);
    const int ranks = static_cast<int>(config.strategy.replicaCount());
    m_group = std::make_unique<InProcessGroup>(ranks, config.strategy.crossDeviceOps);
    for (int r = 0; r < ranks; ++r) {
        Communicator* communicator = &m_group->communicator(r);
        if (m_workers) {
            m_replicaCommunicators.push_back(std::make_unique<HierarchicalCommunicator>(*communicator, *m_workers));
            communicator = m_replicaCommunicators.back().get();
        }
        const DeviceMemoryScope memory(r);  // rank r's copy counts on its device (cpu:r)
        // Across processes the reduction overlaps backward, as DDP's buckets do: there a pack's
        // all-reduce is a network round trip worth hiding, in process it is a memory pass.
        const bool acrossProcesses = m_workers && m_workers->size() > 1;
        m_ranks.push_back(std::make_unique<MirroredRank>(m_config, m_data.train.features, *communicator, m_clockOriginNs, acrossProcesses));
    }
    m_evaluation = std::make_unique<EvaluationBuffers>(m_ranks[0]->model());
    m_report.replicas.resize(static_cast<std::size_t>(ranks));
    // A rank that throws aborts the group, so peers waiting for it in a collective are released.
    m_pool = std::make_unique<ReplicaPool>(
        ranks, threadsPerReplica(config.threads, ranks), [this](int r) { runRank(r); }, [this] { m_group->abort(); });
    // Every copy starts from the same initial value (TF initialises on one device and copies);
    // the workers' processes from worker 0's.
    if (!m_workers || m_workers->rank() == 0) m_ranks[0]->model().initialize(config.model.init, config.seed);
    broadcastParameters();
}

MirroredTrainer::~MirroredTrainer() = default;

void MirroredTrainer::runRank(int rank) {
    MirroredRank& self = *m_ranks[static_cast<std::size_t>(rank)];
    switch (m_task) {
        case RankTask::Step:
            self.step(m_data.train, m_currentBatch, m_report.learningRate);
            break;
        case RankTask::BroadcastParameters:
            self.broadcastParameters();
            break;
    }
}

bool MirroredTrainer::setCollectiveTrace(CollectiveTrace* trace) {
    if (m_ranks.size() < 2) return false;
    for (auto& rank : m_ranks) rank->communicator().setTrace(trace);
    return true;
}

bool MirroredTrainer::failDevice(int replica) {
    if (replica < 0 || replica >= replicaCount()) return false;
    m_ranks[static_cast<std::size_t>(replica)]->failNextStep("device " + replicaDevice(m_config.strategy, replica) +
                                                             " was lost during step " + std::to_string(m_stepsDone + 1) +
                                                             " (injected fault)");
    return true;
}

GradientAggregationStats MirroredTrainer::gradientAggregation() const { return Model::aggregationStats(m_ranks[0]->lastContext()); }

std::int64_t MirroredTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

Model& MirroredTrainer::replicaModel(int replica) { return m_ranks[static_cast<std::size_t>(replica)]->model(); }
const Model& MirroredTrainer::replicaModel(int replica) const { return m_ranks[static_cast<std::size_t>(replica)]->model(); }
Optimizer& MirroredTrainer::replicaOptimizer(int replica) { return m_ranks[static_cast<std::size_t>(replica)]->optimizer(); }

void MirroredTrainer::broadcastParameters() {
    m_task = RankTask::BroadcastParameters;
    m_pool->run();
    m_task = RankTask::Step;
}

void MirroredTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
}

const StepReport& MirroredTrainer::step() {
    m_currentBatch = m_sampler.next();
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_report.startNs = clockNs();
    m_pool->run();
    m_report.endNs = clockNs();
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    for (std::size_t r = 0; r < m_ranks.size(); ++r) m_report.replicas[r] = m_ranks[r]->stats();
    // The global figures as rank 0 received them from the reduction (every rank holds the same).
    const GlobalStepStats& global = m_ranks[0]->global();
    const auto batch = static_cast<double>(m_config.data.globalBatchSize);
    m_report.samples = m_config.data.globalBatchSize;
    m_report.loss = global.lossSum / batch;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(global.correct) / batch : -1.0;
    return m_report;
}

void MirroredTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    for (auto& rank : m_ranks) rank->setWatched(flatIndices);
}

const Tensor& MirroredTrainer::predict(const Tensor& input) { return m_ranks[0]->model().forward(input, m_evaluation->context); }

EvalResult MirroredTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    return evaluateModel(m_ranks[0]->model(), m_loss, data, maxExamples, *m_evaluation);
}

}  // namespace distlab
