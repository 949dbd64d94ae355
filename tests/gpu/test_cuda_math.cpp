// The GPU tensor core's math against the CPU engine's kernels (engine/src/model/dense_kernels.hpp)
// on fresh random inputs: the dense layer's forward and backward for every activation, in
// float32 without TF32, within 1e-5 of the largest reference value; both losses; every optimizer
// (engine/src/optim) over three steps; a whole training step against the one_device trainer, and
// the same step replayed from a CUDA graph bit for bit; the ring all-reduce over logical GPUs of
// one physical GPU against the CPU ring bit for bit, directly and through the Communicator of a
// LogicalGpuGroup (a thread per rank, Work handles in flight); float16 and bfloat16 conversions
// and the tensor-core forward; the caching allocator and
// a logical GPU's memory limit with the clear out-of-memory message. Plain C++ (no Qt), so it runs
// on GPU machines that have only the CUDA toolkit. Exit 77 (CTest: skipped) where no GPU is usable.
#include <algorithm>
#include <chrono>
#include <memory>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda_math.h"
#include "device_query.h"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/optim/optimizer.hpp"
#include "distlab/tensor/dtype.hpp"
#include "trainer_fixtures.hpp"
#include "comm/logical_gpu_group.hpp"
#include "model/dense_kernels.hpp"

namespace {

int failures = 0;

void expect(bool condition, const std::string& what) {
    if (!condition) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}

std::vector<float> randomValues(std::size_t count, std::mt19937& random, float scale = 1.0f) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(count);
    for (float& value : values) value = normal(random);
    return values;
}

/// max |a - b| / max |b|
double relativeError(const std::vector<float>& a, const std::vector<float>& b) {
    double difference = 0.0, largest = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        difference = std::max(difference, std::abs(double(a[i]) - double(b[i])));
        largest = std::max(largest, std::abs(double(b[i])));
    }
    return largest > 0.0 ? difference / largest : difference;
}

/// Device buffers that give themselves back.
class Buffers {
public:
    explicit Buffers(DistlabCudaDevice* device) : m_device(device) {}
    ~Buffers() {
        for (void* pointer : m_pointers) distlabCudaRelease(m_device, pointer);
    }
    float* upload(const std::vector<float>& values) {
        float* pointer = allocate(values.size());
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaUpload(m_device, pointer, values.data(), values.size() * sizeof(float), message) != 0) expect(false, message);
        return pointer;
    }
    float* allocate(std::size_t count) {
        void* pointer = nullptr;
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaAllocate(m_device, std::max<std::size_t>(count, 1) * sizeof(float), &pointer, message) != 0) expect(false, message);
        m_pointers.push_back(pointer);
        return static_cast<float*>(pointer);
    }
    std::vector<float> download(const float* pointer, std::size_t count) {
        std::vector<float> values(count);
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaDownload(m_device, values.data(), pointer, count * sizeof(float), message) != 0 ||
            distlabCudaSynchronize(m_device, message) != 0)
            expect(false, message);
        return values;
    }

private:
    DistlabCudaDevice* m_device;
    std::vector<void*> m_pointers;
};

const char* kActivationNames[] = {"linear", "relu", "tanh", "sigmoid", "gelu"};

void denseMatchesTheCpu(DistlabCudaDevice* device, long long rows, long long inputs, long long units, int activation,
                        std::mt19937& random) {
    const auto n = [](long long a, long long b) { return static_cast<std::size_t>(a * b); };
    const std::vector<float> x = randomValues(n(rows, inputs), random);
    const std::vector<float> w = randomValues(n(inputs, units), random, 1.0f / std::sqrt(float(inputs)));
    const std::vector<float> b = randomValues(n(1, units), random, 0.1f);
    const std::vector<float> dy = randomValues(n(rows, units), random);
    const std::vector<float> dw0 = randomValues(n(inputs, units), random, 0.01f);  // gradients accumulate into these
    const std::vector<float> db0 = randomValues(n(1, units), random, 0.01f);

    // The CPU engine.
    const auto act = static_cast<distlab::Activation>(activation);
    std::vector<float> z(n(rows, units)), y(n(rows, units)), dz(n(rows, units)), dw = dw0, db = db0, dx(n(rows, inputs));
    distlab::kernels::denseForward(x.data(), w.data(), b.data(), z.data(), rows, inputs, units);
    distlab::kernels::activate(act, z.data(), y.data(), rows * units);
    distlab::kernels::activationBackward(act, z.data(), y.data(), dy.data(), dz.data(), rows * units);
    distlab::kernels::denseBackward(x.data(), w.data(), dz.data(), dw.data(), db.data(), dx.data(), rows, inputs, units);

    // The GPU.
    Buffers buffers(device);
    float *gx = buffers.upload(x), *gw = buffers.upload(w), *gb = buffers.upload(b), *gdy = buffers.upload(dy);
    float *gdw = buffers.upload(dw0), *gdb = buffers.upload(db0);
    float *gz = buffers.allocate(z.size()), *gy = buffers.allocate(y.size()), *gdz = buffers.allocate(dz.size());
    float* gdx = buffers.allocate(dx.size());
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    if (distlabCudaDenseForward(device, gx, gw, gb, gz, gy, rows, inputs, units, activation, message) != 0 ||
        distlabCudaDenseBackward(device, gx, gw, gz, gy, gdy, gdz, gdw, gdb, gdx, rows, inputs, units, activation, message) != 0) {
        expect(false, message);
        return;
    }
    const std::string where = std::string(kActivationNames[activation]) + " [" + std::to_string(rows) + "x" +
                              std::to_string(inputs) + "] x [" + std::to_string(inputs) + "x" + std::to_string(units) + "]: ";
    const struct {
        const char* name;
        const std::vector<float>& cpu;
        std::vector<float> gpu;
    } results[] = {{"z", z, buffers.download(gz, z.size())},     {"y", y, buffers.download(gy, y.size())},
                   {"dz", dz, buffers.download(gdz, dz.size())}, {"dw", dw, buffers.download(gdw, dw.size())},
                   {"db", db, buffers.download(gdb, db.size())}, {"dx", dx, buffers.download(gdx, dx.size())}};
    for (const auto& result : results) {
        const double error = relativeError(result.gpu, result.cpu);
        std::printf("  %s%-2s relative error %.2e\n", where.c_str(), result.name, error);
        expect(error <= 1e-5, where + result.name + " differs from the CPU by " + std::to_string(error));
    }
}

/// SGD (plain, momentum, nesterov) and Adam over three steps against the engine's optimizers.
void optimizersMatchTheCpu(DistlabCudaDevice* device, std::mt19937& random) {
    constexpr long long count = 100003;
    const std::vector<float> start = randomValues(count, random);
    const std::vector<std::vector<float>> grads = {randomValues(count, random), randomValues(count, random),
                                                   randomValues(count, random)};
    struct Case {
        const char* name;
        distlab::OptimizerConfig config;
    };
    std::vector<Case> cases(4);
    cases[0] = {"sgd", {}};
    cases[1] = {"momentum", {}};
    cases[1].config.momentum = 0.9;
    cases[2] = {"nesterov", {}};
    cases[2].config.momentum = 0.9;
    cases[2].config.nesterov = true;
    cases[3] = {"adam", {}};
    cases[3].config.type = distlab::OptimizerKind::Adam;
    const float rate = 0.05f;
    for (const Case& c : cases) {
        std::vector<float> expected = start;
        const auto cpu = distlab::makeOptimizer(c.config, count);
        for (const auto& g : grads) cpu->apply(expected, g, rate);

        Buffers buffers(device);
        float* values = buffers.upload(start);
        float* slot0 = buffers.upload(std::vector<float>(count, 0.0f));
        float* slot1 = buffers.upload(std::vector<float>(count, 0.0f));
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        for (std::size_t t = 1; t <= grads.size(); ++t) {
            float* g = buffers.upload(grads[t - 1]);
            int code = 0;
            if (c.config.type == distlab::OptimizerKind::Adam) {
                const auto b1 = static_cast<float>(c.config.beta1), b2 = static_cast<float>(c.config.beta2);
                const float stepSize = static_cast<float>(rate / (1.0 - std::pow(double(b1), double(t))));
                const float invSecond = static_cast<float>(1.0 / std::sqrt(1.0 - std::pow(double(b2), double(t))));
                code = distlabCudaAdam(device, values, g, slot0, slot1, count, stepSize, invSecond, b1, b2,
                                       static_cast<float>(c.config.epsilon), message);
            } else {
                code = distlabCudaSgd(device, values, g, c.config.momentum != 0.0 ? slot0 : nullptr, count, rate,
                                      static_cast<float>(c.config.momentum), c.config.nesterov ? 1 : 0, message);
            }
            if (code != 0) expect(false, message);
        }
        const double error = relativeError(buffers.download(values, count), expected);
        std::printf("  %s, 3 steps: relative error %.2e\n", c.name, error);
        expect(error <= 1e-6, std::string(c.name) + " differs from the CPU by " + std::to_string(error));
    }
}

/// Softmax cross-entropy and mean squared error: per-example losses, gradients, correct counts.
void lossesMatchTheCpu(DistlabCudaDevice* device, std::mt19937& random) {
    const long long rows = 300, classes = 10;
    const std::vector<float> logits = randomValues(rows * classes, random, 3.0f);
    std::vector<std::int32_t> labels(rows);
    for (long long r = 0; r < rows; ++r) labels[r] = static_cast<std::int32_t>(random() % classes);
    const float scale = 1.0f / 512.0f;
    std::vector<float> grad(logits.size());
    std::int64_t correct = 0;
    const float total = distlab::kernels::softmaxCrossEntropy(logits.data(), labels.data(), grad.data(), rows, classes, scale, &correct);

    Buffers buffers(device);
    float* gl = buffers.upload(logits);
    void* labelMemory = nullptr;
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    expect(distlabCudaAllocate(device, labels.size() * sizeof(int), &labelMemory, message) == 0, message);
    expect(distlabCudaUpload(device, labelMemory, labels.data(), labels.size() * sizeof(int), message) == 0, message);
    float *gg = buffers.allocate(grad.size()), *loss = buffers.allocate(rows);
    void* correctMemory = nullptr;
    expect(distlabCudaAllocate(device, rows * sizeof(int), &correctMemory, message) == 0, message);
    if (distlabCudaSoftmaxCrossEntropy(device, gl, static_cast<const int*>(labelMemory), gg, loss, static_cast<int*>(correctMemory),
                                       rows, classes, scale, message) != 0)
        expect(false, message);
    const std::vector<float> rowLoss = buffers.download(loss, rows);
    std::vector<int> rowCorrect(rows);
    distlabCudaDownload(device, rowCorrect.data(), correctMemory, rows * sizeof(int), message);
    distlabCudaSynchronize(device, message);
    double gpuTotal = 0.0;
    for (float value : rowLoss) gpuTotal += value;
    long long gpuCorrect = 0;
    for (int value : rowCorrect) gpuCorrect += value;
    const double gradError = relativeError(buffers.download(gg, grad.size()), grad);
    const double lossError = std::abs(gpuTotal - total) / std::abs(double(total));
    std::printf("  softmax cross-entropy: gradient %.2e, loss sum %.2e, correct %lld / %lld\n", gradError, lossError, gpuCorrect,
                static_cast<long long>(correct));
    expect(gradError <= 1e-5 && lossError <= 1e-5, "softmax cross-entropy differs from the CPU");
    expect(gpuCorrect == correct, "softmax cross-entropy counts the same correct predictions");
    distlabCudaRelease(device, labelMemory);
    distlabCudaRelease(device, correctMemory);

    const long long outputs = 3;
    const std::vector<float> predictions = randomValues(rows * outputs, random), targets = randomValues(rows * outputs, random);
    std::vector<float> dpred(predictions.size());
    const float mse = distlab::kernels::meanSquaredError(predictions.data(), targets.data(), dpred.data(), rows, outputs, scale);
    float *gp = buffers.upload(predictions), *gt = buffers.upload(targets), *gd = buffers.allocate(dpred.size());
    float* mseRows = buffers.allocate(rows);
    if (distlabCudaMeanSquaredError(device, gp, gt, gd, mseRows, rows, outputs, scale, message) != 0) expect(false, message);
    double mseTotal = 0.0;
    for (float value : buffers.download(mseRows, rows)) mseTotal += value;
    const double mseGradError = relativeError(buffers.download(gd, dpred.size()), dpred);
    const double mseError = std::abs(mseTotal - mse) / std::abs(double(mse));
    std::printf("  mean squared error: gradient %.2e, loss sum %.2e\n", mseGradError, mseError);
    expect(mseGradError <= 1e-5 && mseError <= 1e-5, "mean squared error differs from the CPU");
}

/// A whole training step of a small classifier on the GPU (forward, loss, backward, momentum SGD
/// over every parameter at once), eagerly and replayed from a CUDA graph, against the CPU
/// engine's one_device trainer on the same batches from the same initial weights.
class GpuClassifier {
public:
    /// `batch` rows per step on this device; the loss is scaled by 1 / `globalBatch` (TF's
    /// convention: replicas' gradients add up to the global batch's).
    GpuClassifier(DistlabCudaDevice* device, const distlab::Model& model, long long batch, long long globalBatch = 0)
        : m_device(device), m_buffers(device), m_batch(batch), m_globalBatch(globalBatch > 0 ? globalBatch : batch) {
        const auto& infos = model.store().infos();
        m_inputs = infos[0].shape[0];
        m_hidden = infos[0].shape[1];
        m_classes = infos[2].shape[1];
        m_count = model.store().totalSize();
        const auto values = model.store().values();
        m_params = m_buffers.upload(std::vector<float>(values.begin(), values.end()));
        m_grads = m_buffers.allocate(m_count);
        m_velocity = m_buffers.upload(std::vector<float>(m_count, 0.0f));
        for (int i = 0; i < 4; ++i) m_offsets[i] = infos[static_cast<std::size_t>(i)].offset;
        m_x = m_buffers.allocate(batch * m_inputs);
        m_z1 = m_buffers.allocate(batch * m_hidden);
        m_y1 = m_buffers.allocate(batch * m_hidden);
        m_z2 = m_buffers.allocate(batch * m_classes);
        m_dlogits = m_buffers.allocate(batch * m_classes);
        m_dz2 = m_buffers.allocate(batch * m_classes);
        m_dy1 = m_buffers.allocate(batch * m_hidden);
        m_dz1 = m_buffers.allocate(batch * m_hidden);
        m_rowLoss = m_buffers.allocate(batch);
        m_labels = reinterpret_cast<int*>(m_buffers.allocate(batch));
        m_rowCorrect = reinterpret_cast<int*>(m_buffers.allocate(batch));
    }
    ~GpuClassifier() { distlabCudaDestroyGraph(m_graph); }

    void upload(const distlab::Tensor& x, const std::vector<std::int32_t>& labels) {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaUpload(m_device, m_x, x.data(), static_cast<unsigned long long>(x.size()) * sizeof(float), message) != 0 ||
            distlabCudaUpload(m_device, m_labels, labels.data(), labels.size() * sizeof(int), message) != 0)
            expect(false, message);
    }
    /// Queues one step on the stream.
    bool queueStep(float rate, float momentum) { return queueGradient() && queueUpdate(rate, momentum); }
    /// Forward, loss and backward into the gradient buffer.
    bool queueGradient() {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        float *w1 = m_params + m_offsets[0], *b1 = m_params + m_offsets[1], *w2 = m_params + m_offsets[2], *b2 = m_params + m_offsets[3];
        float *dw1 = m_grads + m_offsets[0], *db1 = m_grads + m_offsets[1], *dw2 = m_grads + m_offsets[2], *db2 = m_grads + m_offsets[3];
        const bool ok =
            distlabCudaZero(m_device, m_grads, static_cast<unsigned long long>(m_count) * sizeof(float), message) == 0 &&
            distlabCudaDenseForward(m_device, m_x, w1, b1, m_z1, m_y1, m_batch, m_inputs, m_hidden, 2, message) == 0 &&
            distlabCudaDenseForward(m_device, m_y1, w2, b2, m_z2, m_z2, m_batch, m_hidden, m_classes, 0, message) == 0 &&
            distlabCudaSoftmaxCrossEntropy(m_device, m_z2, m_labels, m_dlogits, m_rowLoss, m_rowCorrect, m_batch, m_classes,
                                           1.0f / static_cast<float>(m_globalBatch), message) == 0 &&
            distlabCudaDenseBackward(m_device, m_y1, w2, m_z2, m_z2, m_dlogits, m_dz2, dw2, db2, m_dy1, m_batch, m_hidden, m_classes, 0,
                                     message) == 0 &&
            distlabCudaDenseBackward(m_device, m_x, w1, m_z1, m_y1, m_dy1, m_dz1, dw1, db1, nullptr, m_batch, m_inputs, m_hidden, 2,
                                     message) == 0;
        if (!ok) expect(false, message);
        return ok;
    }
    /// Momentum SGD over every parameter at once.
    bool queueUpdate(float rate, float momentum) {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        const bool ok = distlabCudaSgd(m_device, m_params, m_grads, m_velocity, m_count, rate, momentum, 0, message) == 0;
        if (!ok) expect(false, message);
        return ok;
    }
    float* grads() const { return m_grads; }
    long long parameterCount() const { return m_count; }
    /// Records one step into a graph (once), then launches it.
    void graphStep(float rate, float momentum) {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (m_graph == nullptr) {
            if (distlabCudaBeginCapture(m_device, message) != 0) return expect(false, message);
            queueStep(rate, momentum);
            if (distlabCudaEndCapture(m_device, &m_graph, message) != 0) return expect(false, message);
        }
        if (distlabCudaLaunch(m_device, m_graph, message) != 0) expect(false, message);
    }
    std::vector<float> params() { return m_buffers.download(m_params, static_cast<std::size_t>(m_count)); }
    void synchronize() {
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaSynchronize(m_device, message) != 0) expect(false, message);
    }

private:
    DistlabCudaDevice* m_device;
    Buffers m_buffers;
    long long m_batch, m_globalBatch, m_inputs = 0, m_hidden = 0, m_classes = 0, m_count = 0;
    std::int64_t m_offsets[4] = {};
    float *m_params, *m_grads, *m_velocity, *m_x, *m_z1, *m_y1, *m_z2, *m_dlogits, *m_dz2, *m_dy1, *m_dz1, *m_rowLoss;
    int *m_labels, *m_rowCorrect;
    DistlabCudaGraph* m_graph = nullptr;
};

void aTrainingStepMatchesTheCpuEngine(DistlabCudaDevice* device) {
    using namespace distlab;
    RunConfig config = testing::smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1);
    config.model.layers = {{"dense", 16, Activation::Tanh, ""}, {"dense", 3, Activation::Linear, ""}};
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const long long batch = config.data.globalBatchSize;
    const auto rate = static_cast<float>(config.optimizer.learningRate);
    MirroredTrainer cpu(config, data);
    GpuClassifier eager(device, cpu.primaryModel(), batch), graph(device, cpu.primaryModel(), batch);
    BatchSampler sampler(data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed);
    Tensor x;
    BatchTargets targets;
    constexpr int kSteps = 40;
    for (int step = 0; step < kSteps; ++step) {
        cpu.step();
        gatherBatch(data.train, sampler.next(), x, targets);
        eager.upload(x, targets.labels);
        eager.queueStep(rate, 0.9f);
        graph.upload(x, targets.labels);
        graph.graphStep(rate, 0.9f);
    }
    const std::vector<float> eagerParams = eager.params(), graphParams = graph.params();
    const auto cpuValues = cpu.primaryModel().store().values();
    const double error = relativeError(eagerParams, std::vector<float>(cpuValues.begin(), cpuValues.end()));
    std::printf("  %d training steps on the GPU vs the CPU engine: relative error %.2e\n", kSteps, error);
    expect(error <= 1e-5, "a GPU training step differs from the CPU engine's by " + std::to_string(error));
    expect(eagerParams == graphParams, "a graph-captured step equals the eager one bit for bit");

    // What the graph saves: steps per second of this small model, eager and replayed.
    const auto timeSteps = [&](bool useGraph) {
        constexpr int kTimed = 2000;
        const auto begin = std::chrono::steady_clock::now();
        for (int step = 0; step < kTimed; ++step) useGraph ? graph.graphStep(rate, 0.9f) : (void)eager.queueStep(rate, 0.9f);
        (useGraph ? graph : eager).synchronize();
        return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count() / kTimed;
    };
    timeSteps(false);
    const double eagerUs = timeSteps(false), graphUs = timeSteps(true);
    std::printf("  one step (7 kernels and 3 products): eager %.1f us, graph %.1f us (%.1fx)\n", eagerUs, graphUs, eagerUs / graphUs);
}

/// Logical GPUs on one physical GPU all-reduce over device memory with the CPU ring's schedule:
/// the same bits as the engine's in-process ring on the same random values, SUM and MEAN.
void ringOverLogicalGpusMatchesTheCpuRing() {
    std::mt19937 random(7);
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    for (int ranks = 1; ranks <= 6; ++ranks) {
        std::vector<DistlabCudaDevice*> devices(static_cast<std::size_t>(ranks), nullptr);
        for (int r = 0; r < ranks; ++r)
            if (distlabCudaOpen(r, 0, 0, &devices[static_cast<std::size_t>(r)], message) != 0) return expect(false, message);
        for (const long long count : {1LL, 7LL, 1000LL, 300001LL})
            for (const bool mean : {false, true}) {
                std::vector<std::vector<float>> values;
                for (int r = 0; r < ranks; ++r) values.push_back(randomValues(static_cast<std::size_t>(count), random));
                // The CPU ring, one thread per rank.
                auto expected = values;
                distlab::InProcessGroup group(ranks, distlab::CrossDeviceOps::Ring);
                std::vector<std::thread> threads;
                for (int r = 0; r < ranks; ++r)
                    threads.emplace_back([&, r] {
                        group.communicator(r).allReduce(expected[static_cast<std::size_t>(r)],
                                                        mean ? distlab::ReduceOp::Mean : distlab::ReduceOp::Sum).wait();
                    });
                for (auto& thread : threads) thread.join();
                // The GPU ring.
                std::vector<Buffers> buffers;
                buffers.reserve(static_cast<std::size_t>(ranks));
                std::vector<float*> pointers;
                for (int r = 0; r < ranks; ++r) {
                    buffers.emplace_back(devices[static_cast<std::size_t>(r)]);
                    pointers.push_back(buffers.back().upload(values[static_cast<std::size_t>(r)]));
                }
                if (distlabCudaRingAllReduce(devices.data(), pointers.data(), ranks, count, mean ? 1 : 0, message) != 0)
                    return expect(false, message);
                bool same = true;
                for (int r = 0; r < ranks; ++r)
                    same = same && buffers[static_cast<std::size_t>(r)].download(pointers[static_cast<std::size_t>(r)],
                                                                                  static_cast<std::size_t>(count)) ==
                                       expected[static_cast<std::size_t>(r)];
                expect(same, "ring over " + std::to_string(ranks) + " logical GPUs, " + std::to_string(count) + " values, " +
                                 (mean ? "mean" : "sum") + ": not the CPU ring's bits");
            }
        std::printf("  ring all-reduce over %d logical GPUs of gpu 0: %s\n", ranks, failures == 0 ? "the CPU ring's bits" : "differs");
        for (DistlabCudaDevice* device : devices) distlabCudaClose(device);
    }
}

/// The same ring behind the Communicator interface: a thread per logical GPU, Work handles in
/// flight until the rank's stream is through; then a broadcast from rank 2.
void logicalGpuCommunicators() {
    constexpr int kRanks = 4;
    constexpr long long kCount = 100003;
    distlab::LogicalGpuGroup group(kRanks, 0, 0);
    std::mt19937 random(11);
    std::vector<std::vector<float>> values, expected;
    for (int r = 0; r < kRanks; ++r) values.push_back(randomValues(kCount, random));
    expected = values;
    {
        distlab::InProcessGroup cpu(kRanks, distlab::CrossDeviceOps::Ring);
        std::vector<std::thread> threads;
        for (int r = 0; r < kRanks; ++r)
            threads.emplace_back([&, r] { cpu.communicator(r).allReduce(expected[r], distlab::ReduceOp::Sum).wait(); });
        for (auto& thread : threads) thread.join();
    }
    std::vector<std::vector<float>> reduced(kRanks), broadcast(kRanks);
    std::vector<int> sawInFlight(kRanks, 0);
    std::vector<std::thread> threads;
    for (int r = 0; r < kRanks; ++r)
        threads.emplace_back([&, r] {
            Buffers buffers(group.device(r));
            float* buffer = buffers.upload(values[r]);
            distlab::Work work = group.communicator(r).allReduce(std::span<float>(buffer, kCount), distlab::ReduceOp::Sum);
            sawInFlight[r] = work.test() ? 0 : 1;
            work.wait();
            reduced[r] = buffers.download(buffer, kCount);
            std::vector<float> mine(kCount, float(r));
            char message[DISTLAB_CUDA_MESSAGE_SIZE];
            distlabCudaUpload(group.device(r), buffer, mine.data(), kCount * sizeof(float), message);
            group.communicator(r).broadcast(std::span<float>(buffer, kCount), 2).wait();
            broadcast[r] = buffers.download(buffer, kCount);
        });
    for (auto& thread : threads) thread.join();
    bool same = true, rootEverywhere = true;
    for (int r = 0; r < kRanks; ++r) {
        same = same && reduced[r] == expected[r];
        rootEverywhere = rootEverywhere && broadcast[r] == std::vector<float>(kCount, 2.0f);
    }
    int inFlight = 0;
    for (int seen : sawInFlight) inFlight += seen;
    std::printf("  logical-GPU communicators: all-reduce %s, broadcast %s, %d of %d calls returned in flight\n",
                same ? "the CPU ring's bits" : "DIFFERS", rootEverywhere ? "every rank has the root's" : "WRONG", inFlight, kRanks);
    expect(same, "logical-GPU all-reduce: not the CPU ring's bits");
    expect(rootEverywhere, "logical-GPU broadcast: not the root's values everywhere");
}

/// 16-bit compute: the device's conversions are the engine's (dtype.hpp) bit for bit, and the
/// tensor-core forward of 16-bit inputs with float32 accumulation equals the CPU's float32
/// forward of the same (rounded) values. Then what tensor cores buy on a large product.
void sixteenBitsOnTensorCores(DistlabCudaDevice* device, std::mt19937& random) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    for (const int half : {1, 2}) {
        const distlab::DType dtype = half == 1 ? distlab::DType::Float16 : distlab::DType::BFloat16;
        const char* name = half == 1 ? "float16" : "bfloat16";
        // Conversions, with values across the ranges (denormals, overflow to infinity, ties).
        std::vector<float> values = randomValues(65536, random, 300.0f);
        values.push_back(1e-7f);
        values.push_back(70000.0f);
        values.push_back(1.0009765625f);  // a tie between two float16 neighbours
        const auto count = static_cast<long long>(values.size());
        std::vector<std::uint16_t> expected(values.size());
        distlab::narrow16(dtype, values.data(), expected.data(), values.size());
        Buffers buffers(device);
        float* source = buffers.upload(values);
        void* bits = buffers.allocate(values.size() / 2 + 1);
        std::vector<std::uint16_t> converted(values.size());
        if (distlabCudaToHalf(device, half, source, bits, count, message) != 0 ||
            distlabCudaDownload(device, converted.data(), bits, values.size() * 2, message) != 0 ||
            distlabCudaSynchronize(device, message) != 0)
            return expect(false, message);
        expect(converted == expected, std::string(name) + ": the device rounds as dtype.hpp does");
        float* back = buffers.allocate(values.size());
        if (distlabCudaFromHalf(device, half, bits, back, count, message) != 0) return expect(false, message);
        std::vector<float> widened(values.size());
        distlab::widen16(dtype, expected.data(), widened.data(), values.size());
        expect(buffers.download(back, values.size()) == widened, std::string(name) + ": the device widens as dtype.hpp does");

        // The forward.
        const long long rows = 256, inputs = 784, units = 256;
        auto rounded = [&](std::vector<float> v) {
            std::vector<std::uint16_t> b(v.size());
            distlab::narrow16(dtype, v.data(), b.data(), v.size());
            distlab::widen16(dtype, b.data(), v.data(), v.size());
            return v;
        };
        const std::vector<float> x = rounded(randomValues(rows * inputs, random));
        const std::vector<float> w = rounded(randomValues(inputs * units, random, 1.0f / 28.0f));
        const std::vector<float> bias = randomValues(units, random, 0.1f);
        std::vector<float> z(rows * units), y(rows * units);
        distlab::kernels::denseForward(x.data(), w.data(), bias.data(), z.data(), rows, inputs, units);
        distlab::kernels::activate(distlab::Activation::Gelu, z.data(), y.data(), rows * units);
        float *gx = buffers.upload(x), *gw = buffers.upload(w), *gb = buffers.upload(bias);
        void* x16 = buffers.allocate(x.size() / 2 + 1);
        void* w16 = buffers.allocate(w.size() / 2 + 1);
        float *gz = buffers.allocate(z.size()), *gy = buffers.allocate(y.size());
        if (distlabCudaToHalf(device, half, gx, x16, static_cast<long long>(x.size()), message) != 0 ||
            distlabCudaToHalf(device, half, gw, w16, static_cast<long long>(w.size()), message) != 0 ||
            distlabCudaDenseForwardHalf(device, half, x16, w16, gb, gz, gy, rows, inputs, units, 4, message) != 0)
            return expect(false, message);
        const double error = relativeError(buffers.download(gy, y.size()), y);
        std::printf("  %s inputs on tensor cores, float32 accumulation, gelu [256x784]x[784x256]: relative error %.2e\n", name, error);
        expect(error <= 1e-5, std::string(name) + " forward differs from the CPU's float32 forward of the same values");

        // The backward. Its products take the 16-bit dz the GPU rounded: the CPU computes the same
        // products in float32 from those very operands; dz itself against the CPU's activation
        // gradient, the bias gradient against column sums of the GPU's float32 dz.
        const std::vector<float> dy = randomValues(rows * units, random);
        float *gdy = buffers.upload(dy), *gdz = buffers.allocate(z.size()), *gdw = buffers.upload(std::vector<float>(inputs * units, 0.0f));
        float *gdb = buffers.upload(std::vector<float>(units, 0.0f)), *gdx = buffers.allocate(rows * inputs);
        void* gdz16 = buffers.allocate(z.size() / 2 + 1);
        if (distlabCudaDenseBackwardHalf(device, half, x16, w16, gz, gy, gdy, gdz, gdz16, gdw, gdb, gdx, rows, inputs, units, 4, message) != 0)
            return expect(false, message);
        std::vector<float> cpuDz(z.size());
        distlab::kernels::activationBackward(distlab::Activation::Gelu, z.data(), y.data(), dy.data(), cpuDz.data(), rows * units);
        const std::vector<float> gpuDz = buffers.download(gdz, z.size());
        std::vector<std::uint16_t> dzBits(z.size());
        distlabCudaDownload(device, dzBits.data(), gdz16, dzBits.size() * 2, message);
        distlabCudaSynchronize(device, message);
        std::vector<float> dz16(z.size());
        distlab::widen16(dtype, dzBits.data(), dz16.data(), dz16.size());
        std::vector<float> dw(inputs * units, 0.0f), db(units, 0.0f), dx(rows * inputs);
        distlab::kernels::denseBackward(x.data(), w.data(), dz16.data(), dw.data(), db.data(), dx.data(), rows, inputs, units);
        for (long long j = 0; j < units; ++j) {
            float sum = 0.0f;
            for (long long r = 0; r < rows; ++r) sum += gpuDz[r * units + j];
            db[j] = sum;
        }
        const double dzError = relativeError(gpuDz, cpuDz);
        const double dwError = relativeError(buffers.download(gdw, dw.size()), dw);
        const double dbError = relativeError(buffers.download(gdb, db.size()), db);
        const double dxError = relativeError(buffers.download(gdx, dx.size()), dx);
        std::printf("  %s backward on tensor cores: dz %.2e, dw %.2e, db %.2e, dx %.2e\n", name, dzError, dwError, dbError, dxError);
        expect(dzError <= 1e-5 && dwError <= 1e-5 && dbError <= 1e-5 && dxError <= 1e-5,
               std::string(name) + " backward differs from the CPU's float32 backward of the same 16-bit operands");
    }

    // What tensor cores buy: a 4096 x 4096 x 4096 product, float32 (no TF32) against bfloat16.
    const long long n = 4096;
    Buffers buffers(device);
    float* a = buffers.upload(randomValues(n * n, random));
    float* bmat = buffers.upload(randomValues(n * n, random));
    float* bias = buffers.upload(std::vector<float>(n, 0.0f));
    float *c = buffers.allocate(n * n), *out = buffers.allocate(n * n);
    void* a16 = buffers.allocate(n * n / 2);
    void* b16 = buffers.allocate(n * n / 2);
    distlabCudaToHalf(device, 2, a, a16, n * n, message);
    distlabCudaToHalf(device, 2, bmat, b16, n * n, message);
    const auto time = [&](bool sixteen) {
        distlabCudaSynchronize(device, message);
        const auto begin = std::chrono::steady_clock::now();
        constexpr int kRepeats = 10;
        for (int i = 0; i < kRepeats; ++i)
            sixteen ? distlabCudaDenseForwardHalf(device, 2, a16, b16, bias, c, out, n, n, n, 0, message)
                    : distlabCudaDenseForward(device, a, bmat, bias, c, out, n, n, n, 0, message);
        distlabCudaSynchronize(device, message);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / kRepeats;
        return 2.0 * double(n) * double(n) * double(n) / seconds * 1e-12;
    };
    time(false);
    time(true);
    const double fp32 = time(false), bf16 = time(true);
    std::printf("  4096^3 product: float32 %.1f TFLOP/s, bfloat16 on tensor cores %.1f TFLOP/s (%.1fx)\n", fp32, bf16, bf16 / fp32);
}

/// Mirrored on 4 logical GPUs of one physical GPU: each replica computes its shard's gradient on
/// its own stream, the ring all-reduces them, every replica applies the same update. It ends
/// where the CPU engine's mirrored trainer on 4 logical CPU devices ends, and its copies are equal.
void mirroredOnLogicalGpus() {
    using namespace distlab;
    constexpr int kReplicas = 4;
    RunConfig config = testing::smallConfig(kReplicas, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1);
    config.model.layers = {{"dense", 16, Activation::Tanh, ""}, {"dense", 3, Activation::Linear, ""}};
    const DataSplit data = testing::makeClassificationData(240, 5, 3, 3);
    const long long global = config.data.globalBatchSize, shard = global / kReplicas;
    const auto rate = static_cast<float>(config.optimizer.learningRate);
    MirroredTrainer cpu(config, data);
    LogicalGpuGroup group(kReplicas, 0, 0);
    std::vector<std::unique_ptr<GpuClassifier>> replicas;
    for (int r = 0; r < kReplicas; ++r)
        replicas.push_back(std::make_unique<GpuClassifier>(group.device(r), cpu.primaryModel(), shard, global));
    BatchSampler sampler(data.train.count, config.data.globalBatchSize, config.data.shuffle, config.seed);
    Tensor x;
    BatchTargets targets;
    constexpr int kSteps = 30;
    for (int step = 0; step < kSteps; ++step) {
        cpu.step();
        const auto batch = sampler.next();
        std::vector<float*> grads;
        for (int r = 0; r < kReplicas; ++r) {
            gatherBatch(data.train, BatchSampler::shard(batch, r, kReplicas, 0, 1), x, targets);
            replicas[r]->upload(x, targets.labels);
            replicas[r]->queueGradient();
            grads.push_back(replicas[r]->grads());
        }
        char message[DISTLAB_CUDA_MESSAGE_SIZE];
        if (distlabCudaRingAllReduce(group.devices(), grads.data(), kReplicas, replicas[0]->parameterCount(), 0, message) != 0)
            return expect(false, message);
        for (auto& replica : replicas) replica->queueUpdate(rate, 0.9f);
    }
    const auto cpuValues = cpu.primaryModel().store().values();
    const std::vector<float> reference(cpuValues.begin(), cpuValues.end());
    const std::vector<float> first = replicas[0]->params();
    bool copiesEqual = true;
    for (int r = 1; r < kReplicas; ++r) copiesEqual = copiesEqual && replicas[r]->params() == first;
    const double error = relativeError(first, reference);
    std::printf("  mirrored on %d logical GPUs, %d steps, vs the CPU mirrored trainer: relative error %.2e, copies %s\n", kReplicas,
                kSteps, error, copiesEqual ? "identical" : "DIFFER");
    expect(error <= 1e-5, "mirrored on logical GPUs differs from the CPU mirrored trainer by " + std::to_string(error));
    expect(copiesEqual, "mirrored copies on logical GPUs are identical");
}

void allocatorCachesAndCounts(DistlabCudaDevice* device) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaMemoryStats before{}, after{};
    distlabCudaMemory(device, &before);
    void *first = nullptr, *second = nullptr;
    expect(distlabCudaAllocate(device, 1000, &first, message) == 0, message);
    distlabCudaMemory(device, &after);
    expect(after.liveBytes == before.liveBytes + 1024, "a 1000-byte block counts 1024 live bytes (512-byte granules)");
    distlabCudaRelease(device, first);
    DistlabCudaMemoryStats released{}, reused{};
    distlabCudaMemory(device, &released);
    expect(released.cachedBytes >= 1024, "a released block is kept for reuse");
    expect(distlabCudaAllocate(device, 1024, &second, message) == 0, message);
    distlabCudaMemory(device, &reused);
    expect(reused.cachedBytes == released.cachedBytes - 1024, "a request of a cached size takes a cached block (no cudaMalloc)");
    distlabCudaRelease(device, second);
    distlabCudaMemory(device, &after);
    expect(after.liveBytes == before.liveBytes && after.peakBytes >= before.liveBytes + 1024, "live and peak bytes");
}

void aLogicalLimitGivesAClearError(int physical) {
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaDevice* small = nullptr;
    if (distlabCudaOpen(7, physical, 1 << 20, &small, message) != 0) {
        expect(false, message);
        return;
    }
    void *a = nullptr, *b = nullptr;
    expect(distlabCudaAllocate(small, 600 * 1024, &a, message) == 0, message);
    const int code = distlabCudaAllocate(small, 600 * 1024, &b, message);
    std::printf("  limit: %s\n", message);
    expect(code == DISTLAB_CUDA_OUT_OF_MEMORY && b == nullptr, "over the logical device's limit: out of memory");
    expect(std::strstr(message, "gpu:7") != nullptr && std::strstr(message, "limit") != nullptr,
           "the message names the device and its limit");
    distlabCudaRelease(small, a);
    expect(distlabCudaAllocate(small, 600 * 1024, &b, message) == 0, "after a release the same request fits");
    distlabCudaClose(small);

    // Past the physical GPU's memory: the message says what was asked for and what is free.
    DistlabCudaDevice* whole = nullptr;
    if (distlabCudaOpen(0, physical, 0, &whole, message) != 0) {
        expect(false, message);
        return;
    }
    void* huge = nullptr;
    const int hugeCode = distlabCudaAllocate(whole, 1ull << 50, &huge, message);
    std::printf("  physical: %s\n", message);
    expect(hugeCode == DISTLAB_CUDA_OUT_OF_MEMORY && std::strstr(message, "free of") != nullptr, "a 1 PiB request: out of memory");
    void* fine = nullptr;
    expect(distlabCudaAllocate(whole, 4096, &fine, message) == 0, "the device still works after an out-of-memory error");
    distlabCudaRelease(whole, fine);
    distlabCudaClose(whole);
}

}  // namespace

int main() {
    DistlabCudaStatus status{};
    distlabCudaQueryStatus(&status);
    if (status.deviceCount <= 0) {
        std::printf("SKIP: no usable GPU (%s)\n", status.errorCode != 0 ? status.errorString : "no device");
        return 77;
    }
    char message[DISTLAB_CUDA_MESSAGE_SIZE];
    DistlabCudaDevice* device = nullptr;
    if (distlabCudaOpen(0, 0, 0, &device, message) != 0) {
        std::printf("FAIL: %s\n", message);
        return 1;
    }
    std::mt19937 random(20261124);
    for (int activation = 0; activation < 5; ++activation) {
        denseMatchesTheCpu(device, 37, 29, 23, activation, random);
        denseMatchesTheCpu(device, 256, 784, 256, activation, random);
    }
    denseMatchesTheCpu(device, 1, 5, 1, 2, random);
    optimizersMatchTheCpu(device, random);
    lossesMatchTheCpu(device, random);
    allocatorCachesAndCounts(device);
    sixteenBitsOnTensorCores(device, random);
    aTrainingStepMatchesTheCpuEngine(device);
    ringOverLogicalGpusMatchesTheCpuRing();
    logicalGpuCommunicators();
    mirroredOnLogicalGpus();
    distlabCudaClose(device);
    aLogicalLimitGivesAClearError(0);
    std::printf("%s: %d failure(s)\n", failures == 0 ? "PASS" : "FAIL", failures);
    return failures == 0 ? 0 : 1;
}
