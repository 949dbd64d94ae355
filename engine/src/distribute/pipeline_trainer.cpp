#include "distribute/pipeline_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/copy_state.hpp"
#include "distribute/model_evaluation.hpp"

namespace distlab {

/// What one device keeps of a step: its spans, its lane's figures, which of its stages have
/// written their gradients (the first backward writes, later ones add).
struct PipelineTrainer::Device {
    int copy = 0;  ///< its data-parallel copy
    int rank = 0;  ///< its place in the pipeline (the device of the copy's placement)
    SpanRecorder spans;
    ReplicaStepStats stats;
    std::vector<char> written;  ///< per chunk
    double gradientSquares = 0.0;
    std::int64_t bytesSent = 0;
    std::int64_t waitNs = 0;     ///< in the all-reduces across copies
    std::int64_t heldBytes = 0;  ///< activations its stages hold now (forwards whose backward has not freed them)
    std::int32_t held = 0;
    std::int64_t peakBytes = 0;
    std::int32_t peakHeld = 0;
    /// A forward's activations are held (`bytes` of them), or a backward frees them (negative).
    void hold(std::int64_t bytes) {
        heldBytes += bytes;
        held += bytes > 0 ? 1 : -1;
        peakBytes = std::max(peakBytes, heldBytes);
        peakHeld = std::max(peakHeld, held);
    }
};

/// One data-parallel copy of the pipeline: its variables and optimizer, and its micro-batches'
/// state, which its devices share.
struct PipelineTrainer::Copy {
    std::unique_ptr<Model> model;
    std::unique_ptr<Optimizer> optimizer;
    std::vector<ModelContext> contexts;  ///< one a micro-batch: every layer's activations
    // Stage boundaries: [boundary b between stage b and b + 1][micro-batch].
    std::vector<std::unique_ptr<Handover[]>> activations;
    std::vector<std::unique_ptr<Handover[]>> gradients;
    std::vector<Tensor> inputs;               ///< the first stage's gathered micro-batches (where not read in place)
    std::vector<ConstTensorView> inputViews;  ///< each micro-batch's input, for the first layer's backward
    std::vector<BatchTargets> targets;        ///< the last stage's
    std::vector<Tensor> lossGrads;            ///< the last stage's d(loss)/d(output), scaled by 1/G
    std::vector<LossStats> microLoss;         ///< each micro-batch's loss, on the last stage
    int index = 0;                            ///< which copy: it computes the index-th of dp shards of the batch
};

PipelineTrainer::PipelineTrainer(const RunConfig& config, DataSplit data)
    : m_config(config),
      m_data(std::move(data)),
      m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_clockOriginNs(nowNs()),
      m_virtualClock(config.clock == ClockMode::Virtual),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    const auto dp = static_cast<int>(config.strategy.dataParallel);
    for (int c = 0; c < dp; ++c) {
        // Every copy's variables are the ones one device would make, from the same seed.
        auto copy = std::make_unique<Copy>();
        copy->index = c;
        copy->model = std::make_unique<Model>(config.model, m_data.train.features);
        copy->model->initialize(config.model.init, config.seed);
        copy->optimizer = makeOptimizer(config.optimizer, copy->model->store().totalSize());
        m_copies.push_back(std::move(copy));
    }
    const Model& model = *m_copies.front()->model;
    const auto lanes = static_cast<int>(pipelineDevices(config).size());  // every copy's devices
    if (config.strategy.balance == StageBalance::Measured && config.model.layers.front().stage < 0) {
        // Timed at the run's micro-batch, with a device's threads, before any device thread runs.
        const std::int64_t rows = config.data.globalBatchSize / (dp * config.strategy.microBatches);
        m_placement =
            placeLayers(config, measureLayerCosts(config.model, m_data.train.features, rows, threadsPerReplica(config.threads, lanes)));
    } else {
        m_placement = placeLayers(config, model);
    }
    auto orders = passOrders(config, m_placement);
    if (!orders) throw TrainingError(orders.error().message);
    m_orders = std::move(*orders);
    m_stageOfChunk.resize(static_cast<std::size_t>(m_placement.devices));
    for (std::size_t s = 0; s < m_placement.stages.size(); ++s)
        m_stageOfChunk[static_cast<std::size_t>(m_placement.stages[s].device)].push_back(static_cast<int>(s));
    m_microBatches = static_cast<int>(config.strategy.microBatches);
    const auto m = static_cast<std::size_t>(m_microBatches);
    for (auto& copy : m_copies) {
        for (std::size_t i = 0; i < m; ++i) copy->contexts.push_back(copy->model->makeContext());
        for (std::size_t b = 0; b + 1 < m_placement.stages.size(); ++b) {
            copy->activations.push_back(std::make_unique<Handover[]>(m));
            copy->gradients.push_back(std::make_unique<Handover[]>(m));
        }
        copy->inputs.resize(m);
        copy->inputViews.resize(m);
        copy->targets.resize(m);
        copy->lossGrads.resize(m);
        copy->microLoss.resize(m);
    }
    if (dp > 1)
        for (int d = 0; d < m_placement.devices; ++d)
            m_dataGroups.push_back(std::make_unique<InProcessGroup>(dp, config.strategy.crossDeviceOps));
    for (int g = 0; g < lanes; ++g) {
        auto device = std::make_unique<Device>();
        device->copy = g / m_placement.devices;
        device->rank = g % m_placement.devices;
        m_devices.push_back(std::move(device));
    }
    m_report.replicas.resize(static_cast<std::size_t>(lanes));
    m_evaluation = std::make_unique<EvaluationBuffers>(model);
    m_pool = std::make_unique<ReplicaPool>(
        lanes, threadsPerReplica(config.threads, lanes), [this](int g) { runDevice(g); }, [this] { abort(); }, "device");
}

PipelineTrainer::~PipelineTrainer() = default;

std::int64_t PipelineTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

void PipelineTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
}

PipelineTrainer::Copy& PipelineTrainer::copyOfLane(int lane) const {
    return *m_copies[static_cast<std::size_t>(lane / m_placement.devices)];
}
PipelineTrainer::Device& PipelineTrainer::deviceOf(const Copy& copy, int device) {
    return *m_devices[static_cast<std::size_t>(copy.index) * static_cast<std::size_t>(m_placement.devices) +
                      static_cast<std::size_t>(device)];
}
Model& PipelineTrainer::replicaModel(int replica) { return *copyOfLane(replica).model; }
const Model& PipelineTrainer::replicaModel(int replica) const { return *copyOfLane(replica).model; }
Optimizer& PipelineTrainer::replicaOptimizer(int index) { return *m_copies[static_cast<std::size_t>(index)]->optimizer; }

void PipelineTrainer::broadcastParameters() {
    // Every copy takes copy 0's variables and slots, as a mirrored run's replicas take replica 0's.
    for (std::size_t c = 1; c < m_copies.size(); ++c)
        copyTrainingState(*m_copies.front()->model, *m_copies.front()->optimizer, *m_copies[c]->model, *m_copies[c]->optimizer);
}

void PipelineTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    m_watched.assign(flatIndices.begin(),
                     flatIndices.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues)));
}

GradientAggregationStats PipelineTrainer::gradientAggregation() const {
    return Model::aggregationStats(m_copies.front()->contexts.front());
}

const Tensor& PipelineTrainer::predict(const Tensor& input) { return m_copies.front()->model->forward(input, m_evaluation->context); }

EvalResult PipelineTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    return evaluateModel(*m_copies.front()->model, m_loss, data, maxExamples, *m_evaluation);
}

PipelineTrainer::Handover& PipelineTrainer::activation(Copy& copy, int stage, int micro) {
    return copy.activations[static_cast<std::size_t>(stage) - 1][static_cast<std::size_t>(micro)];
}

PipelineTrainer::Handover& PipelineTrainer::gradient(Copy& copy, int stage, int micro) {
    return copy.gradients[static_cast<std::size_t>(stage)][static_cast<std::size_t>(micro)];
}

std::pair<std::int64_t, std::int64_t> PipelineTrainer::parameterRange(int stage) const {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const Model& model = *m_copies.front()->model;  // every copy's layout is the same
    const std::int64_t end = placed.endLayer < model.layers().size() ? model.gradientBegin(placed.endLayer) : model.store().totalSize();
    return {model.gradientBegin(placed.firstLayer), end};
}

std::int64_t PipelineTrainer::activationBytes(const PipelineStage& stage, const ModelContext& context) {
    std::int64_t bytes = 0;
    for (std::size_t layer = stage.firstLayer; layer < stage.endLayer; ++layer) bytes += context.layers[layer]->output.bytes();
    return bytes;
}

void PipelineTrainer::abort() {
    m_aborted.store(true, std::memory_order_release);
    for (auto& copy : m_copies)
        for (std::size_t b = 0; b < copy->activations.size(); ++b)
            for (int i = 0; i < m_microBatches; ++i) {
                wakeForAbort(copy->activations[b][static_cast<std::size_t>(i)].posted);
                wakeForAbort(copy->gradients[b][static_cast<std::size_t>(i)].posted);
            }
    for (auto& group : m_dataGroups) group->abort();
}

std::int64_t PipelineTrainer::post(ConstTensorView values, Handover& handover) {
    const std::int64_t rows = values.rows();
    handover.buffer.resize2d(rows, rows > 0 ? values.size() / rows : 0);
    std::copy_n(values.data(), values.size(), handover.buffer.data());
    handover.posted.store(m_generation, std::memory_order_release);
    handover.posted.notify_all();
    return values.bytes();
}

const Tensor& PipelineTrainer::receive(Handover& handover) {
    spinWaitWhileEqual(handover.posted, m_generation - 1, &m_aborted);
    return handover.buffer;
}

std::optional<std::unique_lock<std::mutex>> PipelineTrainer::computeAlone() {
    if (!m_virtualClock) return std::nullopt;
    return std::unique_lock(m_oneAtATime);
}

void PipelineTrainer::forward(Copy& copy, int stage, int micro) {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const auto i = static_cast<std::size_t>(micro);
    ModelContext& context = copy.contexts[i];
    const Model& model = *copy.model;
    Device& self = deviceOf(copy, placed.device);
    std::int64_t begin = 0;
    ConstTensorView input;
    std::optional<std::unique_lock<std::mutex>> alone;
    if (stage == 0) {
        alone = computeAlone();
        begin = clockNs();
        // The first stage reads the micro-batch of its copy's shard; its labels go with it to the last stage.
        const auto indices = BatchSampler::shard(m_batch, copy.index, static_cast<std::int64_t>(m_copies.size()), micro, m_microBatches);
        input = gatherBatch(m_data.train, indices, copy.inputs[i], copy.targets[i]);
        copy.inputViews[i] = input;
    } else {
        input = receive(activation(copy, stage, micro)).view();
        alone = computeAlone();
        begin = clockNs();  // the wait before it is the device's bubble
    }
    const Tensor* output = &model.layers()[placed.firstLayer]->forward(input, *context.layers[placed.firstLayer]);
    for (std::size_t layer = placed.firstLayer + 1; layer < placed.endLayer; ++layer)
        output = &model.layers()[layer]->forward(*output, *context.layers[layer]);
    std::int64_t bytes = 0;
    if (static_cast<std::size_t>(stage) + 1 == m_placement.stages.size())
        copy.microLoss[i] =
            m_loss.evaluate(*output, copy.targets[i], 1.0f / static_cast<float>(m_config.data.globalBatchSize), copy.lossGrads[i]);
    else
        bytes = post(output->view(), activation(copy, stage + 1, micro));
    self.bytesSent += bytes;
    self.hold(activationBytes(placed, context));
    self.spans.add(
        Span{begin, clockNs(), bytes, 0, static_cast<std::int16_t>(micro), -1, SpanKind::Forward, false, static_cast<std::int16_t>(stage)});
}

void PipelineTrainer::backward(Copy& copy, int stage, int micro, PassKind kind) {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const auto i = static_cast<std::size_t>(micro);
    ModelContext& context = copy.contexts[i];
    Model& model = *copy.model;
    Device& self = deviceOf(copy, placed.device);
    // What layer `layer` received in this micro-batch's forward.
    const auto inputOf = [&](std::size_t layer) {
        return layer > placed.firstLayer ? context.layers[layer - 1]->output.view()
               : stage == 0              ? copy.inputViews[i]
                                         : activation(copy, stage, micro).buffer.view();
    };
    char& written = self.written[static_cast<std::size_t>(placed.chunk)];
    if (kind == PassKind::BackwardWeight) {  // W: the parameters' gradients, from what its B kept
        const auto alone = computeAlone();
        const std::int64_t begin = clockNs();
        for (std::size_t layer = placed.firstLayer; layer < placed.endLayer; ++layer) {
            context.layers[layer]->overwriteGradients = written == 0;
            model.backwardWeightLayer(layer, inputOf(layer), context);
        }
        written = 1;
        self.hold(-activationBytes(placed, context));  // W was the last to read them
        self.spans.add(Span{begin, clockNs(), 0, 0, static_cast<std::int16_t>(micro), -1, SpanKind::BackwardWeight, false,
                            static_cast<std::int16_t>(stage)});
        return;
    }
    const bool last = static_cast<std::size_t>(stage) + 1 == m_placement.stages.size();
    const Tensor* grad = last ? &copy.lossGrads[i] : &receive(gradient(copy, stage, micro));
    const auto alone = computeAlone();
    const std::int64_t begin = clockNs();
    for (std::size_t layer = placed.endLayer; layer-- > placed.firstLayer;) {
        if (kind == PassKind::BackwardInput) {  // B: the input gradient alone; W adds the parameters' later
            grad = &model.backwardInputLayer(layer, inputOf(layer), *grad, context);
            continue;
        }
        context.layers[layer]->overwriteGradients = written == 0;
        grad = &model.backwardLayer(layer, inputOf(layer), *grad, context);
    }
    if (kind == PassKind::Backward) {
        written = 1;
        self.hold(-activationBytes(placed, context));
    }
    std::int64_t bytes = 0;
    if (stage > 0) bytes = post(grad->view(), gradient(copy, stage - 1, micro));
    self.bytesSent += bytes;
    self.spans.add(Span{begin, clockNs(), bytes, 0, static_cast<std::int16_t>(micro), -1,
                        kind == PassKind::BackwardInput ? SpanKind::BackwardInput : SpanKind::Backward, false,
                        static_cast<std::int16_t>(stage)});
}

void PipelineTrainer::reduceAcrossCopies(Device& self) {
    // Each copy's loss was scaled by 1/G, so the copies' gradients add up to the whole batch's, as
    // mirrored's reduction does. One all-reduce per stage of the device: each is a contiguous run.
    Communicator& group = m_dataGroups[static_cast<std::size_t>(self.rank)]->communicator(self.copy);
    const std::span<float> grads = m_copies[static_cast<std::size_t>(self.copy)]->model->store().grads();
    for (int stage : m_stageOfChunk[static_cast<std::size_t>(self.rank)]) {
        const auto [first, end] = parameterRange(stage);
        const std::int64_t begin = clockNs();
        const CollectiveTiming timing =
            group.allReduce(grads.subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(end - first)), ReduceOp::Sum).wait();
        self.bytesSent += timing.bytesSent;
        self.waitNs += timing.waitNs;
        self.spans.add(
            Span{begin, clockNs(), timing.bytesSent, timing.waitNs, -1, -1, SpanKind::AllReduce, false, static_cast<std::int16_t>(stage)});
    }
}

void PipelineTrainer::runDevice(int lane) {
    Device& self = *m_devices[static_cast<std::size_t>(lane)];
    Copy& copy = *m_copies[static_cast<std::size_t>(self.copy)];
    const auto d = static_cast<std::size_t>(self.rank);
    self.spans.clear();
    self.written.assign(m_stageOfChunk[d].size(), 0);
    self.bytesSent = self.waitNs = 0;
    self.gradientSquares = 0.0;
    self.heldBytes = self.peakBytes = 0;
    self.held = self.peakHeld = 0;
    const std::int64_t start = clockNs();
    for (const PipelinePass& pass : m_orders[d]) {
        const int stage = m_stageOfChunk[d][static_cast<std::size_t>(pass.chunk)];
        if (pass.kind == PassKind::Forward)
            forward(copy, stage, pass.microBatch);
        else
            backward(copy, stage, pass.microBatch, pass.kind);
    }
    const std::int64_t computeEnd = clockNs();
    // The flush is over: every micro-batch's gradient is in. With data-parallel copies, the device's
    // stages' gradients are summed across them (not alone on the virtual clock: a collective needs
    // every copy at once; placeOnVirtualClock counts its time without the waiting).
    if (!m_dataGroups.empty()) reduceAcrossCopies(self);
    const auto alone = computeAlone();
    const std::int64_t updateStart = clockNs();
    // Each device updates its own layers.
    std::span<float> values = copy.model->store().values();
    std::span<const float> grads = copy.model->store().grads();
    for (int stage : m_stageOfChunk[d]) {
        const auto [first, end] = parameterRange(stage);
        const auto offset = static_cast<std::size_t>(first), size = static_cast<std::size_t>(end - first);
        self.gradientSquares += sumOfSquares(grads.subspan(offset, size));
        copy.optimizer->applyRange(values.subspan(offset, size), grads.subspan(offset, size), m_report.learningRate, first);
    }
    const std::int64_t updateEnd = clockNs();
    self.spans.add(Span{updateStart, updateEnd, 0, 0, -1, -1, SpanKind::Optimizer});
    ReplicaStepStats& stats = self.stats;
    stats = ReplicaStepStats{};
    stats.startNs = start;
    stats.computeEndNs = computeEnd;
    stats.commEndNs = updateStart;
    stats.updateEndNs = updateEnd;
    stats.bytesSent = self.bytesSent;
    stats.commWaitNs = self.waitNs;
    stats.activationPeakBytes = self.peakBytes;
    stats.activationPeakMicroBatches = self.peakHeld;
    for (std::size_t w = 0; w < m_watched.size(); ++w) {
        const std::int64_t index = m_watched[w];
        bool held = false;
        for (int stage : m_stageOfChunk[d]) {
            const auto [first, end] = parameterRange(stage);
            held = held || (index >= first && index < end);
        }
        stats.watched[w] = held ? values[static_cast<std::size_t>(index)] : std::numeric_limits<float>::quiet_NaN();
    }
}

void PipelineTrainer::placeOnVirtualClock(std::int64_t stepStart) {
    // Each device's spans are its passes in its order, its all-reduces across the copies (dp > 1),
    // then its optimizer; their lengths are the durations, timed alone (an all-reduce's without its
    // wait for the other copies). Every copy runs the schedule on its own devices.
    const auto p = static_cast<std::size_t>(m_placement.devices);
    std::vector<std::int64_t> reductionStart(p, stepStart);  // per pipeline device: when its last copy is ready
    std::vector<PipelineTimeline> timelines;
    for (std::size_t c = 0; c < m_copies.size(); ++c) {
        auto timeline = simulatePipeline(m_orders, m_microBatches, m_stageOfChunk, [&](int device, std::size_t index) {
            const Span& span = m_devices[c * p + static_cast<std::size_t>(device)]->spans.spans()[index];
            return static_cast<double>(span.endNs - span.beginNs);
        });
        if (!timeline) throw TrainingError("the virtual clock cannot place the step: " + timeline.error().message);
        for (std::size_t d = 0; d < p; ++d)
            if (!timeline->devices[d].empty())
                reductionStart[d] = std::max(reductionStart[d], stepStart + static_cast<std::int64_t>(timeline->devices[d].back().end));
        timelines.push_back(std::move(*timeline));
    }
    // An all-reduce ends for every copy when its slowest copy's part is done.
    const std::size_t reductions = m_dataGroups.empty() ? 0 : m_stageOfChunk.front().size();
    std::vector<std::vector<std::int64_t>> reductionNs(p, std::vector<std::int64_t>(reductions, 0));
    for (std::size_t g = 0; g < m_devices.size(); ++g) {
        const std::span<const Span> spans = m_devices[g]->spans.spans();
        const std::size_t passes = timelines[g / p].devices[g % p].size();
        for (std::size_t k = 0; k < reductions; ++k) {
            const Span& span = spans[passes + k];
            reductionNs[g % p][k] = std::max(reductionNs[g % p][k], std::max<std::int64_t>(0, span.endNs - span.beginNs - span.waitNs));
        }
    }
    m_report.endNs = stepStart;
    for (std::size_t g = 0; g < m_devices.size(); ++g) {
        Device& device = *m_devices[g];
        const std::size_t d = g % p;
        m_placed.assign(device.spans.spans().begin(), device.spans.spans().end());
        const std::vector<TimedPass>& passes = timelines[g / p].devices[d];
        for (std::size_t k = 0; k < passes.size(); ++k) {
            m_placed[k].beginNs = stepStart + static_cast<std::int64_t>(passes[k].start);
            m_placed[k].endNs = stepStart + static_cast<std::int64_t>(passes[k].end);
        }
        const std::int64_t lastPassEnd = passes.empty() ? stepStart : m_placed[passes.size() - 1].endNs;
        std::int64_t at = reductions > 0 ? reductionStart[d] : lastPassEnd;
        for (std::size_t k = 0; k < reductions; ++k) {
            Span& reduction = m_placed[passes.size() + k];
            reduction.waitNs = k == 0 ? at - lastPassEnd : 0;  // waiting for the slowest copy
            reduction.beginNs = k == 0 ? lastPassEnd : at;
            at += reductionNs[d][k];
            reduction.endNs = at;
        }
        Span& optimizer = m_placed.back();  // after the device's last pass and its all-reduces
        optimizer.endNs = at + (optimizer.endNs - optimizer.beginNs);
        optimizer.beginNs = at;
        device.spans.clear();
        for (const Span& span : m_placed) device.spans.add(span);
        device.stats.startNs = stepStart;
        device.stats.computeEndNs = lastPassEnd;
        device.stats.commEndNs = at;
        device.stats.commWaitNs = reductions > 0 ? reductionStart[d] - lastPassEnd : 0;
        device.stats.updateEndNs = optimizer.endNs;
        m_report.endNs = std::max(m_report.endNs, optimizer.endNs);
    }
}

const StepReport& PipelineTrainer::step() {
    m_batch = m_sampler.next();
    ++m_generation;
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    for (auto& copy : m_copies) copy->optimizer->beginUpdate();
    m_report.startNs = clockNs();
    m_pool->run();
    m_report.endNs = clockNs();
    if (m_virtualClock) {
        // Virtual steps follow one another on their own clock (a pause or the wall's other work
        // leaves no gap in it): each starts where the last one ended.
        m_report.startNs = m_virtualNowNs;
        placeOnVirtualClock(m_report.startNs);
        m_virtualNowNs = m_report.endNs;
    }
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    // The copies' losses add up to the batch's (each a shard's, scaled by 1/G); copy 0's devices
    // hold every parameter's reduced gradient once.
    LossStats total;
    for (const auto& copy : m_copies)
        for (const LossStats& part : copy->microLoss) {
            total.sum += part.sum;
            total.correct += part.correct;
            total.count += part.count;
        }
    double squares = 0.0;
    for (const auto& device : m_devices)
        if (device->copy == 0) squares += device->gradientSquares;
    const auto batch = static_cast<double>(m_config.data.globalBatchSize);
    const std::int64_t copyExamples = m_config.data.globalBatchSize / static_cast<std::int64_t>(m_copies.size());
    for (std::size_t g = 0; g < m_devices.size(); ++g) {
        ReplicaStepStats& lane = m_report.replicas[g];
        lane = m_devices[g]->stats;
        // Every device's layers saw its copy's whole shard; the loss is the step's (the last stages').
        lane.lossSum = total.sum;
        lane.correct = total.correct;
        lane.examples = copyExamples;
        lane.gradNormBefore = lane.gradNormAfter = std::sqrt(squares);
        lane.spans = m_devices[g]->spans.spans();
    }
    m_report.samples = m_config.data.globalBatchSize;
    m_report.loss = total.sum / batch;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(total.correct) / batch : -1.0;
    return m_report;
}

}  // namespace distlab
