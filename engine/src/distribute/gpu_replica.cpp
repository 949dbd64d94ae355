#include "distribute/gpu_replica.hpp"

#if DISTLAB_HAVE_CUDA
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
      m_microRows(microRows),
      m_microSteps(microSteps),
      m_count(hostModel.store().totalSize()) {
    try {
        // The store holds each dense layer's kernel [inputs, units] then its bias [units], in layer order.
        const auto& infos = hostModel.store().infos();
        if (infos.size() != 2 * config.model.layers.size())
            throw TrainingError("gpu path: the model's parameters are not one kernel and one bias per dense layer");
        m_features = infos.front().shape[0];
        m_params = allocate(m_count);
        m_grads = allocate(m_count);
        for (std::size_t s = 0; s < slotCount(m_optimizer); ++s) m_slots.push_back(allocate(m_count));
        m_input = allocate(microRows * m_features);
        for (std::size_t i = 0; i < config.model.layers.size(); ++i) {
            DenseGeometry layer;
            layer.inputs = infos[2 * i].shape[0];
            layer.units = infos[2 * i].shape[1];
            layer.kernelOffset = infos[2 * i].offset;
            layer.biasOffset = infos[2 * i + 1].offset;
            layer.activation = static_cast<int>(config.model.layers[i].activation);
            layer.z = allocate(microRows * layer.units);
            // A linear layer's output is its pre-activation (the bridge allows y == z).
            layer.y = layer.activation == 0 ? layer.z : allocate(microRows * layer.units);
            layer.dz = allocate(microRows * layer.units);
            layer.dy = allocate(microRows * layer.units);
            m_layers.push_back(layer);
        }
        m_outputs = m_layers.back().units;
        if (m_loss == LossKind::SoftmaxCrossEntropy) m_labels = reinterpret_cast<int*>(allocate(microRows, sizeof(int)));
        else m_targets = allocate(microRows * m_outputs);
        m_rowLoss = allocate(microRows * microSteps);
        m_rowCorrect = reinterpret_cast<int*>(allocate(microRows * microSteps, sizeof(int)));
        m_hostLoss.resize(static_cast<std::size_t>(microRows * microSteps));
        m_hostCorrect.resize(static_cast<std::size_t>(microRows * microSteps));
    } catch (...) {
        for (void* pointer : m_allocations) distlabCudaRelease(m_device, pointer);
        throw;
    }
}

GpuReplica::~GpuReplica() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    distlabCudaSynchronize(m_device, message);  // nothing queued may still use a buffer given back
    for (void* pointer : m_allocations) distlabCudaRelease(m_device, pointer);
}

float* GpuReplica::allocate(std::int64_t count, std::size_t elementBytes) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    void* pointer = nullptr;
    const auto bytes = static_cast<unsigned long long>(std::max<std::int64_t>(count, 1)) * elementBytes;
    check(distlabCudaAllocate(m_device, bytes, &pointer, message), message);
    m_allocations.push_back(pointer);
    return static_cast<float*>(pointer);
}

void GpuReplica::upload(const Model& model, Optimizer& optimizer) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (optimizer.slotNames().size() != m_slots.size())
        throw TrainingError("gpu path: the host optimizer has " + std::to_string(optimizer.slotNames().size()) +
                            " slots, the device " + std::to_string(m_slots.size()));
    const auto bytes = static_cast<unsigned long long>(m_count) * sizeof(float);
    check(distlabCudaUpload(m_device, m_params, model.store().values().data(), bytes, message), message);
    for (std::size_t s = 0; s < m_slots.size(); ++s)
        check(distlabCudaUpload(m_device, m_slots[s], optimizer.slot(s).data(), bytes, message), message);
    // The upload reads host memory when the stream reaches it; wait so the caller may change it.
    check(distlabCudaSynchronize(m_device, message), message);
}

void GpuReplica::download(Model& model, Optimizer& optimizer) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const auto bytes = static_cast<unsigned long long>(m_count) * sizeof(float);
    check(distlabCudaDownload(m_device, model.store().values().data(), m_params, bytes, message), message);
    for (std::size_t s = 0; s < m_slots.size(); ++s)
        check(distlabCudaDownload(m_device, optimizer.slot(s).data(), m_slots[s], bytes, message), message);
    check(distlabCudaSynchronize(m_device, message), message);
}

void GpuReplica::zeroGradients() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    check(distlabCudaZero(m_device, m_grads, static_cast<unsigned long long>(m_count) * sizeof(float), message), message);
}

void GpuReplica::queueMicroBatch(int micro, const Tensor& input, const BatchTargets& targets, float scale) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const std::int64_t rows = input.shape()[0];
    if (rows > m_microRows) throw TrainingError("gpu path: a micro-batch of " + std::to_string(rows) + " rows, sized for " +
                                                std::to_string(m_microRows));
    // Uploads are synchronous for pageable host memory, so the caller may refill input afterwards.
    check(distlabCudaUpload(m_device, m_input, input.data(), static_cast<unsigned long long>(input.size()) * sizeof(float),
                            message), message);
    if (m_labels != nullptr)
        check(distlabCudaUpload(m_device, m_labels, targets.labels.data(), targets.labels.size() * sizeof(int), message), message);
    else
        check(distlabCudaUpload(m_device, m_targets, targets.values.data(),
                                static_cast<unsigned long long>(targets.values.size()) * sizeof(float), message), message);
    const float* x = m_input;
    for (DenseGeometry& layer : m_layers) {
        check(distlabCudaDenseForward(m_device, x, m_params + layer.kernelOffset, m_params + layer.biasOffset, layer.z, layer.y,
                                      rows, layer.inputs, layer.units, layer.activation, message), message);
        x = layer.y;
    }
    DenseGeometry& last = m_layers.back();
    float* rowLoss = m_rowLoss + micro * m_microRows;
    int* rowCorrect = m_rowCorrect + micro * m_microRows;
    if (m_labels != nullptr)
        check(distlabCudaSoftmaxCrossEntropy(m_device, last.y, m_labels, last.dy, rowLoss, rowCorrect, rows, m_outputs, scale,
                                             message), message);
    else
        check(distlabCudaMeanSquaredError(m_device, last.y, m_targets, last.dy, rowLoss, rows, m_outputs, scale, message),
              message);
    for (std::size_t i = m_layers.size(); i-- > 0;) {
        DenseGeometry& layer = m_layers[i];
        const float* layerInput = i == 0 ? m_input : m_layers[i - 1].y;
        float* inputGradient = i == 0 ? nullptr : m_layers[i - 1].dy;  // the data's gradient is never needed
        check(distlabCudaDenseBackward(m_device, layerInput, m_params + layer.kernelOffset, layer.z, layer.y, layer.dy, layer.dz,
                                       m_grads + layer.kernelOffset, m_grads + layer.biasOffset, inputGradient, rows,
                                       layer.inputs, layer.units, layer.activation, message), message);
    }
}

void GpuReplica::queueUpdate(float learningRate, std::int64_t iteration) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (m_optimizer.type == OptimizerKind::Adam) {
        // As engine/src/optim/adam.cpp: the bias corrections in double, then float.
        const double t = static_cast<double>(iteration);
        const auto stepSize = static_cast<float>(learningRate / (1.0 - std::pow(m_optimizer.beta1, t)));
        const auto invSecond = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(m_optimizer.beta2, t)));
        check(distlabCudaAdam(m_device, m_params, m_grads, m_slots[0], m_slots[1], m_count, stepSize, invSecond,
                              static_cast<float>(m_optimizer.beta1), static_cast<float>(m_optimizer.beta2),
                              static_cast<float>(m_optimizer.epsilon), message), message);
        return;
    }
    check(distlabCudaSgd(m_device, m_params, m_grads, m_slots.empty() ? nullptr : m_slots[0], m_count, learningRate,
                         static_cast<float>(m_optimizer.momentum), m_optimizer.nesterov ? 1 : 0, message), message);
}

GpuShardFigures GpuReplica::collectFigures() {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    const std::size_t rows = m_hostLoss.size();
    check(distlabCudaDownload(m_device, m_hostLoss.data(), m_rowLoss, rows * sizeof(float), message), message);
    if (m_labels != nullptr)
        check(distlabCudaDownload(m_device, m_hostCorrect.data(), m_rowCorrect, rows * sizeof(int), message), message);
    check(distlabCudaSynchronize(m_device, message), message);
    GpuShardFigures figures;
    for (std::size_t r = 0; r < rows; ++r) {
        figures.lossSum += m_hostLoss[r];
        if (m_labels != nullptr) figures.correct += m_hostCorrect[r];
    }
    return figures;
}

}  // namespace distlab
#endif  // DISTLAB_HAVE_CUDA
