#include "distribute/pipeline_trainer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "distlab/comm/spin_barrier.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/model_evaluation.hpp"

namespace distlab {

/// What one device keeps of a step: its spans, its lane's figures, which of its stages have
/// written their gradients (the first backward writes, later ones add).
struct PipelineTrainer::Device {
    SpanRecorder spans;
    ReplicaStepStats stats;
    std::vector<char> written;  ///< per chunk
    double gradientSquares = 0.0;
    std::int64_t bytesSent = 0;
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

PipelineTrainer::PipelineTrainer(const RunConfig& config, DataSplit data)
    : m_config(config),
      m_data(std::move(data)),
      m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_clockOriginNs(nowNs()),
      m_virtualClock(config.clock == ClockMode::Virtual),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    m_model = std::make_unique<Model>(config.model, m_data.train.features);
    m_model->initialize(config.model.init, config.seed);
    m_optimizer = makeOptimizer(config.optimizer, m_model->store().totalSize());
    m_placement = placeLayers(config, *m_model);
    auto orders = passOrders(config, m_placement);
    if (!orders) throw TrainingError(orders.error().message);
    m_orders = std::move(*orders);
    m_stageOfChunk.resize(static_cast<std::size_t>(m_placement.devices));
    for (std::size_t s = 0; s < m_placement.stages.size(); ++s)
        m_stageOfChunk[static_cast<std::size_t>(m_placement.stages[s].device)].push_back(static_cast<int>(s));
    m_microBatches = static_cast<int>(config.strategy.microBatches);
    const auto m = static_cast<std::size_t>(m_microBatches);
    for (std::size_t i = 0; i < m; ++i) m_contexts.push_back(m_model->makeContext());
    for (std::size_t b = 0; b + 1 < m_placement.stages.size(); ++b) {
        m_activations.push_back(std::make_unique<Handover[]>(m));
        m_gradients.push_back(std::make_unique<Handover[]>(m));
    }
    m_inputs.resize(m);
    m_inputViews.resize(m);
    m_targets.resize(m);
    m_lossGrads.resize(m);
    m_microLoss.resize(m);
    for (int d = 0; d < m_placement.devices; ++d) m_devices.push_back(std::make_unique<Device>());
    m_report.replicas.resize(static_cast<std::size_t>(m_placement.devices));
    m_evaluation = std::make_unique<EvaluationBuffers>(*m_model);
    m_pool = std::make_unique<ReplicaPool>(
        m_placement.devices, threadsPerReplica(config.threads, m_placement.devices), [this](int d) { runDevice(d); }, [this] { abort(); },
        "device");
}

PipelineTrainer::~PipelineTrainer() = default;

std::int64_t PipelineTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

void PipelineTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
}

void PipelineTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    m_watched.assign(flatIndices.begin(),
                     flatIndices.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues)));
}

GradientAggregationStats PipelineTrainer::gradientAggregation() const { return Model::aggregationStats(m_contexts.front()); }

const Tensor& PipelineTrainer::predict(const Tensor& input) { return m_model->forward(input, m_evaluation->context); }

EvalResult PipelineTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    return evaluateModel(*m_model, m_loss, data, maxExamples, *m_evaluation);
}

PipelineTrainer::Handover& PipelineTrainer::activation(int stage, int micro) {
    return m_activations[static_cast<std::size_t>(stage) - 1][static_cast<std::size_t>(micro)];
}

PipelineTrainer::Handover& PipelineTrainer::gradient(int stage, int micro) {
    return m_gradients[static_cast<std::size_t>(stage)][static_cast<std::size_t>(micro)];
}

std::pair<std::int64_t, std::int64_t> PipelineTrainer::parameterRange(int stage) const {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const std::int64_t end =
        placed.endLayer < m_model->layers().size() ? m_model->gradientBegin(placed.endLayer) : m_model->store().totalSize();
    return {m_model->gradientBegin(placed.firstLayer), end};
}

std::int64_t PipelineTrainer::activationBytes(const PipelineStage& stage, const ModelContext& context) {
    std::int64_t bytes = 0;
    for (std::size_t layer = stage.firstLayer; layer < stage.endLayer; ++layer) bytes += context.layers[layer]->output.bytes();
    return bytes;
}

void PipelineTrainer::abort() {
    m_aborted.store(true, std::memory_order_release);
    for (std::size_t b = 0; b < m_activations.size(); ++b)
        for (int i = 0; i < m_microBatches; ++i) {
            wakeForAbort(m_activations[b][static_cast<std::size_t>(i)].posted);
            wakeForAbort(m_gradients[b][static_cast<std::size_t>(i)].posted);
        }
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

void PipelineTrainer::forward(int stage, int micro) {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const auto i = static_cast<std::size_t>(micro);
    ModelContext& context = m_contexts[i];
    Device& self = *m_devices[static_cast<std::size_t>(placed.device)];
    std::int64_t begin = 0;
    ConstTensorView input;
    std::optional<std::unique_lock<std::mutex>> alone;
    if (stage == 0) {
        alone = computeAlone();
        begin = clockNs();
        // The first stage reads the micro-batch; its labels go with it to the last stage.
        const auto indices = BatchSampler::shard(m_batch, 0, 1, micro, m_microBatches);
        input = gatherBatch(m_data.train, indices, m_inputs[i], m_targets[i]);
        m_inputViews[i] = input;
    } else {
        input = receive(activation(stage, micro)).view();
        alone = computeAlone();
        begin = clockNs();  // the wait before it is the device's bubble
    }
    const Tensor* output = &m_model->layers()[placed.firstLayer]->forward(input, *context.layers[placed.firstLayer]);
    for (std::size_t layer = placed.firstLayer + 1; layer < placed.endLayer; ++layer)
        output = &m_model->layers()[layer]->forward(*output, *context.layers[layer]);
    std::int64_t bytes = 0;
    if (static_cast<std::size_t>(stage) + 1 == m_placement.stages.size())
        m_microLoss[i] = m_loss.evaluate(*output, m_targets[i], 1.0f / static_cast<float>(m_config.data.globalBatchSize), m_lossGrads[i]);
    else
        bytes = post(output->view(), activation(stage + 1, micro));
    self.bytesSent += bytes;
    self.hold(activationBytes(placed, context));
    self.spans.add(
        Span{begin, clockNs(), bytes, 0, static_cast<std::int16_t>(micro), -1, SpanKind::Forward, false, static_cast<std::int16_t>(stage)});
}

void PipelineTrainer::backward(int stage, int micro, PassKind kind) {
    const PipelineStage& placed = m_placement.stages[static_cast<std::size_t>(stage)];
    const auto i = static_cast<std::size_t>(micro);
    ModelContext& context = m_contexts[i];
    Device& self = *m_devices[static_cast<std::size_t>(placed.device)];
    // What layer `layer` received in this micro-batch's forward.
    const auto inputOf = [&](std::size_t layer) {
        return layer > placed.firstLayer ? context.layers[layer - 1]->output.view()
               : stage == 0              ? m_inputViews[i]
                                         : activation(stage, micro).buffer.view();
    };
    char& written = self.written[static_cast<std::size_t>(placed.chunk)];
    if (kind == PassKind::BackwardWeight) {  // W: the parameters' gradients, from what its B kept
        const auto alone = computeAlone();
        const std::int64_t begin = clockNs();
        for (std::size_t layer = placed.firstLayer; layer < placed.endLayer; ++layer) {
            context.layers[layer]->overwriteGradients = written == 0;
            m_model->backwardWeightLayer(layer, inputOf(layer), context);
        }
        written = 1;
        self.hold(-activationBytes(placed, context));  // W was the last to read them
        self.spans.add(Span{begin, clockNs(), 0, 0, static_cast<std::int16_t>(micro), -1, SpanKind::BackwardWeight, false,
                            static_cast<std::int16_t>(stage)});
        return;
    }
    const bool last = static_cast<std::size_t>(stage) + 1 == m_placement.stages.size();
    const Tensor* grad = last ? &m_lossGrads[i] : &receive(gradient(stage, micro));
    const auto alone = computeAlone();
    const std::int64_t begin = clockNs();
    for (std::size_t layer = placed.endLayer; layer-- > placed.firstLayer;) {
        if (kind == PassKind::BackwardInput) {  // B: the input gradient alone; W adds the parameters' later
            grad = &m_model->backwardInputLayer(layer, inputOf(layer), *grad, context);
            continue;
        }
        context.layers[layer]->overwriteGradients = written == 0;
        grad = &m_model->backwardLayer(layer, inputOf(layer), *grad, context);
    }
    if (kind == PassKind::Backward) {
        written = 1;
        self.hold(-activationBytes(placed, context));
    }
    std::int64_t bytes = 0;
    if (stage > 0) bytes = post(grad->view(), gradient(stage - 1, micro));
    self.bytesSent += bytes;
    self.spans.add(Span{begin, clockNs(), bytes, 0, static_cast<std::int16_t>(micro), -1,
                        kind == PassKind::BackwardInput ? SpanKind::BackwardInput : SpanKind::Backward, false,
                        static_cast<std::int16_t>(stage)});
}

void PipelineTrainer::runDevice(int device) {
    const auto d = static_cast<std::size_t>(device);
    Device& self = *m_devices[d];
    self.spans.clear();
    self.written.assign(m_stageOfChunk[d].size(), 0);
    self.bytesSent = 0;
    self.gradientSquares = 0.0;
    self.heldBytes = self.peakBytes = 0;
    self.held = self.peakHeld = 0;
    const std::int64_t start = clockNs();
    for (const PipelinePass& pass : m_orders[d]) {
        const int stage = m_stageOfChunk[d][static_cast<std::size_t>(pass.chunk)];
        if (pass.kind == PassKind::Forward)
            forward(stage, pass.microBatch);
        else
            backward(stage, pass.microBatch, pass.kind);
    }
    const auto alone = computeAlone();
    const std::int64_t computeEnd = clockNs();
    // The flush is over: every micro-batch's gradient is in. Each device updates its own layers.
    std::span<float> values = m_model->store().values();
    std::span<const float> grads = m_model->store().grads();
    for (int stage : m_stageOfChunk[d]) {
        const auto [first, end] = parameterRange(stage);
        const auto offset = static_cast<std::size_t>(first), size = static_cast<std::size_t>(end - first);
        self.gradientSquares += sumOfSquares(grads.subspan(offset, size));
        m_optimizer->applyRange(values.subspan(offset, size), grads.subspan(offset, size), m_report.learningRate, first);
    }
    const std::int64_t updateEnd = clockNs();
    self.spans.add(Span{computeEnd, updateEnd, 0, 0, -1, -1, SpanKind::Optimizer});
    ReplicaStepStats& stats = self.stats;
    stats = ReplicaStepStats{};
    stats.startNs = start;
    stats.computeEndNs = stats.commEndNs = computeEnd;
    stats.updateEndNs = updateEnd;
    stats.bytesSent = self.bytesSent;
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
    // Each device's spans are its passes in its order, then its optimizer: their lengths are the
    // durations, timed alone.
    auto timeline = simulatePipeline(m_orders, m_microBatches, m_stageOfChunk, [this](int device, std::size_t index) {
        const Span& span = m_devices[static_cast<std::size_t>(device)]->spans.spans()[index];
        return static_cast<double>(span.endNs - span.beginNs);
    });
    if (!timeline) throw TrainingError("the virtual clock cannot place the step: " + timeline.error().message);
    m_report.endNs = stepStart;
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        Device& device = *m_devices[d];
        m_placed.assign(device.spans.spans().begin(), device.spans.spans().end());
        const std::vector<TimedPass>& passes = timeline->devices[d];
        for (std::size_t k = 0; k < passes.size(); ++k) {
            m_placed[k].beginNs = stepStart + static_cast<std::int64_t>(passes[k].start);
            m_placed[k].endNs = stepStart + static_cast<std::int64_t>(passes[k].end);
        }
        Span& optimizer = m_placed.back();  // after the device's last pass
        const std::int64_t lastPassEnd = passes.empty() ? stepStart : m_placed[passes.size() - 1].endNs;
        optimizer.endNs = lastPassEnd + (optimizer.endNs - optimizer.beginNs);
        optimizer.beginNs = lastPassEnd;
        device.spans.clear();
        for (const Span& span : m_placed) device.spans.add(span);
        device.stats.startNs = stepStart;
        device.stats.computeEndNs = device.stats.commEndNs = lastPassEnd;
        device.stats.updateEndNs = optimizer.endNs;
        m_report.endNs = std::max(m_report.endNs, optimizer.endNs);
    }
}

const StepReport& PipelineTrainer::step() {
    m_batch = m_sampler.next();
    ++m_generation;
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_optimizer->beginUpdate();
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
    LossStats total;
    for (const LossStats& part : m_microLoss) {
        total.sum += part.sum;
        total.correct += part.correct;
        total.count += part.count;
    }
    double squares = 0.0;
    for (const auto& device : m_devices) squares += device->gradientSquares;
    const auto batch = static_cast<double>(m_config.data.globalBatchSize);
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        ReplicaStepStats& lane = m_report.replicas[d];
        lane = m_devices[d]->stats;
        // Every device's layers saw the whole batch; the loss is the last stage's.
        lane.lossSum = total.sum;
        lane.correct = total.correct;
        lane.examples = m_config.data.globalBatchSize;
        lane.gradNormBefore = lane.gradNormAfter = std::sqrt(squares);
        lane.spans = m_devices[d]->spans.spans();
    }
    m_report.samples = m_config.data.globalBatchSize;
    m_report.loss = total.sum / batch;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(total.correct) / batch : -1.0;
    return m_report;
}

}  // namespace distlab
