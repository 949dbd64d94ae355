#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/distribute/parameter_server_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "distlab/comm/gradient_packer.hpp"
#include "distlab/comm/spin_barrier.hpp"
#include "distlab/model/layer_registry.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "distribute/memory_budget.hpp"
#include "distribute/model_evaluation.hpp"
#include "distribute/replica_step.hpp"

namespace distlab {

struct MirroredTrainer::Replica {
    Replica(const RunConfig& config, std::int64_t features)
        : model(config.model, features), optimizer(makeOptimizer(config.optimizer, model.store().totalSize())),
          packer(config.strategy, model.store().infos()) {}
    Model model;
    std::unique_ptr<Optimizer> optimizer;
    GradientPacker packer;  ///< the gradient's packs (num_packs / bytes_per_pack), each reduced on its own
    Communicator* communicator = nullptr;
    ReplicaBatch batch;
    ReplicaStepStats stats;
};

namespace {
double l2Norm(std::span<const float> values) {
    double sum = 0.0;
    for (float v : values) sum += static_cast<double>(v) * v;
    return std::sqrt(sum);
}

DataExpectations expectationsOf(const RunConfig& config) {
    // The model's output width, known before the data is (a residual block keeps its input's width).
    const std::int64_t units = declaredOutputWidth(config.model.layers);
    DataExpectations expect;
    if (config.model.loss == LossKind::SoftmaxCrossEntropy) expect.classes = units;
    else expect.outputs = units;
    return expect;
}

std::string replicaDevice(const StrategyConfig& strategy, int replica) {
    const auto index = static_cast<std::size_t>(replica);
    return index < strategy.devices.size() ? strategy.devices[index].toString() : "cpu:" + std::to_string(replica);
}

int threadsPerReplica(const RunConfig& config) {
    const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t total = config.threads > 0 ? config.threads : cores;
    return static_cast<int>(std::max<std::int64_t>(1, total / config.strategy.replicaCount()));
}
}  // namespace

void gatherBatch(const Dataset& data, std::span<const std::int64_t> indices, Tensor& input, BatchTargets& targets) {
    const auto rows = static_cast<std::int64_t>(indices.size());
    input.resize2d(rows, data.features);
    const auto rowBytes = static_cast<std::size_t>(data.features) * sizeof(float);
    for (std::int64_t r = 0; r < rows; ++r)
        std::memcpy(input.data() + r * data.features, data.x.data() + indices[static_cast<std::size_t>(r)] * data.features,
                    rowBytes);
    if (data.isClassification()) {
        targets.labels.resize(static_cast<std::size_t>(rows));
        for (std::int64_t r = 0; r < rows; ++r)
            targets.labels[static_cast<std::size_t>(r)] = data.labels[static_cast<std::size_t>(indices[static_cast<std::size_t>(r)])];
    } else {
        targets.values.resize2d(rows, data.outputs);
        for (std::int64_t r = 0; r < rows; ++r)
            std::memcpy(targets.values.data() + r * data.outputs,
                        data.targets.data() + indices[static_cast<std::size_t>(r)] * data.outputs,
                        static_cast<std::size_t>(data.outputs) * sizeof(float));
    }
}

Result<std::unique_ptr<Trainer>> Trainer::create(const RunConfig& config) {
    for (const DeviceName& device : config.strategy.devices)
        if (device.kind == DeviceName::Kind::Gpu)
            return Error{"strategy.devices: " + device.toString() +
                         ": GPU training is not available in this version yet; use cpu:K logical devices"};
    auto data = loadData(config.data, expectationsOf(config), config.seed, config.baseDirectory);
    if (!data) return data.error();
    const auto footprint = Model::check(config.model, data->train.features);
    if (!footprint) return footprint.error();
    if (auto status = checkFitsInMemory(config, *footprint); !status) return status.error();
    if (data->train.count < config.data.globalBatchSize)
        return Error{"data.global_batch_size: " + std::to_string(config.data.globalBatchSize) +
                     " is larger than the " + std::to_string(data->train.count) + " training samples"};
    return create(config, std::move(data.value()));
}

std::unique_ptr<Trainer> Trainer::create(const RunConfig& config, DataSplit data) {
    if (config.strategy.type == StrategyKind::ParameterServer)
        return std::make_unique<ParameterServerTrainer>(config, std::move(data));
    return std::make_unique<MirroredTrainer>(config, std::move(data));
}

MirroredTrainer::MirroredTrainer(const RunConfig& config, DataSplit data)
    : m_config(config), m_data(std::move(data)), m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_accumulationSteps(config.strategy.gradientAccumulationSteps),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)), m_clockOriginNs(nowNs()),
      m_evaluation(std::make_unique<EvaluationBuffers>()) {
    const int replicas = static_cast<int>(config.strategy.replicaCount());
    m_centralStorage = config.strategy.type == StrategyKind::CentralStorage;
    m_microBatch = config.data.globalBatchSize / replicas / m_accumulationSteps;
    m_group = std::make_unique<InProcessGroup>(replicas, config.strategy.crossDeviceOps);
    for (int r = 0; r < replicas; ++r) {
        const DeviceMemoryScope memory(r);  // replica r's copy counts on its device (cpu:r)
        auto replica = std::make_unique<Replica>(config, m_data.train.features);
        replica->communicator = &m_group->communicator(r);
        replica->model.setBatchSize(m_microBatch);
        replica->batch.input.resize2d(m_microBatch, m_data.train.features);
        replica->batch.targets.labels.reserve(static_cast<std::size_t>(m_microBatch));
        replica->batch.targets.values.resize2d(m_microBatch, std::max<std::int64_t>(1, m_data.train.outputs));
        replica->batch.lossGrad.resize2d(m_microBatch, replica->model.outputFeatures());
        m_replicas.push_back(std::move(replica));
    }
    // Every copy starts from the same initial value (TF initialises on one device and copies).
    m_replicas[0]->model.initialize(config.model.init, config.seed);
    broadcastParameters();
    m_report.replicas.resize(static_cast<std::size_t>(replicas));
    // A replica that throws aborts the group, so peers waiting for it in a collective are released.
    m_pool = std::make_unique<ReplicaPool>(replicas, threadsPerReplica(config), [this](int r) { runReplica(r); },
                                           [this] { m_group->abort(); });
}

bool MirroredTrainer::setCollectiveTrace(CollectiveTrace* trace) {
    if (m_replicas.size() < 2) return false;
    for (auto& replica : m_replicas) replica->communicator->setTrace(trace);
    return true;
}

bool MirroredTrainer::failDevice(int replica) {
    if (replica < 0 || replica >= replicaCount()) return false;
    m_failingReplica = replica;
    return true;
}

MirroredTrainer::~MirroredTrainer() = default;

std::int64_t MirroredTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

Model& MirroredTrainer::replicaModel(int replica) { return m_replicas[static_cast<std::size_t>(replica)]->model; }
const Model& MirroredTrainer::replicaModel(int replica) const { return m_replicas[static_cast<std::size_t>(replica)]->model; }
Optimizer& MirroredTrainer::replicaOptimizer(int replica) { return *m_replicas[static_cast<std::size_t>(replica)]->optimizer; }

void MirroredTrainer::broadcastParameters() {
    const auto source = m_replicas[0]->model.store().values();
    for (std::size_t r = 1; r < m_replicas.size(); ++r)
        std::copy(source.begin(), source.end(), m_replicas[r]->model.store().values().begin());
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
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (std::size_t r = 0; r < m_replicas.size(); ++r) {
        m_report.replicas[r] = m_replicas[r]->stats;
        lossSum += m_replicas[r]->stats.lossSum;
        correct += m_replicas[r]->stats.correct;
    }
    const auto global = static_cast<double>(m_config.data.globalBatchSize);
    m_report.loss = lossSum / global;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(correct) / global : -1.0;
    return m_report;
}

void MirroredTrainer::runReplica(int index) {
    const DeviceMemoryScope memory(index);  // a buffer that grows here still counts on this replica's device
    Replica& replica = *m_replicas[static_cast<std::size_t>(index)];
    ReplicaStepStats& stats = replica.stats;
    stats = ReplicaStepStats{};
    stats.startNs = clockNs();
    if (m_centralStorage && index > 0) {
        // Central storage: the variables live once, on replica 0's device; the other compute
        // devices read them at the start of each step.
        const auto central = m_replicas[0]->model.store().values();
        std::copy(central.begin(), central.end(), replica.model.store().values().begin());
        stats.bytesSent += static_cast<std::int64_t>(central.size_bytes());
    }
    const auto replicas = static_cast<std::int64_t>(m_replicas.size());
    const LossStats loss = computeReplicaGradient(replica.model, m_loss, m_data.train, m_currentBatch, index, replicas,
                                                  m_accumulationSteps, 1.0f / static_cast<float>(m_config.data.globalBatchSize),
                                                  replica.batch);
    stats.lossSum = loss.sum;
    stats.correct = loss.correct;
    stats.examples = loss.count;
    auto grads = replica.model.store().grads();
    stats.gradNormBefore = l2Norm(grads);
    stats.computeEndNs = clockNs();
    if (index == m_failingReplica)
        throw TrainingError("device " + replicaDevice(m_config.strategy, index) + " was lost during step " +
                            std::to_string(m_stepsDone + 1) + " (injected fault)");
    if (replicas > 1) {
        CollectiveTiming timing;
        const auto packs = replica.packer.packs();
        for (std::size_t p = 0; p < packs.size(); ++p)
            timing.accumulate(replica.communicator->allReduce(
                grads.subspan(static_cast<std::size_t>(packs[p].begin), static_cast<std::size_t>(packs[p].size())),
                AllReduceOptions{ReduceOp::Sum, static_cast<int>(p)}));
        stats.bytesSent += timing.bytesSent;
        stats.commWaitNs = timing.waitNs;
        stats.gradNormAfter = l2Norm(grads);
    } else {
        stats.gradNormAfter = stats.gradNormBefore;
    }
    stats.commEndNs = clockNs();
    // Mirrored: every replica applies the same update to its own copy. Central storage: the
    // aggregated update is applied once, to the one copy.
    if (!m_centralStorage || index == 0) replica.optimizer->apply(replica.model.store().values(), grads, m_report.learningRate);
    const auto values = replica.model.store().values();
    for (int w = 0; w < m_watchedCount; ++w) {
        const std::int64_t element = m_watched[static_cast<std::size_t>(w)];
        stats.watched[w] = element >= 0 ? values[static_cast<std::size_t>(element)] : 0.0f;
    }
    stats.updateEndNs = clockNs();
}

void MirroredTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    // Positions are kept (an invalid index reports 0) so watched[i] always means the i-th request.
    m_watchedCount = static_cast<int>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues));
    for (int i = 0; i < m_watchedCount; ++i) {
        const std::int64_t index = flatIndices[static_cast<std::size_t>(i)];
        m_watched[static_cast<std::size_t>(i)] = index < m_replicas[0]->model.store().totalSize() ? index : -1;
    }
}

const Tensor& MirroredTrainer::predict(const Tensor& input) {
    Model& model = m_replicas[0]->model;
    m_predicted = model.forward(input);  // copy out: the model's buffers are resized back below
    model.setBatchSize(m_microBatch);
    return m_predicted;
}

EvalResult MirroredTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    Model& model = m_replicas[0]->model;
    const EvalResult result = evaluateModel(model, m_loss, data, maxExamples, *m_evaluation);
    model.setBatchSize(m_microBatch);
    return result;
}

}  // namespace distlab
