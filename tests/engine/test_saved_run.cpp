// Saved runs: a checkpoint with the run's curves and facts. It reads back table for table, resumes
// into an uninterrupted run's steps bit for bit, loads as weights, and a bad one says what is wrong.
#include <QtTest>

#include <cmath>
#include <limits>

#include "distlab/formats/checkpoint.hpp"
#include "distlab/formats/safetensors.hpp"
#include "distlab/formats/saved_run.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {

RunRecord sampleRecord() {
    RunRecord record;
    record.tables["train_loss"] = {{"step", "wall_seconds", "low", "high", "mean", "samples"},
                                   {1, 0.01, 2.5, 2.5, 2.5, 1, 2, 0.02, 2.1, 2.3, 2.2, 2}};
    record.tables["metrics"] = {{"step", "loss", "test_loss"}, {1, 2.5, std::numeric_limits<double>::quiet_NaN()}};
    record.facts["label"] = "ring, 2 replicas";
    record.facts["samples_per_second"] = "1234.5";
    return record;
}
}  // namespace

class TestSavedRun : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char* name) { return (m_dir.path() + "/" + name).toStdString(); }

private slots:
    void readsBackWhatWasSaved() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Adam, 0.0, 1), data);
        for (int i = 0; i < 7; ++i) trainer.step();
        const RunRecord record = sampleRecord();
        const auto saved = saveRun(trainer, record, path("a.distlab-run"));
        QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().message.c_str());
        auto run = readSavedRun(path("a.distlab-run"));
        QVERIFY2(run.ok(), run.ok() ? "" : run.error().message.c_str());
        QCOMPARE(run->step, std::int64_t{7});
        QCOMPARE(run->record.facts, record.facts);
        QCOMPARE(run->record.tables.size(), std::size_t{2});
        QVERIFY(run->record.tables.at("train_loss") == record.tables.at("train_loss"));
        const RecordTable& metrics = run->record.tables.at("metrics");
        QCOMPARE(metrics.rows(), std::size_t{1});
        QVERIFY(std::isnan(metrics.at(0, 2)));  // unknown stays unknown
        QVERIFY(run->configJson.find("\"strategy\"") != std::string::npos);
    }

    void resumesAndLoadsAsWeights() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        const RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1);
        MirroredTrainer uninterrupted(config, data);
        for (int i = 0; i < 30; ++i) uninterrupted.step();
        std::vector<float> at12;
        {
            MirroredTrainer first(config, data);
            for (int i = 0; i < 12; ++i) first.step();
            at12 = valuesOf(first);
            QVERIFY(saveRun(first, sampleRecord(), path("b.distlab-run")).ok());
        }
        // As a checkpoint: the curves are not the model's, and the steps go on as if never stopped.
        MirroredTrainer resumed(config, data);
        const auto status = resumeCheckpoint(resumed, path("b.distlab-run"));
        QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
        for (int i = 0; i < 18; ++i) resumed.step();
        QVERIFY(valuesOf(resumed) == valuesOf(uninterrupted));
        // As weights.
        MirroredTrainer fresh(config, data);
        const auto loaded = loadWeights(fresh, path("b.distlab-run"));
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
        QVERIFY(valuesOf(fresh, 1) == at12);
    }

    void badRecordsAreRefusedBeforeWriting() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        RunRecord ragged;
        ragged.tables["loss"] = {{"step", "value"}, {1, 2, 3}};
        auto status = saveRun(trainer, ragged, path("c.distlab-run"));
        QVERIFY(!status.ok());
        QVERIFY2(status.error().message.find("table loss: 3 values do not fill rows of 2 columns") != std::string::npos,
                 status.error().message.c_str());
        RunRecord badName;
        badName.tables["train loss"] = {{"step"}, {1}};
        QVERIFY(!saveRun(trainer, badName, path("c.distlab-run")).ok());
        QVERIFY(!QFile::exists(QString::fromStdString(path("c.distlab-run"))));
    }

    void filesThatAreNotSavedRunsSayWhat() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1), data);
        QVERIFY(saveCheckpoint(trainer, path("plain.ckpt")).ok());
        auto plain = readSavedRun(path("plain.ckpt"));
        QVERIFY(!plain.ok());
        QVERIFY2(plain.error().message.find("plain.ckpt: __metadata__.saved_run: missing") != std::string::npos,
                 plain.error().message.c_str());

        // Column names that do not match the table's width.
        QVERIFY(saveRun(trainer, sampleRecord(), path("d.distlab-run")).ok());
        auto file = readSafeTensors(path("d.distlab-run"));
        QVERIFY(file.ok());
        file->metadata["history/train_loss/columns"] = "step,value";
        QVERIFY(writeSafeTensors(path("d.distlab-run"), *file).ok());
        auto bad = readSavedRun(path("d.distlab-run"));
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("d.distlab-run: history/train_loss: 2 columns named, the tensor has 6") != std::string::npos,
                 bad.error().message.c_str());

        // A table stored as F32 is not one this version wrote.
        file->metadata["history/train_loss/columns"] = "step,wall_seconds,low,high,mean,samples";
        file->tensors["history/train_loss"] = makeF32Tensor({1, 6}, std::vector<float>(6, 1.0f));
        QVERIFY(writeSafeTensors(path("d.distlab-run"), *file).ok());
        bad = readSavedRun(path("d.distlab-run"));
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("2-D F64") != std::string::npos, bad.error().message.c_str());
    }
};

QTEST_APPLESS_MAIN(TestSavedRun)
#include "test_saved_run.moc"
