// Weights and checkpoints: resume reproduces an uninterrupted run bit for bit; a bad file
// changes nothing and says what is wrong.
#include <QtTest>
#include <limits>
#include <cstring>

#include <fstream>

#include "distlab/formats/checkpoint.hpp"
#include "distlab/formats/safetensors.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestCheckpoint : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char* name) { return (m_dir.path() + "/" + name).toStdString(); }

private slots:
    void resumeEqualsUninterrupted_data() {
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<double>("momentum");
        QTest::newRow("sgd") << int(OptimizerKind::Sgd) << 0.0;
        QTest::newRow("momentum") << int(OptimizerKind::Sgd) << 0.9;
        QTest::newRow("adam") << int(OptimizerKind::Adam) << 0.0;
    }

    void resumeEqualsUninterrupted() {
        QFETCH(int, optimizer);
        QFETCH(double, momentum);
        // 240 samples, batch 24: 10 steps an epoch, so 37 steps cross epochs and reshuffles.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind(optimizer), momentum, 1);
        MirroredTrainer uninterrupted(config, data);
        for (int i = 0; i < 37; ++i) uninterrupted.step();

        const std::string checkpoint = path("run.ckpt.safetensors");
        {
            MirroredTrainer first(config, data);
            for (int i = 0; i < 23; ++i) first.step();
            QVERIFY(saveCheckpoint(first, checkpoint).ok());
        }
        MirroredTrainer resumed(config, data);
        const auto status = resumeCheckpoint(resumed, checkpoint);
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
        QCOMPARE(resumed.stepsDone(), std::int64_t{23});
        for (int i = 0; i < 14; ++i) resumed.step();
        QVERIFY(valuesOf(resumed) == valuesOf(uninterrupted));
        QVERIFY(valuesOf(resumed, 1) == valuesOf(uninterrupted, 1));

        // The checkpoint names its parts as docs/interfaces.md §6 says.
        auto file = readSafeTensors(checkpoint);
        QVERIFY(file.ok());
        QVERIFY(file->tensors.count("dense_0/kernel") == 1);
        QCOMPARE(file->metadata.at("step"), std::string("23"));
        QVERIFY(file->metadata.count("config") == 1);
        if (momentum > 0) QVERIFY(file->tensors.count("optimizer/dense_0/kernel/momentum") == 1);
        if (OptimizerKind(optimizer) == OptimizerKind::Adam) QVERIFY(file->tensors.count("optimizer/dense_2/bias/v") == 1);
    }

    void weightsRoundTrip() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const RunConfig config = smallConfig(3, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        MirroredTrainer trained(config, data);
        for (int i = 0; i < 5; ++i) trained.step();
        QVERIFY(saveWeights(trained.replicaModel(0), path("w.safetensors")).ok());
        MirroredTrainer fresh(config, data);
        QVERIFY(valuesOf(fresh) != valuesOf(trained));
        QVERIFY(loadWeights(fresh, path("w.safetensors")).ok());
        for (int r = 0; r < 3; ++r) QVERIFY(valuesOf(fresh, r) == valuesOf(trained));
    }

    void mismatchedWeightsChangeNothing() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig wider = smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        wider.model.layers[1].units = 9;
        MirroredTrainer other(wider, data);
        QVERIFY(saveWeights(other.replicaModel(0), path("wider.safetensors")).ok());
        MirroredTrainer trainer(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        const auto before = valuesOf(trainer);
        const auto status = loadWeights(trainer, path("wider.safetensors"));
        QVERIFY(!status.ok());
        QVERIFY2(status.error().message.find("dense_1/kernel") != std::string::npos, status.error().message.c_str());
        QVERIFY(status.error().message.find("wider.safetensors") != std::string::npos);
        QVERIFY(valuesOf(trainer) == before);
        // A weights file is not a checkpoint.
        const auto resume = resumeCheckpoint(trainer, path("wider.safetensors"));
        QVERIFY(!resume.ok());
        QVERIFY(valuesOf(trainer) == before);
        // A file that is not safetensors at all.
        std::ofstream(path("junk.safetensors")) << "not a safetensors file";
        const auto junk = loadWeights(trainer, path("junk.safetensors"));
        QVERIFY(!junk.ok());
        QVERIFY(valuesOf(trainer) == before);
    }

    // A NaN in the last tensor is found before any weight changes (it was found after the earlier
    // tensors had been copied into replica 0 only).
    void nonFiniteWeightsChangeNothing() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        MirroredTrainer source(config, data);
        QVERIFY(saveWeights(source.replicaModel(0), path("nan.safetensors")).ok());
        auto file = readSafeTensors(path("nan.safetensors"));
        QVERIFY(file.ok());
        SafeTensor& last = file->tensors.rbegin()->second;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(last.bytes.data() + last.bytes.size() - sizeof(float), &nan, sizeof(float));
        QVERIFY(writeSafeTensors(path("nan.safetensors"), *file).ok());
        MirroredTrainer trainer(config, data);
        const auto before = valuesOf(trainer);
        const auto status = loadWeights(trainer, path("nan.safetensors"));
        QVERIFY(!status.ok());
        QVERIFY2(status.error().message.find(file->tensors.rbegin()->first + ": element") != std::string::npos,
                 status.error().message.c_str());
        QVERIFY2(status.error().message.find("is NaN") != std::string::npos, status.error().message.c_str());
        for (int r = 0; r < 2; ++r) QVERIFY(valuesOf(trainer, r) == before);
    }

    void failedSaveKeepsThePreviousFile() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        QVERIFY(saveCheckpoint(trainer, path("keep.safetensors")).ok());
        const auto before = QFile(QString::fromStdString(path("keep.safetensors"))).size();
        // Saving into a folder that does not exist fails and leaves the old file alone.
        QVERIFY(!saveCheckpoint(trainer, path("missing/dir/keep.safetensors")).ok());
        QCOMPARE(QFile(QString::fromStdString(path("keep.safetensors"))).size(), before);
    }
};

QTEST_APPLESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
