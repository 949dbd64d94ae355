// Which samples a step takes and how the model reads them: BatchSampler's epochs, reshuffles,
// restores and shards, and gatherBatch's rows (read in place for a consecutive run, copied
// otherwise, the same bits either way).
#include <QtTest>

#include <cmath>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

#include "distlab/data/batch_sampler.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/distribute/trainer.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"

using namespace distlab;

namespace {
std::vector<std::int64_t> toVector(std::span<const std::int64_t> span) { return {span.begin(), span.end()}; }
}  // namespace

class TestBatches : public QObject {
    Q_OBJECT

private slots:
    // ---- BatchSampler ----
    void samplerEpochDropsRemainder() {
        BatchSampler sampler(10, 3, false, 1);
        QCOMPARE(sampler.batchesPerEpoch(), std::int64_t{3});
        QCOMPARE(toVector(sampler.next()), (std::vector<std::int64_t>{0, 1, 2}));
        QCOMPARE(toVector(sampler.next()), (std::vector<std::int64_t>{3, 4, 5}));
        QCOMPARE(toVector(sampler.next()), (std::vector<std::int64_t>{6, 7, 8}));
        QCOMPARE(sampler.epoch(), std::int64_t{0});
        QCOMPARE(sampler.cursor(), std::int64_t{9});
        QCOMPARE(toVector(sampler.next()), (std::vector<std::int64_t>{0, 1, 2}));  // sample 9 dropped
        QCOMPARE(sampler.epoch(), std::int64_t{1});
        QCOMPARE(sampler.cursor(), std::int64_t{3});
    }
    void samplerReshufflesEachEpoch() {
        BatchSampler sampler(12, 4, true, 7);
        BatchSampler same(12, 4, true, 7);
        BatchSampler other(12, 4, true, 8);
        std::vector<std::vector<std::int64_t>> epochs(2);
        bool differsFromOtherSeed = false;
        for (auto& order : epochs) {
            for (int b = 0; b < 3; ++b) {
                const auto batch = toVector(sampler.next());
                QCOMPARE(toVector(same.next()), batch);
                differsFromOtherSeed = differsFromOtherSeed || toVector(other.next()) != batch;
                order.insert(order.end(), batch.begin(), batch.end());
            }
            auto sorted = order;
            std::sort(sorted.begin(), sorted.end());
            for (std::int64_t i = 0; i < 12; ++i) QCOMPARE(sorted[static_cast<std::size_t>(i)], i);
        }
        QVERIFY(epochs[0] != epochs[1]);
        QVERIFY(epochs[0] != toVector(BatchSampler(12, 12, false, 7).next()));
        QVERIFY(differsFromOtherSeed);
    }
    void samplerRestoreContinuesIdentically() {
        BatchSampler reference(10, 4, true, 99);
        std::vector<std::vector<std::int64_t>> batches;
        std::int64_t epoch = 0, cursor = 0;
        for (int i = 0; i < 9; ++i) {
            if (i == 5) epoch = reference.epoch(), cursor = reference.cursor();
            batches.push_back(toVector(reference.next()));
        }
        QCOMPARE(epoch, std::int64_t{2});
        QCOMPARE(cursor, std::int64_t{4});
        BatchSampler restored(10, 4, true, 99);
        restored.restore(epoch, cursor);
        for (int i = 5; i < 9; ++i) QCOMPARE(toVector(restored.next()), batches[static_cast<std::size_t>(i)]);
    }
    void samplerShards() {
        const std::vector<std::int64_t> batch{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
        QCOMPARE(toVector(BatchSampler::shard(batch, 0, 3, 0, 1)), (std::vector<std::int64_t>{10, 11, 12, 13}));
        QCOMPARE(toVector(BatchSampler::shard(batch, 2, 3, 0, 1)), (std::vector<std::int64_t>{18, 19, 20, 21}));
        QCOMPARE(toVector(BatchSampler::shard(batch, 1, 3, 0, 2)), (std::vector<std::int64_t>{14, 15}));
        QCOMPARE(toVector(BatchSampler::shard(batch, 1, 3, 1, 2)), (std::vector<std::int64_t>{16, 17}));
        QCOMPARE(toVector(BatchSampler::shard(batch, 3, 4, 2, 3)), (std::vector<std::int64_t>{21}));
        QCOMPARE(toVector(BatchSampler::shard(batch, 0, 1, 0, 1)), batch);
    }

    // ---- a batch's rows ----
    static Dataset oddRowsData(std::int64_t count, std::int64_t features) {
        Dataset data;
        data.count = count;
        data.features = features;  // odd: most rows start off a 64-byte boundary
        data.classes = 3;
        for (std::int64_t i = 0; i < count * features; ++i) data.x.push_back(std::sin(0.37f * float(i)));
        for (std::int64_t i = 0; i < count; ++i) data.labels.push_back(std::int32_t(i % 3));
        return data;
    }
    void batchOfConsecutiveRowsIsReadInPlace() {
        const Dataset data = oddRowsData(10, 3);
        Tensor scratch;
        BatchTargets targets;
        const std::vector<std::int64_t> run{4, 5, 6, 7};
        const ConstTensorView inPlace = gatherBatch(data, run, scratch, targets);
        QCOMPARE(inPlace.data(), data.x.data() + 4 * 3);  // no copy
        QCOMPARE(inPlace.shape(), (ViewShape{4, 3}));
        QCOMPARE(scratch.size(), std::int64_t{0});
        QCOMPARE(targets.labels, (std::vector<std::int32_t>{1, 2, 0, 1}));
        const std::vector<std::int64_t> scattered{7, 2, 3};
        const ConstTensorView copied = gatherBatch(data, scattered, scratch, targets);
        QCOMPARE(copied.data(), scratch.data());
        QCOMPARE(copied.shape(), (ViewShape{3, 3}));
        for (std::int64_t r = 0; r < 3; ++r)
            for (std::int64_t j = 0; j < 3; ++j) QCOMPARE(copied[r * 3 + j], data.x[std::size_t(scattered[std::size_t(r)] * 3 + j)]);
        QCOMPARE(targets.labels, (std::vector<std::int32_t>{1, 2, 0}));
    }
    void batchReadInPlaceTrainsBitForBitAsACopy() {
        // The same rows read where they lie (off a 64-byte boundary) and from an aligned copy give
        // the same outputs and gradients, bit for bit, on products large enough for the packed
        // kernels: a run's bits do not depend on where its data set was allocated.
        const Dataset data = oddRowsData(80, 37);
        ModelConfig config;
        config.layers = {{"dense", 48, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
        const LossFunction loss(LossKind::SoftmaxCrossEntropy);
        std::vector<std::int64_t> run(64);
        std::iota(run.begin(), run.end(), 5);
        bool readWhereAsked = true;
        const auto trained = [&](bool inPlace) {
            Model model(config, data.features);
            model.initialize(InitKind::GlorotUniform, 11);
            Tensor scratch, grad;
            BatchTargets targets;
            ConstTensorView input = gatherBatch(data, run, scratch, targets);
            if (!inPlace) {
                scratch.resize2d(64, 37);
                std::copy_n(input.data(), 64 * 37, scratch.data());
                input = scratch;
            }
            readWhereAsked = readWhereAsked && (input.data() == data.x.data() + 5 * 37) == inPlace;
            ModelContext context = model.makeContext();
            const Tensor& output = model.forward(input, context);
            std::vector<float> result(output.values().begin(), output.values().end());
            loss.evaluate(output, targets, 1.0f / 64, grad);
            model.zeroGradients();
            model.backward(input, grad, context);
            result.insert(result.end(), model.store().grads().begin(), model.store().grads().end());
            return result;
        };
        const std::vector<float> inPlace = trained(true), copied = trained(false);
        QVERIFY(readWhereAsked);
        QCOMPARE(inPlace.size(), copied.size());
        QVERIFY(std::memcmp(inPlace.data(), copied.data(), inPlace.size() * sizeof(float)) == 0);
    }
};

QTEST_APPLESS_MAIN(TestBatches)
#include "test_batches.moc"
