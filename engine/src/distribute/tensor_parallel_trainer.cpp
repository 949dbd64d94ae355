#include "distribute/tensor_parallel_trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "distlab/telemetry/phase_split.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/model_evaluation.hpp"
#include "model/dense_kernels.hpp"

namespace distlab {

using kernels::Op;

/// One device's step: its input and the loss's gradient (every device reads the whole batch),
/// each layer's pre-activation z and output y (a column layer's: its slice), its column shards.
struct TensorParallelTrainer::Device {
    SpanRecorder spans;
    ReplicaStepStats stats;
    Tensor gathered;
    BatchTargets targets;
    Tensor lossGrad;
    LossStats loss;
    std::vector<Tensor> kernel, bias;          ///< per plan layer: a column layer's shard copies (empty elsewhere)
    std::vector<Tensor> kernelGrad, biasGrad;  ///< and their gradients
    std::vector<Tensor> pre, out;              ///< per plan layer: z and y as this device holds them
    std::vector<Tensor> grad;                  ///< per plan layer: d(loss)/d(input) as this device computes it
    Tensor gradPre;                            ///< d(loss)/d(z) of the layer being run
    double gradientSquares = 0.0;
    std::int64_t bytesSent = 0;
    std::int64_t waitNs = 0;
};

TensorParallelTrainer::TensorParallelTrainer(const RunConfig& config, DataSplit data)
    : m_config(config),
      m_data(std::move(data)),
      m_loss(config.model.loss),
      m_sampler(m_data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed),
      m_clockOriginNs(nowNs()),
      m_tp(static_cast<int>(config.strategy.tensorParallel)),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    // The variables one device would make, from the same seed: the shards are cut from them.
    m_model = std::make_unique<Model>(config.model, m_data.train.features);
    m_model->initialize(config.model.init, config.seed);
    m_optimizer = makeOptimizer(config.optimizer, m_model->store().totalSize());
    auto plan = planTensorParallel(config.model, m_data.train.features, m_tp);
    if (!plan) throw TrainingError(plan.error().message);
    m_plan = std::move(*plan);
    m_group = std::make_unique<InProcessGroup>(m_tp, config.strategy.crossDeviceOps);
    for (int d = 0; d < m_tp; ++d) {
        auto device = std::make_unique<Device>();
        const std::size_t layers = m_plan.size();
        for (auto* tensors :
             {&device->kernel, &device->bias, &device->kernelGrad, &device->biasGrad, &device->pre, &device->out, &device->grad})
            tensors->resize(layers);
        for (std::size_t i = 0; i < layers; ++i) {
            const TensorParallelLayer& layer = m_plan[i];
            if (layer.role != TensorParallelRole::Column) continue;
            device->kernel[i].resize2d(layer.inputs, shardWidth(layer.units));
            device->kernelGrad[i].resize2d(layer.inputs, shardWidth(layer.units));
            device->bias[i].resize2d(1, shardWidth(layer.units));
            device->biasGrad[i].resize2d(1, shardWidth(layer.units));
        }
        m_devices.push_back(std::move(device));
    }
    m_report.replicas.resize(static_cast<std::size_t>(m_tp));
    m_evaluation = std::make_unique<EvaluationBuffers>(*m_model);
    m_pool = std::make_unique<ReplicaPool>(
        m_tp, threadsPerReplica(config.threads, m_tp), [this](int d) { runDevice(d); }, [this] { m_group->abort(); }, "device");
}

TensorParallelTrainer::~TensorParallelTrainer() = default;

std::int64_t TensorParallelTrainer::clockNs() const { return nowNs() - m_clockOriginNs; }

void TensorParallelTrainer::restoreProgress(std::int64_t stepsDone, std::int64_t epoch, std::int64_t cursor) {
    m_stepsDone = stepsDone;
    m_sampler.restore(epoch, cursor);
}

void TensorParallelTrainer::setWatched(std::span<const std::int64_t> flatIndices) {
    m_watched.assign(flatIndices.begin(),
                     flatIndices.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(flatIndices.size(), kMaxWatchedValues)));
}

bool TensorParallelTrainer::setCollectiveTrace(CollectiveTrace* trace) {
    for (int d = 0; d < m_tp; ++d) m_group->communicator(d).setTrace(trace);
    return true;
}

const Tensor& TensorParallelTrainer::predict(const Tensor& input) { return m_model->forward(input, m_evaluation->context); }

EvalResult TensorParallelTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    return evaluateModel(*m_model, m_loss, data, maxExamples, *m_evaluation);
}

void TensorParallelTrainer::allReduce(Device& self, int device, Tensor& values) {
    const std::int64_t begin = clockNs();
    const CollectiveTiming timing = m_group->communicator(device).allReduce(values.values(), ReduceOp::Sum).wait();
    self.bytesSent += timing.bytesSent;
    self.waitNs += timing.waitNs;
    self.spans.add(Span{begin, clockNs(), timing.bytesSent, timing.waitNs, -1, -1, SpanKind::AllReduce});
}

void TensorParallelTrainer::forward(Device& self, int device, ConstTensorView input) {
    const std::int64_t batch = input.rows();
    const std::span<const float> values = m_model->store().values();
    std::int64_t begin = clockNs();
    const float* x = input.data();
    for (std::size_t i = 0; i < m_plan.size(); ++i) {
        const TensorParallelLayer& layer = m_plan[i];
        Tensor& z = self.pre[i];
        Tensor& y = self.out[i];
        const float* kernel = values.data() + kernelBegin(layer.layer);
        const float* bias = values.data() + biasBegin(layer);
        switch (layer.role) {
            case TensorParallelRole::Column: {  // this device's columns, its slice of the activation
                const std::int64_t width = shardWidth(layer.units);
                z.resize2d(batch, width);
                kernels::denseForward(x, self.kernel[i].data(), self.bias[i].data(), z.data(), batch, layer.inputs, width);
                break;
            }
            case TensorParallelRole::Row: {  // this device's rows times its slice of the input, summed over the devices
                const std::int64_t rows = shardWidth(layer.inputs);
                z.resize2d(batch, layer.units);
                kernels::matrixProduct(Op::None, Op::None, batch, layer.units, rows, x, kernel + device * rows * layer.units, 0.0f,
                                       z.data());
                self.spans.add(Span{begin, clockNs(), 0, 0, -1, -1, SpanKind::Forward});
                allReduce(self, device, z);
                begin = clockNs();
                float* sums = z.data();
                for (std::int64_t r = 0; r < batch; ++r)
                    for (std::int64_t c = 0; c < layer.units; ++c) sums[r * layer.units + c] += bias[c];
                break;
            }
            case TensorParallelRole::Replicated:
                z.resize2d(batch, layer.units);
                kernels::denseForward(x, kernel, bias, z.data(), batch, layer.inputs, layer.units);
                break;
        }
        y.resize2d(z.rows(), z.cols());
        kernels::activate(layer.activation, z.data(), y.data(), z.size());
        x = y.data();
    }
    self.spans.add(Span{begin, clockNs(), 0, 0, -1, -1, SpanKind::Forward});
}

void TensorParallelTrainer::backward(Device& self, int device, ConstTensorView input) {
    const std::int64_t batch = input.rows();
    const std::span<const float> values = m_model->store().values();
    const std::span<float> grads = m_model->store().grads();
    std::int64_t begin = clockNs();
    const Tensor* dy = &self.lossGrad;
    for (std::size_t i = m_plan.size(); i-- > 0;) {
        const TensorParallelLayer& layer = m_plan[i];
        const float* x = i == 0 ? input.data() : self.out[i - 1].data();
        const Tensor& z = self.pre[i];
        self.gradPre.resize2d(z.rows(), z.cols());
        kernels::activationBackward(layer.activation, z.data(), self.out[i].data(), dy->data(), self.gradPre.data(), z.size());
        const float* dz = self.gradPre.data();
        const float* kernel = values.data() + kernelBegin(layer.layer);
        float* kernelGrad = grads.data() + kernelBegin(layer.layer);
        float* biasGrad = grads.data() + biasBegin(layer);
        Tensor& dx = self.grad[i];
        const bool needInput = i > 0;
        switch (layer.role) {
            case TensorParallelRole::Column: {
                const std::int64_t width = shardWidth(layer.units);
                if (needInput) dx.resize2d(batch, layer.inputs);
                kernels::denseBackward(x, self.kernel[i].data(), dz, self.kernelGrad[i].data(), self.biasGrad[i].data(),
                                       needInput ? dx.data() : nullptr, batch, layer.inputs, width, /*accumulate=*/false);
                if (needInput) {  // each device's part of the input gradient, summed (Megatron's f)
                    self.spans.add(Span{begin, clockNs(), 0, 0, -1, -1, SpanKind::Backward});
                    allReduce(self, device, dx);
                    begin = clockNs();
                }
                // Its columns of the one gradient: row by row, a contiguous run each.
                const float* shard = self.kernelGrad[i].data();
                for (std::int64_t r = 0; r < layer.inputs; ++r)
                    std::copy_n(shard + r * width, width, kernelGrad + r * layer.units + device * width);
                std::copy_n(self.biasGrad[i].data(), width, biasGrad + device * width);
                break;
            }
            case TensorParallelRole::Row: {  // its rows' gradient and its slice of the input's: no communication
                const std::int64_t rows = shardWidth(layer.inputs);
                const float* ownRows = kernel + device * rows * layer.units;
                kernels::matrixProduct(Op::Transpose, Op::None, rows, layer.units, batch, x, dz, 0.0f,
                                       kernelGrad + device * rows * layer.units);
                if (device == 0) kernels::biasGradient(dz, biasGrad, batch, layer.units, /*accumulate=*/false);
                dx.resize2d(batch, rows);
                kernels::matrixProduct(Op::None, Op::Transpose, batch, rows, layer.units, dz, ownRows, 0.0f, dx.data());
                break;
            }
            case TensorParallelRole::Replicated:
                // Every device needs the input gradient; the weights' gradient is written once.
                if (needInput) dx.resize2d(batch, layer.inputs);
                if (device == 0)
                    kernels::denseBackward(x, kernel, dz, kernelGrad, biasGrad, needInput ? dx.data() : nullptr, batch, layer.inputs,
                                           layer.units, /*accumulate=*/false);
                else if (needInput)
                    kernels::matrixProduct(Op::None, Op::Transpose, batch, layer.inputs, layer.units, dz, kernel, 0.0f, dx.data());
                break;
        }
        dy = &dx;
    }
    self.spans.add(Span{begin, clockNs(), 0, 0, -1, -1, SpanKind::Backward});
}

void TensorParallelTrainer::update(Device& self, int device) {
    const std::span<float> values = m_model->store().values();
    const std::span<const float> grads = m_model->store().grads();
    const float rate = m_report.learningRate;
    const auto apply = [&](std::int64_t first, std::int64_t size) {
        const auto offset = static_cast<std::size_t>(first), count = static_cast<std::size_t>(size);
        self.gradientSquares += sumOfSquares(grads.subspan(offset, count));
        m_optimizer->applyRange(values.subspan(offset, count), grads.subspan(offset, count), rate, first);
    };
    for (const TensorParallelLayer& layer : m_plan) {
        const std::int64_t kernel = kernelBegin(layer.layer), bias = biasBegin(layer);
        switch (layer.role) {
            case TensorParallelRole::Column: {
                const std::int64_t width = shardWidth(layer.units);
                for (std::int64_t r = 0; r < layer.inputs; ++r) apply(kernel + r * layer.units + device * width, width);
                apply(bias + device * width, width);
                break;
            }
            case TensorParallelRole::Row: {
                const std::int64_t rows = shardWidth(layer.inputs);
                apply(kernel + device * rows * layer.units, rows * layer.units);
                if (device == 0) apply(bias, layer.units);
                break;
            }
            case TensorParallelRole::Replicated:
                if (device == 0) apply(kernel, layer.inputs * layer.units + layer.units);
                break;
        }
    }
}

void TensorParallelTrainer::runDevice(int device) {
    Device& self = *m_devices[static_cast<std::size_t>(device)];
    self.spans.clear();
    self.bytesSent = self.waitNs = 0;
    self.gradientSquares = 0.0;
    const std::int64_t start = clockNs();
    // This device's columns of the variables, as the last update left them.
    const std::span<const float> values = m_model->store().values();
    for (std::size_t i = 0; i < m_plan.size(); ++i) {
        const TensorParallelLayer& layer = m_plan[i];
        if (layer.role != TensorParallelRole::Column) continue;
        const std::int64_t width = shardWidth(layer.units);
        const float* kernel = values.data() + kernelBegin(layer.layer);
        for (std::int64_t r = 0; r < layer.inputs; ++r)
            std::copy_n(kernel + r * layer.units + device * width, width, self.kernel[i].data() + r * width);
        std::copy_n(values.data() + biasBegin(layer) + device * width, width, self.bias[i].data());
    }
    // Every device reads the whole batch (tensor parallelism splits the weights, not the data).
    const ConstTensorView input = gatherBatch(m_data.train, m_batch, self.gathered, self.targets);
    forward(self, device, input);
    self.loss = m_loss.evaluate(self.out.back(), self.targets, 1.0f / static_cast<float>(m_batch.size()), self.lossGrad);
    backward(self, device, input);
    // Each device steps over the elements it owns, which only it wrote; but device 0 steps over the
    // shared biases and whole layers, which the others read until their backward is done.
    m_group->communicator(device).barrier().wait();
    const std::int64_t updateStart = clockNs();
    update(self, device);
    const std::int64_t updateEnd = clockNs();
    self.spans.add(Span{updateStart, updateEnd, 0, 0, -1, -1, SpanKind::Optimizer});
    // The all-reduces come between the layers, not after the compute: the phase split's timestamps
    // (compute, then reduction, then update: phase_split.hpp) lay each phase's total time end to
    // end from the lane's start, so its shares are the spans'; the spans keep when each ran.
    std::array<std::int64_t, kPhaseCount> phaseNs{};
    for (const Span& span : self.spans.spans()) phaseNs[static_cast<std::size_t>(phaseOf(span.kind))] += span.endNs - span.beginNs;
    ReplicaStepStats& stats = self.stats;
    stats = ReplicaStepStats{};
    stats.startNs = start;
    stats.computeEndNs = start + phaseNs[static_cast<std::size_t>(Phase::Compute)];
    stats.commEndNs = stats.computeEndNs + phaseNs[static_cast<std::size_t>(Phase::Communication)];
    stats.updateEndNs = stats.commEndNs + phaseNs[static_cast<std::size_t>(Phase::Optimizer)];
    stats.bytesSent = self.bytesSent;
    stats.commWaitNs = self.waitNs;
}

const StepReport& TensorParallelTrainer::step() {
    m_batch = m_sampler.next();
    m_report.epoch = m_sampler.epoch();
    m_report.learningRate = learningRate();
    m_optimizer->beginUpdate();
    m_report.startNs = clockNs();
    m_pool->run();
    m_report.endNs = clockNs();
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    double squares = 0.0;
    for (const auto& device : m_devices) squares += device->gradientSquares;
    const LossStats& loss = m_devices.front()->loss;  // the same on every device: each computes the whole output
    const std::span<const float> values = m_model->store().values();
    for (std::size_t d = 0; d < m_devices.size(); ++d) {
        ReplicaStepStats& lane = m_report.replicas[d];
        lane = m_devices[d]->stats;
        lane.lossSum = loss.sum;
        lane.correct = loss.correct;
        lane.examples = static_cast<std::int64_t>(m_batch.size());
        lane.gradNormBefore = lane.gradNormAfter = std::sqrt(squares);
        for (std::size_t w = 0; w < m_watched.size(); ++w) lane.watched[w] = values[static_cast<std::size_t>(m_watched[w])];
        lane.spans = m_devices[d]->spans.spans();
    }
    const auto batch = static_cast<double>(m_batch.size());
    m_report.samples = static_cast<std::int64_t>(m_batch.size());
    m_report.loss = loss.sum / batch;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(loss.correct) / batch : -1.0;
    return m_report;
}

}  // namespace distlab
