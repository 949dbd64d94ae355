#include "distribute/tensor_parallel_trainer.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "distlab/telemetry/phase_split.hpp"
#include "distlab/tensor/reductions.hpp"
#include "distribute/copy_state.hpp"
#include "distribute/model_evaluation.hpp"
#include "model/dense_kernels.hpp"

namespace distlab {

using kernels::Op;

/// One device's step: its input and the loss's gradient (every device of a data-parallel copy reads
/// that copy's whole shard of the batch), each layer's pre-activation z and output y (a column
/// layer's: its slice), its column shards.
struct TensorParallelTrainer::Device {
    int copy = 0;  ///< its data-parallel copy (the variables it reads and updates)
    int rank = 0;  ///< its rank among the copy's tensor-parallel devices
    /// The elements of the variables it owns: it reduces their gradient across the copies and
    /// applies the optimizer to them. [offset, size) runs of the flat buffers.
    std::vector<std::pair<std::int64_t, std::int64_t>> owned;
    std::vector<float> ownedGrads;  ///< their gradient, packed for the data-parallel all-reduce
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
      m_dp(static_cast<int>(config.strategy.dataParallel)),
      m_learningRate(static_cast<float>(config.optimizer.learningRate)) {
    // Each data-parallel copy's variables are the ones one device would make, from the same seed:
    // the shards are cut from them.
    for (int c = 0; c < m_dp; ++c) {
        m_models.push_back(std::make_unique<Model>(config.model, m_data.train.features));
        m_models.back()->initialize(config.model.init, config.seed);
        m_optimizers.push_back(makeOptimizer(config.optimizer, m_models.back()->store().totalSize()));
        m_tensorGroups.push_back(std::make_unique<InProcessGroup>(m_tp, config.strategy.crossDeviceOps));
    }
    for (int d = 0; d < m_tp; ++d) m_dataGroups.push_back(std::make_unique<InProcessGroup>(m_dp, config.strategy.crossDeviceOps));
    auto plan = planTensorParallel(config.model, m_data.train.features, m_tp);
    if (!plan) throw TrainingError(plan.error().message);
    m_plan = std::move(*plan);
    for (int g = 0; g < m_dp * m_tp; ++g) {
        auto device = std::make_unique<Device>();
        device->copy = g / m_tp;
        device->rank = g % m_tp;
        device->owned = ownedRanges(device->rank);
        std::int64_t owned = 0;
        for (const auto& [offset, size] : device->owned) owned += size;
        device->ownedGrads.resize(static_cast<std::size_t>(owned));
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
    m_report.replicas.resize(m_devices.size());
    m_evaluation = std::make_unique<EvaluationBuffers>(*m_models.front());
    const int devices = m_dp * m_tp;
    m_pool = std::make_unique<ReplicaPool>(
        devices, threadsPerReplica(config.threads, devices), [this](int g) { runDevice(g); },
        [this] {
            for (auto& group : m_tensorGroups) group->abort();
            for (auto& group : m_dataGroups) group->abort();
        },
        "device");
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

void TensorParallelTrainer::broadcastParameters() {
    // Every copy takes copy 0's variables and slots, as a mirrored run's replicas take replica 0's.
    for (int c = 1; c < m_dp; ++c)
        copyTrainingState(*m_models.front(), *m_optimizers.front(), *m_models[static_cast<std::size_t>(c)],
                          *m_optimizers[static_cast<std::size_t>(c)]);
}

const Tensor& TensorParallelTrainer::predict(const Tensor& input) { return m_models.front()->forward(input, m_evaluation->context); }

EvalResult TensorParallelTrainer::evaluate(const Dataset& data, std::int64_t maxExamples) {
    return evaluateModel(*m_models.front(), m_loss, data, maxExamples, *m_evaluation);
}

Model& TensorParallelTrainer::model(const Device& self) { return *m_models[static_cast<std::size_t>(self.copy)]; }

std::vector<std::pair<std::int64_t, std::int64_t>> TensorParallelTrainer::ownedRanges(int rank) const {
    std::vector<std::pair<std::int64_t, std::int64_t>> owned;
    for (const TensorParallelLayer& layer : m_plan) {
        const std::int64_t kernel = kernelBegin(layer.layer), bias = biasBegin(layer);
        switch (layer.role) {
            case TensorParallelRole::Column: {  // its columns, row by row, and its slice of the bias
                const std::int64_t width = shardWidth(layer.units);
                for (std::int64_t r = 0; r < layer.inputs; ++r) owned.emplace_back(kernel + r * layer.units + rank * width, width);
                owned.emplace_back(bias + rank * width, width);
                break;
            }
            case TensorParallelRole::Row: {  // its rows; the bias, which every device reads, is rank 0's
                const std::int64_t rows = shardWidth(layer.inputs);
                owned.emplace_back(kernel + rank * rows * layer.units, rows * layer.units);
                if (rank == 0) owned.emplace_back(bias, layer.units);
                break;
            }
            case TensorParallelRole::Replicated:  // computed on every device, written and updated by rank 0
                if (rank == 0) owned.emplace_back(kernel, layer.inputs * layer.units + layer.units);
                break;
        }
    }
    return owned;
}

void TensorParallelTrainer::allReduce(Device& self, Communicator& group, std::span<float> values) {
    const std::int64_t begin = clockNs();
    const CollectiveTiming timing = group.allReduce(values, ReduceOp::Sum).wait();
    self.bytesSent += timing.bytesSent;
    self.waitNs += timing.waitNs;
    self.spans.add(Span{begin, clockNs(), timing.bytesSent, timing.waitNs, -1, -1, SpanKind::AllReduce});
}

void TensorParallelTrainer::forward(Device& self, ConstTensorView input) {
    const std::int64_t batch = input.rows();
    const int device = self.rank;
    const std::span<const float> values = model(self).store().values();
    Communicator& group = m_tensorGroups[static_cast<std::size_t>(self.copy)]->communicator(device);
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
                allReduce(self, group, z.values());
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

void TensorParallelTrainer::backward(Device& self, ConstTensorView input) {
    const std::int64_t batch = input.rows();
    const int device = self.rank;
    Model& variables = model(self);
    const std::span<const float> values = variables.store().values();
    const std::span<float> grads = variables.store().grads();
    Communicator& group = m_tensorGroups[static_cast<std::size_t>(self.copy)]->communicator(device);
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
                    allReduce(self, group, dx.values());
                    begin = clockNs();
                }
                // Its columns of the copy's gradient: row by row, a contiguous run each.
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

void TensorParallelTrainer::reduceAcrossCopies(Device& self) {
    // The copies' gradients of the elements this device owns, summed: each copy's loss was scaled by
    // 1/G, so the sum is the gradient of the whole batch's mean loss, as mirrored's reduction.
    const std::span<float> grads = model(self).store().grads();
    std::size_t packed = 0;
    for (const auto& [offset, size] : self.owned) {
        std::copy_n(grads.begin() + offset, size, self.ownedGrads.begin() + static_cast<std::ptrdiff_t>(packed));
        packed += static_cast<std::size_t>(size);
    }
    allReduce(self, m_dataGroups[static_cast<std::size_t>(self.rank)]->communicator(self.copy), self.ownedGrads);
    packed = 0;
    for (const auto& [offset, size] : self.owned) {
        std::copy_n(self.ownedGrads.begin() + static_cast<std::ptrdiff_t>(packed), size, grads.begin() + offset);
        packed += static_cast<std::size_t>(size);
    }
}

void TensorParallelTrainer::update(Device& self) {
    Model& variables = model(self);
    const std::span<float> values = variables.store().values();
    const std::span<const float> grads = variables.store().grads();
    Optimizer& optimizer = *m_optimizers[static_cast<std::size_t>(self.copy)];
    for (const auto& [first, size] : self.owned) {
        const auto offset = static_cast<std::size_t>(first), count = static_cast<std::size_t>(size);
        self.gradientSquares += sumOfSquares(grads.subspan(offset, count));
        optimizer.applyRange(values.subspan(offset, count), grads.subspan(offset, count), m_report.learningRate, first);
    }
}

void TensorParallelTrainer::runDevice(int index) {
    Device& self = *m_devices[static_cast<std::size_t>(index)];
    const int device = self.rank;
    self.spans.clear();
    self.bytesSent = self.waitNs = 0;
    self.gradientSquares = 0.0;
    const std::int64_t start = clockNs();
    // This device's columns of its copy's variables, as the last update left them.
    const std::span<const float> values = model(self).store().values();
    for (std::size_t i = 0; i < m_plan.size(); ++i) {
        const TensorParallelLayer& layer = m_plan[i];
        if (layer.role != TensorParallelRole::Column) continue;
        const std::int64_t width = shardWidth(layer.units);
        const float* kernel = values.data() + kernelBegin(layer.layer);
        for (std::int64_t r = 0; r < layer.inputs; ++r)
            std::copy_n(kernel + r * layer.units + device * width, width, self.kernel[i].data() + r * width);
        std::copy_n(values.data() + biasBegin(layer) + device * width, width, self.bias[i].data());
    }
    // Every device of a copy reads the copy's whole shard of the batch (tensor parallelism splits
    // the weights, not the data).
    const auto shard = BatchSampler::shard(m_batch, self.copy, m_dp, 0, 1);
    const ConstTensorView input = gatherBatch(m_data.train, shard, self.gathered, self.targets);
    forward(self, input);
    self.loss = m_loss.evaluate(self.out.back(), self.targets, 1.0f / static_cast<float>(m_batch.size()), self.lossGrad);
    backward(self, input);
    if (m_dp > 1) reduceAcrossCopies(self);
    // Each device steps over the elements it owns, which only it wrote; but rank 0 steps over the
    // shared biases and whole layers, which the copy's other devices read until their backward is done.
    m_tensorGroups[static_cast<std::size_t>(self.copy)]->communicator(device).barrier().wait();
    const std::int64_t updateStart = clockNs();
    update(self);
    self.spans.add(Span{updateStart, clockNs(), 0, 0, -1, -1, SpanKind::Optimizer});
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
    for (auto& optimizer : m_optimizers) optimizer->beginUpdate();
    m_report.startNs = clockNs();
    m_pool->run();
    m_report.endNs = clockNs();
    ++m_stepsDone;
    m_report.step = m_stepsDone;
    // Copy 0's devices own every element once; the copies' losses are their shards' (rank 0's:
    // every device of a copy computes the same output).
    double squares = 0.0;
    LossStats loss;
    for (const auto& device : m_devices) {
        if (device->copy == 0) squares += device->gradientSquares;
        if (device->rank != 0) continue;
        loss.sum += device->loss.sum;
        loss.correct += device->loss.correct;
    }
    for (std::size_t g = 0; g < m_devices.size(); ++g) {
        const Device& device = *m_devices[g];
        ReplicaStepStats& lane = m_report.replicas[g];
        lane = device.stats;
        lane.lossSum = device.loss.sum;
        lane.correct = device.loss.correct;
        lane.examples = static_cast<std::int64_t>(m_batch.size()) / m_dp;
        lane.gradNormBefore = lane.gradNormAfter = std::sqrt(squares);
        const std::span<const float> values = m_models[static_cast<std::size_t>(device.copy)]->store().values();
        for (std::size_t w = 0; w < m_watched.size(); ++w) lane.watched[w] = values[static_cast<std::size_t>(m_watched[w])];
        lane.spans = device.spans.spans();
    }
    const auto batch = static_cast<double>(m_batch.size());
    m_report.samples = static_cast<std::int64_t>(m_batch.size());
    m_report.loss = loss.sum / batch;
    m_report.accuracy = m_data.train.isClassification() ? static_cast<double>(loss.correct) / batch : -1.0;
    return m_report;
}

}  // namespace distlab
