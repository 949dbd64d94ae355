// distlab-cli export-pytorch (docs/interfaces.md §3.9): the exported script, run with Debian's
// PyTorch, ends where `distlab-cli train` ends after 40 updates (relative error <= 1e-4 on every
// parameter), for one device, mirrored-2 and synchronous parameter servers of 2 workers (DDP over
// gloo), SGD with momentum and Adam. Skipped
// when /usr/bin/python3 has no torch.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "cli_runner.hpp"
#include "distlab/formats/safetensors.hpp"
#include "weight_files.hpp"

namespace {

const QString kPython = QStringLiteral("/usr/bin/python3");
constexpr int kSteps = 40;
constexpr double kTolerance = 1e-4;

// Small models on two-class spirals (100 training samples, 6 batches an epoch, so 40 updates
// reshuffle six times) with a residual block of two branches: every piece the script rebuilds.
QByteArray config(const QByteArray& strategy, const QByteArray& optimizer, const QByteArray& loss = "softmax_cross_entropy",
                  const QByteArray& data = R"({"kind": "spiral", "samples": 200, "noise": 0.1, "global_batch_size": 16})") {
    return R"({"name": "export", "seed": 7,
  "model": {"loss": ")" +
           loss + R"(", "layers": [
    {"units": 12, "activation": "tanh"},
    {"type": "residual", "branches": 2, "layers": [{"units": 8, "activation": "relu"}, {"units": 12, "activation": "gelu"}]},
    {"units": 8, "activation": "sigmoid"},
    {"units": )" +
           QByteArray(loss == "mse" ? "1" : "2") + R"(}]},
  "data": )" +
           data + R"(,
  "optimizer": )" +
           optimizer + R"(,
  "strategy": )" +
           strategy + R"(,
  "steps": 1000})";
}

bool writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

bool pythonHasTorch() {
    if (!QFile::exists(kPython)) return false;
    return runProgram(kPython, {"-c", "import torch, numpy"}, 60000).exitCode == 0;
}

}  // namespace

class TestCliExportPyTorch : public QObject {
    Q_OBJECT

private slots:
    void matchesDistLab_data() {
        QTest::addColumn<QByteArray>("config");
        const QByteArray momentum = R"({"type": "sgd", "learning_rate": 0.1, "momentum": 0.9})";
        const QByteArray adam = R"({"type": "adam", "learning_rate": 0.01})";
        const QByteArray oneDevice = R"({"type": "one_device"})";
        const QByteArray mirrored = R"({"type": "mirrored", "replicas": 2})";
        const QByteArray accumulating = R"({"type": "mirrored", "replicas": 2, "gradient_accumulation_steps": 2})";
        QTest::newRow("one_device sgd momentum") << config(oneDevice, momentum);
        QTest::newRow("one_device adam") << config(oneDevice, adam);
        QTest::newRow("mirrored-2 sgd momentum") << config(mirrored, momentum);
        QTest::newRow("mirrored-2 adam, accumulation 2") << config(accumulating, adam);
        const QByteArray syncServers = R"({"type": "parameter_server", "workers": 2, "mode": "sync"})";
        QTest::newRow("sync parameter servers-2 sgd momentum") << config(syncServers, momentum);
        QTest::newRow("sync parameter servers-2 adam, a straggler")
            << config(R"({"type": "parameter_server", "workers": 2, "mode": "sync", "worker_speed": [1.0, 0.5]})", adam);
        // Megatron's split as gloo processes, alone and as a dp x tp mesh, on dense layers (tensor
        // parallelism splits no residual block): 12 tanh and 12 relu, 8 sigmoid and 8 gelu as column
        // and row pairs, the output, an odd last layer, whole on every rank.
        const auto dense = [](QByteArray text) {
            return text
                .replace(
                    R"({"type": "residual", "branches": 2, "layers": [{"units": 8, "activation": "relu"}, {"units": 12, "activation": "gelu"}]},)",
                    R"({"units": 12, "activation": "relu"},)")
                .replace(R"({"units": 8, "activation": "sigmoid"},)",
                         R"({"units": 8, "activation": "sigmoid"}, {"units": 8, "activation": "gelu"},)");
        };
        QTest::newRow("tensor_parallel-2 adam") << dense(config(R"({"type": "tensor_parallel", "tensor_parallel": 2})", adam));
        QTest::newRow("tensor_parallel-2 x data_parallel-2 sgd momentum")
            << dense(config(R"({"type": "tensor_parallel", "tensor_parallel": 2, "data_parallel": 2})", momentum));
        QTest::newRow("one_device nesterov, mse")
            << config(oneDevice, R"({"type": "sgd", "learning_rate": 0.05, "momentum": 0.5, "nesterov": true})", "mse",
                      R"({"kind": "regression_plane", "samples": 200, "noise": 0.1, "global_batch_size": 16})");
    }

    void matchesDistLab() {
        if (!pythonHasTorch()) QSKIP("/usr/bin/python3 cannot import torch and numpy (Debian packages python3-torch, python3-numpy)");
        QFETCH(QByteArray, config);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString run = dir.filePath("run.json");
        QVERIFY(writeText(run, config));

        const CliResult exported = runCli({"export-pytorch", run, dir.filePath("run.py"), "--steps", QString::number(kSteps)});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QVERIFY(QFile::exists(dir.filePath("run.init.safetensors")));
        QVERIFY(QFile::exists(dir.filePath("run.data.safetensors")));

        const CliResult script = runProgram(
            kPython, {dir.filePath("run.py"), "--steps", QString::number(kSteps), "--save-weights", dir.filePath("pytorch.safetensors")});
        QVERIFY2(script.exitCode == 0, qPrintable(script.out + script.err));
        const CliResult trained =
            runCli({"train", run, "--steps", QString::number(kSteps), "--save-weights", dir.filePath("distlab.safetensors"), "--quiet"});
        QVERIFY2(trained.exitCode == 0, qPrintable(trained.err));

        const double error = weightRelativeError(dir.filePath("pytorch.safetensors"), dir.filePath("distlab.safetensors"));
        qInfo("%s: max relative error over parameters after %d steps: %.3g", QTest::currentDataTag(), kSteps, error);
        QVERIFY2(error <= kTolerance, qPrintable(QString("relative error %1").arg(error)));
    }

    // The exported weights are exactly those the run starts from, whatever the strategy (the
    // export builds one copy on cpu:0; a mirrored run broadcasts replica 0's). Needs no torch.
    void exportsTheRunsInitialWeights() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString run = dir.filePath("run.json");
        QVERIFY(writeText(run, config(R"({"type": "mirrored", "replicas": 2})", R"({"type": "adam"})")));
        const CliResult exported = runCli({"export-pytorch", run, dir.filePath("run.py"), "--steps", "3"});
        QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
        QVERIFY(exported.out.contains(R"("steps":3,"replicas":2)"));
        const CliResult initial = runCli({"train", run, "--steps", "0", "--save-weights", dir.filePath("w.safetensors"), "--quiet"});
        QVERIFY2(initial.exitCode == 0, qPrintable(initial.err));
        QCOMPARE(weightRelativeError(dir.filePath("run.init.safetensors"), dir.filePath("w.safetensors")), 0.0);
    }

    void refusesWhatItCannotExport() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString run = dir.filePath("run.json");
        // Parameter servers whose updates depend on the workers' timing: asynchronous, or dropping gradients.
        const std::pair<QByteArray, QString> timed[] = {
            {R"({"type": "parameter_server", "workers": 2})", "strategy.mode: asynchronous parameter-server runs cannot be exported"},
            {R"({"type": "parameter_server", "workers": 3, "mode": "sync", "gradients_to_aggregate": 2})",
             "strategy.gradients_to_aggregate: a synchronous run that drops the slowest workers' gradients cannot be exported"}};
        for (const auto& [strategy, message] : timed) {
            QVERIFY(writeText(run, config(strategy, R"({"type": "sgd"})")));
            const CliResult result = runCli({"export-pytorch", run, dir.filePath("run.py")});
            QCOMPARE(result.exitCode, 2);
            QVERIFY2(result.err.contains(message), qPrintable(result.err));
            QVERIFY(!QFile::exists(dir.filePath("run.py")));
        }

        // A pipeline's schedule is not something torch.distributed runs on CPUs here: refused, naming the key.
        QVERIFY(writeText(run, config(R"({"type": "pipeline", "stages": 2, "micro_batches": 2})", R"({"type": "sgd"})")));
        const CliResult pipeline = runCli({"export-pytorch", run, dir.filePath("run.py")});
        QCOMPARE(pipeline.exitCode, 2);
        QVERIFY2(pipeline.err.contains("strategy.type: pipeline runs cannot be exported to PyTorch yet"), qPrintable(pipeline.err));
        QVERIFY(!QFile::exists(dir.filePath("run.py")));

        // A config without a step limit (steps 0) has no count of updates to export: it asks for one.
        const QString unlimited = dir.filePath("unlimited.json");
        QVERIFY(writeText(unlimited, config(R"({"type": "one_device"})", R"({"type": "sgd"})").replace("\"steps\": 1000", "\"steps\": 0")));
        const CliResult noCount = runCli({"export-pytorch", unlimited, dir.filePath("unlimited.py")});
        QCOMPARE(noCount.exitCode, 2);
        QVERIFY2(noCount.err.contains("give one with --steps N"), qPrintable(noCount.err));
        QVERIFY(!QFile::exists(dir.filePath("unlimited.py")));
        QCOMPARE(runCli({"export-pytorch", unlimited, dir.filePath("unlimited.py"), "--steps", "5"}).exitCode, 0);

        // An output that is an input is refused before anything is written.
        const QString single = dir.filePath("single.json");
        QVERIFY(writeText(single, config(R"({"type": "one_device"})", R"({"type": "sgd"})")));
        const CliResult over = runCli({"export-pytorch", single, single});
        QCOMPARE(over.exitCode, 2);
        QVERIFY2(over.err.contains("is the same file as CONFIG"), qPrintable(over.err));
    }
};

QTEST_GUILESS_MAIN(TestCliExportPyTorch)
#include "test_cli_export_pytorch.moc"
