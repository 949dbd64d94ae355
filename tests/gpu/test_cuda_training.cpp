// Training on the GPU against the CPU engine: a whole step of a small classifier against the
// one_device trainer, and the same step replayed from a CUDA graph bit for bit; the ring
// all-reduce over logical GPUs of one physical GPU against the CPU ring bit for bit, directly and
// through a LogicalGpuGroup's communicators (a thread per rank, Work handles); mirrored training
// on 4 logical GPUs against the CPU mirrored trainer. Exit 77 (CTest: skipped) without a GPU.
#include <chrono>
#include <memory>
#include <thread>

#include "comm/logical_gpu_group.hpp"
#include "cuda_test_support.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/data/batch_sampler.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab::gpu_testing;

namespace {

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

    void upload(distlab::ConstTensorView x, const std::vector<std::int32_t>& labels) {
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
        const bool ok = distlabCudaZero(m_device, m_grads, static_cast<unsigned long long>(m_count) * sizeof(float), message) == 0 &&
                        distlabCudaDenseForward(m_device, m_x, w1, b1, m_z1, m_y1, m_batch, m_inputs, m_hidden, 2, message) == 0 &&
                        distlabCudaDenseForward(m_device, m_y1, w2, b2, m_z2, m_z2, m_batch, m_hidden, m_classes, 0, message) == 0 &&
                        distlabCudaSoftmaxCrossEntropy(m_device, m_z2, m_labels, m_dlogits, m_rowLoss, m_rowCorrect, m_batch, m_classes,
                                                       1.0f / static_cast<float>(m_globalBatch), message) == 0 &&
                        distlabCudaDenseBackward(m_device, m_y1, w2, m_z2, m_z2, m_dlogits, m_dz2, dw2, db2, m_dy1, m_batch, m_hidden,
                                                 m_classes, 0, message) == 0 &&
                        distlabCudaDenseBackward(m_device, m_x, w1, m_z1, m_y1, m_dy1, m_dz1, dw1, db1, nullptr, m_batch, m_inputs,
                                                 m_hidden, 2, message) == 0;
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
        const distlab::ConstTensorView input = gatherBatch(data.train, sampler.next(), x, targets);
        eager.upload(input, targets.labels);
        eager.queueStep(rate, 0.9f);
        graph.upload(input, targets.labels);
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
                        group.communicator(r)
                            .allReduce(expected[static_cast<std::size_t>(r)], mean ? distlab::ReduceOp::Mean : distlab::ReduceOp::Sum)
                            .wait();
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
            const distlab::ConstTensorView input = gatherBatch(data.train, BatchSampler::shard(batch, r, kReplicas, 0, 1), x, targets);
            replicas[r]->upload(input, targets.labels);
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
    std::printf("  mirrored on %d logical GPUs, %d steps, vs the CPU mirrored trainer: relative error %.2e, copies %s\n", kReplicas, kSteps,
                error, copiesEqual ? "identical" : "DIFFER");
    expect(error <= 1e-5, "mirrored on logical GPUs differs from the CPU mirrored trainer by " + std::to_string(error));
    expect(copiesEqual, "mirrored copies on logical GPUs are identical");
}

}  // namespace

int main() {
    return runOnFirstGpu([](DistlabCudaDevice* device) {
        aTrainingStepMatchesTheCpuEngine(device);
        ringOverLogicalGpusMatchesTheCpuRing();
        logicalGpuCommunicators();
        mirroredOnLogicalGpus();
    });
}
