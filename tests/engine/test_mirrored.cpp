// Strategies that must agree do: mirrored on 1-4 replicas with each reduction and with gradient
// accumulation ends with the weights of one_device on the same global batch; the worked example
// of docs/semantics.md §4; determinism.
#include <QtTest>

#include "distlab/telemetry/phase_split.hpp"
#include "distlab/tensor/device_memory.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestMirrored : public QObject {
    Q_OBJECT
private slots:
    void equalsOneDevice_data() {
        QTest::addColumn<int>("replicas");
        QTest::addColumn<int>("ops");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<int>("accumulation");
        for (int replicas : {1, 2, 3, 4})
            for (auto ops : {CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::Ring})
                for (int accumulation : {1, 2}) {
                    const QString base = QString("%1 replicas/%2/acc %3").arg(replicas).arg(configName(ops)).arg(accumulation);
                    QTest::newRow(qPrintable(base + "/sgd")) << replicas << int(ops) << int(OptimizerKind::Sgd) << 0.0 << accumulation;
                    QTest::newRow(qPrintable(base + "/momentum")) << replicas << int(ops) << int(OptimizerKind::Sgd) << 0.9 << accumulation;
                    QTest::newRow(qPrintable(base + "/adam")) << replicas << int(ops) << int(OptimizerKind::Adam) << 0.0 << accumulation;
                }
    }

    void equalsOneDevice() {
        QFETCH(int, replicas);
        QFETCH(int, ops);
        QFETCH(int, optimizer);
        QFETCH(double, momentum);
        QFETCH(int, accumulation);
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer reference(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind(optimizer), momentum, 1), data);
        MirroredTrainer mirrored(smallConfig(replicas, CrossDeviceOps(ops), OptimizerKind(optimizer), momentum, accumulation), data);
        for (int step = 0; step < 50; ++step) {
            const double referenceLoss = reference.step().loss;
            const double mirroredLoss = mirrored.step().loss;
            QVERIFY(std::abs(referenceLoss - mirroredLoss) <= 1e-5 * std::max(1.0, std::abs(referenceLoss)));
        }
        const auto expected = reference.replicaModel(0).store().values();
        QVERIFY(relativeError(expected, expected) == 0.0);
        for (int r = 0; r < replicas; ++r) {
            const double error = relativeError(mirrored.replicaModel(r).store().values(), expected);
            QVERIFY2(error <= 1e-5, qPrintable(QString("replica %1: relative error %2").arg(r).arg(error)));
        }
        // Mirrored copies are not just close but identical: every replica applied the same reduced gradient.
        for (int r = 1; r < replicas; ++r) {
            const auto a = mirrored.replicaModel(r).store().values();
            const auto b = mirrored.replicaModel(0).store().values();
            QVERIFY(std::equal(a.begin(), a.end(), b.begin()));
        }
        // The weights actually moved.
        MirroredTrainer fresh(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind(optimizer), momentum, 1), data);
        QVERIFY(relativeError(fresh.replicaModel(0).store().values(), expected) > 1e-3);
    }

    void centralStorageEqualsOneDevice() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer reference(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1), data);
        RunConfig config = smallConfig(3, CrossDeviceOps::ReductionToOneDevice, OptimizerKind::Adam, 0.0, 1);
        config.strategy.type = StrategyKind::CentralStorage;
        MirroredTrainer central(config, data);
        QCOMPARE(central.optimizerCount(), 1);  // one copy of the variables, updated once
        for (int step = 0; step < 50; ++step) {
            reference.step();
            const StepReport& report = central.step();
            QVERIFY(report.replicas[1].bytesSent > 0);  // the read of the central variables
        }
        QVERIFY(relativeError(central.primaryModel().store().values(), reference.replicaModel(0).store().values()) <= 1e-5);
        QCOMPARE(central.replicaOptimizer(0).iterations(), std::int64_t{50});
    }

    void workedExampleOfSection4() {
        // Per-example loss with gradient x (MSE against target x - 0.5 with w = 1, b = 0 gives
        // d/dw = 2 (w x - t) x = x). Replica 0 has x = [1, 2], replica 1 x = [3, 4]; SGD lr 0.1:
        // the summed gradient of the global-batch average is 2.5, so w = 0.75 (0.5 if each
        // replica divided by its own batch).
        DataSplit data;
        data.train.count = 4;
        data.train.features = 1;
        data.train.outputs = 1;
        data.train.x = {1, 2, 3, 4};
        data.train.targets = {0.5f, 1.5f, 2.5f, 3.5f};
        RunConfig config;
        config.model.layers = {{"dense", 1, Activation::Linear, ""}};
        config.model.loss = LossKind::MeanSquaredError;
        config.model.init = InitKind::Zeros;
        config.data.globalBatchSize = 4;
        config.data.shuffle = false;
        config.optimizer.learningRate = 0.1;
        config.strategy.type = StrategyKind::Mirrored;
        config.strategy.devices = {{DeviceName::Kind::Cpu, 0}, {DeviceName::Kind::Cpu, 1}};
        MirroredTrainer trainer(config, data);
        trainer.replicaModel(0).store().value(0)[0] = 1.0f;
        trainer.broadcastParameters();
        const StepReport& report = trainer.step();
        QCOMPARE(report.replicas[0].gradNormBefore, std::hypot(0.75, 0.5));  // (1+2)/4 for w, 2/4 for b
        QCOMPARE(trainer.replicaModel(0).store().value(0)[0], 0.75f);
        QCOMPARE(trainer.replicaModel(1).store().value(0)[0], 0.75f);
        QCOMPARE(trainer.replicaModel(1).store().value(1)[0], -0.1f);
    }

    void sameSeedIsBitIdentical() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        auto run = [&] {
            MirroredTrainer trainer(smallConfig(3, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 2), data);
            for (int step = 0; step < 30; ++step) trainer.step();
            const auto values = trainer.replicaModel(0).store().values();
            return std::vector<float>(values.begin(), values.end());
        };
        QVERIFY(run() == run());
    }

    void telemetryOfAStep() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(4, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        const StepReport& report = trainer.step();
        QCOMPARE(report.step, std::int64_t{1});
        QCOMPARE(int(report.replicas.size()), 4);
        for (const auto& replica : report.replicas) {
            QCOMPARE(replica.examples, std::int64_t{6});
            QVERIFY(replica.startNs <= replica.computeEndNs && replica.computeEndNs <= replica.commEndNs &&
                    replica.commEndNs <= replica.updateEndNs && replica.updateEndNs <= report.endNs);
            QVERIFY(replica.gradNormBefore > 0);
            QCOMPARE(replica.gradNormAfter, report.replicas[0].gradNormAfter);
            // Ring: each rank sends 2 (N - 1) chunks of about size / N, and its step figures (loss
            // sum, correct, examples: 12 bytes) to each of its 3 peers along with the last pack.
            const std::int64_t size = trainer.replicaModel(0).store().totalSize();
            QVERIFY(std::abs(replica.bytesSent - 3 * 12 - 2 * 3 * size * 4 / 4) <= 2 * 3 * 4);
        }
    }

    void aReplicaRecordsItsStepAsSpans() {
        // Accumulation over 3 micro-batches and 2 packs: 3 forwards and backwards, 2 all-reduces
        // whose bytes are what the replica sent, one update; the step's timestamps are the spans'.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 3);
        config.strategy.numPacks = 2;
        MirroredTrainer trainer(config, data);
        for (int step = 0; step < 3; ++step) {
            const StepReport& report = trainer.step();
            for (const ReplicaStepStats& replica : report.replicas) {
                int forwards = 0, backwards = 0, packs = 0, updates = 0;
                std::int64_t bytes = 0, previousEnd = replica.startNs;
                for (const Span& span : replica.spans) {
                    QVERIFY(span.beginNs >= previousEnd && span.endNs >= span.beginNs);  // in order, no overlap
                    previousEnd = span.endNs;
                    switch (span.kind) {
                        case SpanKind::Forward:
                            QCOMPARE(int(span.microBatch), forwards++);
                            break;
                        case SpanKind::Backward:
                            QCOMPARE(int(span.microBatch), backwards++);
                            break;
                        case SpanKind::AllReduce:
                            QCOMPARE(int(span.pack), packs++);
                            bytes += span.bytes;
                            break;
                        case SpanKind::Optimizer:
                            ++updates;
                            break;
                        case SpanKind::Broadcast:
                            QFAIL("no broadcast under mirrored");
                            break;
                        case SpanKind::Pull:
                        case SpanKind::Delay:
                        case SpanKind::Push:
                            QFAIL("no parameter-server spans under mirrored");
                            break;
                        case SpanKind::Network:
                            QFAIL("no network hop in one process");
                            break;
                        case SpanKind::BackwardInput:
                        case SpanKind::BackwardWeight:
                            QFAIL("no split backward outside zero-bubble pipelines");
                            break;
                    }
                }
                QCOMPARE(forwards, 3);
                QCOMPARE(backwards, 3);
                QCOMPARE(packs, 2);
                QCOMPARE(updates, 1);
                QCOMPARE(bytes, replica.bytesSent);
                const StepTimes times = stepTimes(replica.startNs, replica.spans, report.endNs);
                QCOMPARE(times.computeEndNs, replica.computeEndNs);
                QCOMPARE(times.commEndNs, replica.commEndNs);
                QCOMPARE(times.updateEndNs, replica.updateEndNs);
                QCOMPARE(times.commWaitNs, replica.commWaitNs);
            }
        }
    }

    void eachReplicaCountsOnItsOwnDevice() {
        // Replica r's copy (parameters, gradients, optimizer slots, step buffers) is allocated for
        // device r, and freed from it with the trainer. Replicas 1 and 2 hold the same buffers.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const MemoryStats before1 = deviceMemory(1), before2 = deviceMemory(2), before3 = deviceMemory(3);
        std::int64_t held1 = 0, held2 = 0;
        {
            MirroredTrainer trainer(smallConfig(3, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1), data);
            for (int step = 0; step < 5; ++step) trainer.step();
            held1 = deviceMemory(1).liveBytes - before1.liveBytes;
            held2 = deviceMemory(2).liveBytes - before2.liveBytes;
            // At least the values, gradients and two Adam slots of its copy.
            const std::int64_t parameters = trainer.replicaModel(1).store().totalSize();
            QVERIFY2(held1 >= 4 * parameters * std::int64_t(sizeof(float)), qPrintable(QString::number(held1)));
            QVERIFY(deviceMemory(1).peakBytes >= deviceMemory(1).liveBytes);
            QCOMPARE(deviceMemory(3).liveBytes, before3.liveBytes);  // no replica 3
        }
        QCOMPARE(held1, held2);
        QCOMPARE(deviceMemory(1).liveBytes, before1.liveBytes);
        QCOMPARE(deviceMemory(2).liveBytes, before2.liveBytes);
    }
};

QTEST_APPLESS_MAIN(TestMirrored)
#include "test_mirrored.moc"
