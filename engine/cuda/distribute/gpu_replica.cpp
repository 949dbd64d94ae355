#include "distribute/gpu_replica.hpp"

#include <cmath>

#include "cuda_math.h"
#include "distlab/core/error.hpp"

namespace distlab {
namespace {

/// Every bridge call goes through this: a failure ends the step with the bridge's message, which
/// names the logical GPU and the cause (out of memory: what was asked and what is free).
void check(int code, const char* message) {
    if (code != 0) throw TrainingError(message);
}

std::size_t slotCount(const OptimizerConfig& optimizer) {
    if (optimizer.type == OptimizerKind::Adam) return 2;  // m, v
    return optimizer.momentum != 0.0 ? 1 : 0;             // velocity, only with momentum (as Sgd)
}

}  // namespace

GpuReplica::GpuReplica(DistlabCudaDevice* device, const RunConfig& config, const Model& hostModel, std::int64_t microRows,
                       std::int64_t microSteps)
    : m_device(device),
      m_optimizer(config.optimizer),
      m_loss(config.model.loss),
      m_points{microSteps},
      m_microRows(microRows),
      m_microSteps(microSteps),
      m_count(hostModel.store().totalSize()) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    use();
    try {
        // The store holds each dense layer's kernel [inputs, units] then its bias [units], in layer order.
        const auto& infos = hostModel.store().infos();
        if (infos.size() != 2 * config.model.layers.size())
            throw TrainingError("gpu path: the model's parameters are not one kernel and one bias per dense layer");
        m_features = infos.front().shape[0];
        m_params = static_cast<float*>(allocate(m_count));
        m_grads = static_cast<float*>(allocate(m_count));
        for (std::size_t s = 0; s < slotCount(m_optimizer); ++s) m_slots.push_back(static_cast<float*>(allocate(m_count)));
        const std::int64_t stepRows = microRows * microSteps;
        m_input = static_cast<float*>(allocate(stepRows * m_features));
        for (std::size_t i = 0; i < config.model.layers.size(); ++i) {
            DenseGeometry layer;
            layer.inputs = infos[2 * i].shape[0];
            layer.units = infos[2 * i].shape[1];
            layer.kernelOffset = infos[2 * i].offset;
            layer.biasOffset = infos[2 * i + 1].offset;
            layer.activation = static_cast<int>(config.model.layers[i].activation);
            // Activations serve one micro-batch at a time (the stream runs them in order).
            layer.z = static_cast<float*>(allocate(microRows * layer.units));
            // A linear layer's output is its pre-activation (the bridge allows y == z).
            layer.y = layer.activation == 0 ? layer.z : static_cast<float*>(allocate(microRows * layer.units));
            layer.dz = static_cast<float*>(allocate(microRows * layer.units));
            layer.dy = static_cast<float*>(allocate(microRows * layer.units));
            m_layers.push_back(layer);
        }
        m_outputs = m_layers.back().units;
        if (m_loss == LossKind::SoftmaxCrossEntropy)
            m_labels = static_cast<int*>(allocate(stepRows, sizeof(int)));
        else
            m_targets = static_cast<float*>(allocate(stepRows * m_outputs));
        m_rowLoss = static_cast<float*>(allocate(stepRows));
        m_rowCorrect = static_cast<int*>(allocate(stepRows, sizeof(int)));
        m_scalars = static_cast<float*>(allocate(2));
        m_norms = static_cast<double*>(allocate(2, sizeof(double)));
        m_watchIndices = static_cast<long long*>(allocate(kMaxWatchedValues, sizeof(long long)));
        m_watchValues = static_cast<float*>(allocate(kMaxWatchedValues));
        setWatched({});
        m_rows.assign(static_cast<std::size_t>(microSteps), 0);
        m_hostLoss.resize(static_cast<std::size_t>(stepRows));
        m_hostCorrect.resize(static_cast<std::size_t>(stepRows));
        check(distlabCudaTimerCreate(m_device, m_points.count(), &m_timer, message), message);
    } catch (...) {
        for (void* pointer : m_allocations) distlabCudaRelease(m_device, pointer);
        distlabCudaTimerDestroy(m_timer);
        throw;
    }
}

GpuReplica::~GpuReplica() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    distlabCudaSynchronize(m_device, message);  // nothing queued may still use a buffer given back
    for (void* pointer : m_allocations) distlabCudaRelease(m_device, pointer);
    distlabCudaTimerDestroy(m_timer);
}

void* GpuReplica::allocate(std::int64_t count, std::size_t elementBytes) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    void* pointer = nullptr;
    const auto bytes = static_cast<unsigned long long>(std::max<std::int64_t>(count, 1)) * elementBytes;
    check(distlabCudaAllocate(m_device, bytes, &pointer, message), message);
    m_allocations.push_back(pointer);
    return pointer;
}

void GpuReplica::upload(const Model& model, Optimizer& optimizer) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (optimizer.slotNames().size() != m_slots.size())
        throw TrainingError("gpu path: the host optimizer has " + std::to_string(optimizer.slotNames().size()) + " slots, the device " +
                            std::to_string(m_slots.size()));
    const auto bytes = static_cast<unsigned long long>(m_count) * sizeof(float);
    check(distlabCudaUpload(m_device, m_params, model.store().values().data(), bytes, message), message);
    for (std::size_t s = 0; s < m_slots.size(); ++s)
        check(distlabCudaUpload(m_device, m_slots[s], optimizer.slot(s).data(), bytes, message), message);
    // The upload reads host memory when the stream reaches it; wait so the caller may change it.
    check(distlabCudaSynchronize(m_device, message), message);
}

void GpuReplica::download(Model& model, Optimizer& optimizer) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const auto bytes = static_cast<unsigned long long>(m_count) * sizeof(float);
    check(distlabCudaDownload(m_device, model.store().values().data(), m_params, bytes, message), message);
    for (std::size_t s = 0; s < m_slots.size(); ++s)
        check(distlabCudaDownload(m_device, optimizer.slot(s).data(), m_slots[s], bytes, message), message);
    check(distlabCudaSynchronize(m_device, message), message);
}

void GpuReplica::stageMicroBatch(int micro, ConstTensorView input, const BatchTargets& targets) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const std::int64_t rows = input.shape()[0];
    if (rows > m_microRows || micro < 0 || micro >= m_microSteps)
        throw TrainingError("gpu path: micro-batch " + std::to_string(micro) + " of " + std::to_string(rows) + " rows, sized for " +
                            std::to_string(m_microSteps) + " of " + std::to_string(m_microRows));
    m_rows[static_cast<std::size_t>(micro)] = rows;
    const std::int64_t first = micro * m_microRows;  // the micro-batch's first row in the step's buffers
    // Uploads from pageable host memory return once the data is staged, so the caller may refill
    // `input` for the next micro-batch.
    check(distlabCudaUpload(m_device, m_input + first * m_features, input.data(),
                            static_cast<unsigned long long>(input.size()) * sizeof(float), message),
          message);
    if (m_labels != nullptr)
        check(distlabCudaUpload(m_device, m_labels + first, targets.labels.data(), targets.labels.size() * sizeof(int), message), message);
    else
        check(distlabCudaUpload(m_device, m_targets + first * m_outputs, targets.values.data(),
                                static_cast<unsigned long long>(targets.values.size()) * sizeof(float), message),
              message);
}

void GpuReplica::stageScalars(float learningRate, std::int64_t iteration) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    float scalars[2] = {learningRate, 0.0f};
    if (m_optimizer.type == OptimizerKind::Adam) {
        // As engine/src/optim/adam.cpp: the bias corrections in double, then float.
        const double t = static_cast<double>(iteration);
        scalars[0] = static_cast<float>(learningRate / (1.0 - std::pow(m_optimizer.beta1, t)));
        scalars[1] = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(m_optimizer.beta2, t)));
    }
    check(distlabCudaUpload(m_device, m_scalars, scalars, sizeof scalars, message), message);
}

void GpuReplica::setWatched(std::span<const std::int64_t> flatIndices) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    long long indices[kMaxWatchedValues];
    for (std::size_t w = 0; w < static_cast<std::size_t>(kMaxWatchedValues); ++w) {
        const std::int64_t index = w < flatIndices.size() ? flatIndices[w] : -1;
        indices[w] = index >= 0 && index < m_count ? index : -1;  // -1 reads 0, as the CPU trainers report
    }
    check(distlabCudaUpload(m_device, m_watchIndices, indices, sizeof indices, message), message);
}

void GpuReplica::use() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    check(distlabCudaMakeCurrent(m_device, message), message);
}

void GpuReplica::mark(int point) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    check(distlabCudaTimerMark(m_timer, point, message), message);
}

void GpuReplica::queueCompute(float scale) {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    mark(m_points.start());
    check(distlabCudaZero(m_device, m_grads, static_cast<unsigned long long>(m_count) * sizeof(float), message), message);
    for (std::int64_t micro = 0; micro < m_microSteps; ++micro) queueMicroBatch(micro, scale);
    check(distlabCudaSumSquares(m_device, m_grads, m_count, m_norms, message), message);
}

void GpuReplica::queueMicroBatch(std::int64_t micro, float scale) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const std::int64_t rows = m_rows[static_cast<std::size_t>(micro)];
    const std::int64_t first = micro * m_microRows;
    const float* input = m_input + first * m_features;
    const float* x = input;
    for (DenseGeometry& layer : m_layers) {
        check(distlabCudaDenseForward(m_device, x, m_params + layer.kernelOffset, m_params + layer.biasOffset, layer.z, layer.y, rows,
                                      layer.inputs, layer.units, layer.activation, message),
              message);
        x = layer.y;
    }
    DenseGeometry& last = m_layers.back();
    if (m_labels != nullptr)
        check(distlabCudaSoftmaxCrossEntropy(m_device, last.y, m_labels + first, last.dy, m_rowLoss + first, m_rowCorrect + first, rows,
                                             m_outputs, scale, message),
              message);
    else
        check(distlabCudaMeanSquaredError(m_device, last.y, m_targets + first * m_outputs, last.dy, m_rowLoss + first, rows, m_outputs,
                                          scale, message),
              message);
    mark(m_points.forwardEnd(micro));
    for (std::size_t i = m_layers.size(); i-- > 0;) {
        DenseGeometry& layer = m_layers[i];
        const float* layerInput = i == 0 ? input : m_layers[i - 1].y;
        float* inputGradient = i == 0 ? nullptr : m_layers[i - 1].dy;  // the data's gradient is never needed
        check(distlabCudaDenseBackward(m_device, layerInput, m_params + layer.kernelOffset, layer.z, layer.y, layer.dy, layer.dz,
                                       m_grads + layer.kernelOffset, m_grads + layer.biasOffset, inputGradient, rows, layer.inputs,
                                       layer.units, layer.activation, message),
              message);
    }
    mark(m_points.backwardEnd(micro));
}

void GpuReplica::queueUpdate() {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    mark(m_points.reductionEnd());
    check(distlabCudaSumSquares(m_device, m_grads, m_count, m_norms + 1, message), message);
    if (m_optimizer.type == OptimizerKind::Adam)
        check(distlabCudaAdamFrom(m_device, m_params, m_grads, m_slots[0], m_slots[1], m_count, m_scalars,
                                  static_cast<float>(m_optimizer.beta1), static_cast<float>(m_optimizer.beta2),
                                  static_cast<float>(m_optimizer.epsilon), message),
              message);
    else
        check(distlabCudaSgdFrom(m_device, m_params, m_grads, m_slots.empty() ? nullptr : m_slots[0], m_count, m_scalars,
                                 static_cast<float>(m_optimizer.momentum), m_optimizer.nesterov ? 1 : 0, message),
              message);
    check(distlabCudaGather(m_device, m_params, m_watchIndices, m_watchValues, kMaxWatchedValues, message), message);
    mark(m_points.updateEnd());
}

GpuShardFigures GpuReplica::collectFigures() {
    use();
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    GpuShardFigures figures;
    double norms[2] = {0.0, 0.0};
    const std::size_t rows = m_hostLoss.size();
    check(distlabCudaDownload(m_device, m_hostLoss.data(), m_rowLoss, rows * sizeof(float), message), message);
    if (m_labels != nullptr) check(distlabCudaDownload(m_device, m_hostCorrect.data(), m_rowCorrect, rows * sizeof(int), message), message);
    check(distlabCudaDownload(m_device, norms, m_norms, sizeof norms, message), message);
    check(distlabCudaDownload(m_device, figures.watched.data(), m_watchValues, sizeof(float) * kMaxWatchedValues, message), message);
    check(distlabCudaSynchronize(m_device, message), message);
    // Only the rows each micro-batch staged count (a short micro-batch leaves stale rows behind).
    for (std::int64_t micro = 0; micro < m_microSteps; ++micro) {
        const std::size_t first = static_cast<std::size_t>(micro * m_microRows);
        for (std::size_t r = first; r < first + static_cast<std::size_t>(m_rows[static_cast<std::size_t>(micro)]); ++r) {
            figures.lossSum += m_hostLoss[r];
            if (m_labels != nullptr) figures.correct += m_hostCorrect[r];
        }
    }
    figures.gradNormBefore = std::sqrt(norms[0]);
    figures.gradNormAfter = std::sqrt(norms[1]);
    figures.pointMs.resize(static_cast<std::size_t>(m_points.count()));
    check(distlabCudaTimerElapsed(m_timer, figures.pointMs.data(), m_points.count(), message), message);
    return figures;
}

}  // namespace distlab
