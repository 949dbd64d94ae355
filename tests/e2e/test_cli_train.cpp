// distlab-cli train / bench / validate / varlab / devices, end to end.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <csignal>

#include "cli_runner.hpp"

namespace {
const char* kConfig = R"({
  "name": "circle-mirrored",
  "seed": 7,
  "model": {"layers": [{"type": "dense", "units": 8, "activation": "tanh"},
                       {"type": "dense", "units": 2}]},
  "data": {"source": "synthetic", "kind": "circle", "samples": 400, "noise": 0.1, "global_batch_size": 16},
  "optimizer": {"type": "sgd", "learning_rate": 0.1, "momentum": 0.9},
  "strategy": {"type": "mirrored", "devices": ["cpu:0", "cpu:1"], "cross_device_ops": "ring"},
  "steps": 60
})";

QJsonObject lastJsonLine(const QString& text) {
    const QStringList lines = text.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
}  // namespace

class TestCliTrain : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    void write(const QString& name, const QByteArray& contents) {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(contents);
    }

private slots:
    void initTestCase() { write("run.json", kConfig); }

    void aRunWithoutAStepLimitTrainsUntilInterrupted() {
        // steps 0 means no limit (docs/interfaces.md §1): train goes on until Ctrl-C, then writes
        // its files and exits 130 as an interrupted run does, its metrics holding every step done.
        QProcess process;
        process.start(QStringLiteral(DISTLAB_CLI_PATH), {"train", path("run.json"), "--set", "steps=0", "--metrics",
                                                         path("unlimited.jsonl"), "--save-weights", path("unlimited.safetensors")});
        QVERIFY(process.waitForStarted());
        // Its first progress line comes at its first update; it then keeps training.
        QString progress;
        QElapsedTimer waited;
        waited.start();
        while (!progress.contains(QStringLiteral("(no limit)")) && waited.elapsed() < 60000) {
            process.waitForReadyRead(100);
            progress += QString::fromUtf8(process.readAllStandardError());
            QVERIFY2(process.state() == QProcess::Running, qPrintable(progress));
        }
        QVERIFY2(progress.contains(QStringLiteral("(no limit)")), qPrintable(progress));
        QTest::qWait(300);
        QVERIFY(process.state() == QProcess::Running);  // 60 steps would have been over by now
        ::kill(static_cast<pid_t>(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 130);
        const QJsonObject summary = lastJsonLine(QString::fromUtf8(process.readAllStandardOutput()));
        QVERIFY(summary["interrupted"].toBool());
        const int steps = summary["steps"].toInt();
        QVERIFY2(steps > 60, qPrintable(QString::number(steps)));
        const QList<QByteArray> lines = readAll(path("unlimited.jsonl")).trimmed().split('\n');
        QCOMPARE(lines.size(), steps);
        QCOMPARE(QJsonDocument::fromJson(lines.last()).object()["step"].toInt(), steps);
        QVERIFY(QFile::exists(path("unlimited.safetensors")));
    }

    void trainWritesSummaryMetricsAndTrace() {
        const CliResult r = runCli({"train", path("run.json"), "--metrics", path("m.jsonl"), "--trace", path("t.json"), "--save-weights",
                                    path("w.safetensors"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject summary = lastJsonLine(r.out);
        QCOMPARE(summary["steps"].toInt(), 60);
        QVERIFY(summary["final_loss"].isDouble());
        QVERIFY(summary["samples_per_sec"].toDouble() > 0);
        QVERIFY(summary["wall_seconds"].toDouble() > 0);
        QVERIFY(summary["test_accuracy"].toDouble() > 0.5);
        const QList<QByteArray> lines = readAll(path("m.jsonl")).trimmed().split('\n');
        QCOMPARE(lines.size(), 60);
        const QJsonObject first = QJsonDocument::fromJson(lines.first()).object();
        QCOMPARE(first["step"].toInt(), 1);
        QCOMPARE(first["grad_norm_before"].toArray().size(), 2);
        QVERIFY(qAbs(first["learning_rate"].toDouble() - 0.1) < 1e-7);
        QVERIFY(first["bytes_communicated"].toDouble() > 0);
        const QJsonObject trace = QJsonDocument::fromJson(readAll(path("t.json"))).object();
        const QJsonArray events = trace["traceEvents"].toArray();
        // Each replica's spans: a forward and a backward per micro-batch, an all-reduce per pack
        // with the bytes it sent, the optimizer.
        int forward = 0, backward = 0, allReduce = 0, optimizer = 0;
        QSet<int> tracks;
        for (const auto& event : events) {
            const QJsonObject e = event.toObject();
            if (e["ph"].toString() != "X") continue;
            const QString name = e["name"].toString();
            const QJsonObject args = e["args"].toObject();
            if (name == "forward" || name == "backward") {
                QCOMPARE(e["cat"].toString(), QString("compute"));
                QCOMPARE(args["micro_batch"].toInt(-1), 0);
                (name == "forward" ? forward : backward) += 1;
                tracks.insert(e["tid"].toInt());
            } else if (name == "all_reduce") {
                QCOMPARE(e["cat"].toString(), QString("communication"));
                QCOMPARE(args["pack"].toInt(-1), 0);
                QVERIFY(args["bytes"].toDouble() > 0);
                ++allReduce;
            } else if (name == "optimizer") {
                ++optimizer;
            }
        }
        QCOMPARE(forward, 120);
        QCOMPARE(backward, 120);
        QCOMPARE(allReduce, 120);
        QCOMPARE(optimizer, 120);
        QCOMPARE(tracks.size(), 2);
        QVERIFY(QFile::exists(path("w.safetensors")));
    }

    void resumeEqualsUninterrupted() {
        // 60 steps straight vs 25 steps, a checkpoint, then a resumed run to 60.
        QVERIFY(runCli({"train", path("run.json"), "--save-weights", path("full.safetensors"), "--quiet"}).exitCode == 0);
        QVERIFY(runCli({"train", path("run.json"), "--steps", "25", "--checkpoint", path("c.safetensors"), "--quiet"}).exitCode == 0);
        const CliResult resumed = runCli(
            {"train", path("run.json"), "--resume", path("c.safetensors"), "--save-weights", path("resumed.safetensors"), "--quiet"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(lastJsonLine(resumed.out)["steps"].toInt(), 60);
        QCOMPARE(readAll(path("resumed.safetensors")), readAll(path("full.safetensors")));
    }

    void initWeightsAndOverrides() {
        const CliResult r = runCli({"train", path("run.json"), "--init-weights", path("w.safetensors"), "--set",
                                    "optimizer.learning_rate=0.05", "--set", "strategy.replicas=4", "--steps", "8", "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(lastJsonLine(r.out)["replicas"].toInt(), 4);
        QCOMPARE(lastJsonLine(r.out)["steps"].toInt(), 8);
    }

    void progressGoesToStderr() {
        const CliResult r = runCli({"train", path("run.json"), "--steps", "20"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.contains("step 20/20"));
        QCOMPARE(r.out.trimmed().split('\n').size(), 1);  // stdout holds only the summary
    }

    void aPipelineReportsItsBubblesBesideTheFormula() {
        // The example pipeline: 4 stages, 8 micro-batches, 1F1B, on the virtual clock.
        const QString config = QStringLiteral(DISTLAB_EXAMPLES_DIR "/spiral-pipeline-4.json");
        const CliResult r = runCli({"train", config, "--steps", "20", "--trace", path("pipeline.json"), "--quiet"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject summary = lastJsonLine(r.out);
        QCOMPARE(summary["replicas"].toInt(), 4);
        QCOMPARE(summary["clock"].toString(), QStringLiteral("virtual"));
        QVERIFY(qAbs(summary["bubble_fraction_theory"].toDouble() - 3.0 / 11.0) < 1e-12);  // (p − 1)/(m + p − 1)
        const QJsonArray bubbles = summary["bubble_fraction"].toArray();
        QCOMPARE(bubbles.size(), 4);
        for (const QJsonValue& bubble : bubbles) QVERIFY(bubble.toDouble() > 0.0 && bubble.toDouble() < 1.0);
        // Every pass is in the trace with its stage: 8 forwards and 8 backwards a device a step.
        const QJsonArray events = QJsonDocument::fromJson(readAll(path("pipeline.json"))).object()["traceEvents"].toArray();
        int forwards = 0, backwards = 0;
        for (const QJsonValue& value : events) {
            const QJsonObject event = value.toObject();
            if (event["name"] == QStringLiteral("forward")) ++forwards;
            if (event["name"] == QStringLiteral("backward")) {
                ++backwards;
                QCOMPARE(event["args"].toObject()["stage"].toInt(), event["tid"].toInt());  // stage d on device d
            }
        }
        QCOMPARE(forwards, 20 * 4 * 8);
        QCOMPARE(backwards, 20 * 4 * 8);
        const CliResult bench = runCli({"bench", config, "--seconds", "0.3", "--warmup-steps", "2"});
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.err));
        const QJsonObject measured = QJsonDocument::fromJson(bench.out.toUtf8()).object();
        QCOMPARE(measured["bubble_fraction"].toArray().size(), 4);
        QCOMPARE(measured["clock"].toString(), QStringLiteral("virtual"));
    }

    void benchPrintsTheDocumentedFields() {
        const CliResult r = runCli({"bench", path("run.json"), "--seconds", "0.3", "--warmup-steps", "3"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        for (const char* key : {"samples_per_sec", "steps_per_sec", "step_ms_p50", "step_ms_p95", "comm_ms_per_step", "gflops",
                                "matrix_product", "openblas_kernels", "replicas"})
            QVERIFY2(o.contains(key), key);
        QCOMPARE(o["replicas"].toInt(), 2);
        const QString product = o["matrix_product"].toString();
        QVERIFY2(product == "packed-avx512" || product == "packed-avx2" || product == "openblas", qPrintable(product));
        // The variable picks the path for the process it is set in: OpenBLAS asked for, OpenBLAS reported.
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("DISTLAB_MATRIX_PRODUCT", "openblas");
        environment.insert("OPENBLAS_CORETYPE", "Haswell");  // the user's kernel type wins over the engine's
        const CliResult forced = runProgram(QStringLiteral(DISTLAB_CLI_PATH),
                                            {"bench", path("run.json"), "--seconds", "0.1", "--warmup-steps", "1"}, 120000, environment);
        QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
        const QJsonObject forcedOut = QJsonDocument::fromJson(forced.out.toUtf8()).object();
        QCOMPARE(forcedOut["matrix_product"].toString(), QString("openblas"));
        QCOMPARE(forcedOut["openblas_kernels"].toString(), QString("Haswell"));
        QVERIFY(o["step_ms_p95"].toDouble() >= o["step_ms_p50"].toDouble());
    }

    // --fma-probe: a burst after every step of a lone replica, reported beside the throughput;
    // refused for several replicas, whose threads would take the bursts' cores.
    void benchWithFmaProbe() {
        const CliResult several = runCli({"bench", path("run.json"), "--seconds", "0.1", "--fma-probe", "2"});
        QCOMPARE(several.exitCode, 2);
        QVERIFY2(several.err.contains("--fma-probe measures beside one replica's steps; this config runs 2 replicas"),
                 qPrintable(several.err));
        QVERIFY(several.out.isEmpty());
        const CliResult r = runCli({"bench", path("run.json"), "--seconds", "0.3", "--warmup-steps", "3", "--fma-probe", "2", "--set",
                                    "strategy.devices=[\"cpu:0\"]", "--set", "strategy.type=one_device"});
        if (r.exitCode == 1 && r.err.contains("--fma-probe needs a CPU")) QSKIP("no AVX-512 or AVX2 with FMA on this CPU");
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject probe = o["fma_probe"].toObject();
        QCOMPARE(probe["threads"].toInt(), 2);
        QVERIFY(probe["bursts"].toInteger() >= o["steps"].toInteger());
        QVERIFY(probe["gflops"].toDouble() > 0);
        QVERIFY(probe["best_gflops"].toDouble() >= probe["gflops"].toDouble());
        QVERIFY(o["samples_per_sec"].toDouble() > 0);
        const CliResult plain = runCli({"bench", path("run.json"), "--seconds", "0.1", "--warmup-steps", "1"});
        QVERIFY(!QJsonDocument::fromJson(plain.out.toUtf8()).object().contains("fma_probe"));
    }

    void validateAndDevices() {
        const CliResult valid = runCli({"validate", path("run.json")});
        QCOMPARE(valid.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(valid.out.toUtf8()).object();
        QCOMPARE(o["valid"].toBool(), true);
        QCOMPARE(o["parameters"].toInt(), 2 * 8 + 8 + 8 * 2 + 2);
        const CliResult devices = runCli({"devices"});
        QCOMPARE(devices.exitCode, 0);
        QVERIFY(QJsonDocument::fromJson(devices.out.toUtf8()).isObject());
    }

    void varlabWorkedExample() {
        write("lab.json", R"({"strategy": "mirrored", "replicas": 2,
          "variables": [{"name": "v", "synchronization": "on_write", "aggregation": "sum", "initial": 1.0}],
          "ops": [{"context": "replica", "op": "assign_add", "var": "v", "values": [1.0, 2.0]},
                  {"context": "replica", "op": "assign_add", "var": "v", "value": 1.0},
                  {"context": "cross_replica", "op": "read", "var": "v"}]})");
        const CliResult r = runCli({"varlab", path("lab.json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray results = QJsonDocument::fromJson(r.out.toUtf8()).object()["results"].toArray();
        QCOMPARE(results.size(), 3);
        QCOMPARE(results[0].toObject()["replica_values"].toArray(), (QJsonArray{4.0, 4.0}));
        QCOMPARE(results[1].toObject()["ok"].toBool(), false);  // SUM of a non-distributed value
        QCOMPARE(results[2].toObject()["read"].toDouble(), 4.0);
    }

    void parameterServerFaultsAndResume() {
        write(
            "ps.json",
            R"({"name": "circle-ps", "model": {"layers": [{"type": "dense", "units": 8, "activation": "tanh"}, {"type": "dense", "units": 2}]},
          "data": {"source": "synthetic", "kind": "circle", "samples": 400, "noise": 0.1, "global_batch_size": 10},
          "optimizer": {"type": "sgd", "learning_rate": 0.1},
          "strategy": {"type": "parameter_server", "workers": 3, "parameter_servers": 2, "mode": "async"},
          "steps": 600})");
        // A lost worker: training completes its updates on the others.
        const CliResult lostWorker =
            runCli({"train", path("ps.json"), "--fault", "kill-worker:1@100", "--metrics", path("ps.jsonl"), "--quiet"});
        QVERIFY2(lostWorker.exitCode == 0, qPrintable(lostWorker.err));
        QCOMPARE(lastJsonLine(lostWorker.out)["steps"].toInt(), 600);
        const QList<QByteArray> lines = readAll(path("ps.jsonl")).trimmed().split('\n');
        QCOMPARE(lines.size(), 600);
        for (int i = 150; i < 600; ++i) QVERIFY(QJsonDocument::fromJson(lines[i]).object()["worker"].toInt() != 1);
        QVERIFY(QJsonDocument::fromJson(lines[300]).object().contains("staleness"));
        // A lost server: exit 3 with a clear error; resuming from the checkpoint reaches the step count.
        const CliResult lostServer = runCli({"train", path("ps.json"), "--checkpoint", path("ps.ckpt"), "--checkpoint-every", "100",
                                             "--fault", "kill-ps:1@250", "--quiet"});
        QCOMPARE(lostServer.exitCode, 3);
        QVERIFY2(lostServer.err.startsWith("error: parameter server ps:1 was lost"), qPrintable(lostServer.err));
        const CliResult resumed = runCli({"train", path("ps.json"), "--resume", path("ps.ckpt"), "--quiet"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(lastJsonLine(resumed.out)["steps"].toInt(), 600);
        QVERIFY(lastJsonLine(resumed.out)["test_accuracy"].toDouble() > 0.8);
    }

    void aLostDeviceStopsASynchronousRun() {
        // Replica 1's device is lost mid-step while replica 0 waits for it in the all-reduce: the
        // reduction is aborted (no hang), the run stops with exit 3 naming the device, and the
        // checkpoint of step 20 is kept; resuming finishes the run.
        const CliResult lost = runCli({"train", path("run.json"), "--fault", "fail-device:1@30", "--checkpoint", path("m.ckpt"),
                                       "--checkpoint-every", "20", "--metrics", path("lost.jsonl"), "--quiet"});
        QCOMPARE(lost.exitCode, 3);
        QVERIFY2(lost.err.startsWith("error: replica 1 failed: device cpu:1 was lost during step 31 (injected fault)"),
                 qPrintable(lost.err));
        QCOMPARE(lastJsonLine(lost.out)["steps"].toInt(), 30);
        QCOMPARE(readAll(path("lost.jsonl")).trimmed().split('\n').size(), 30);
        const CliResult resumed = runCli({"train", path("run.json"), "--resume", path("m.ckpt"), "--quiet"});
        QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
        QCOMPARE(lastJsonLine(resumed.out)["steps"].toInt(), 60);
        // Refused up front: a replica that does not exist, and fail-device on parameter servers.
        const CliResult noReplica = runCli({"train", path("run.json"), "--fault", "fail-device:2@1"});
        QCOMPARE(noReplica.exitCode, 2);
        QVERIFY2(noReplica.err.contains("--fault fail-device:2: there is no such replica (the run has 2)"), qPrintable(noReplica.err));
    }

    void usageErrors() {
        QCOMPARE(runCli({}).exitCode, 2);
        QCOMPARE(runCli({"frobnicate"}).exitCode, 2);
        QCOMPARE(runCli({"train"}).exitCode, 2);
        QCOMPARE(runCli({"train", path("run.json"), "--steps", "minus-one"}).exitCode, 2);
        const CliResult missing = runCli({"train", path("nope.json")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.startsWith("error:"));
        QVERIFY(missing.err.contains("nope.json"));
    }
};

QTEST_GUILESS_MAIN(TestCliTrain)
#include "test_cli_train.moc"
