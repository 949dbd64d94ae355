// Parameter servers in processes, end to end: a chief, workers and ps tasks as distlab-worker
// processes end a synchronous run with the bytes the same config ends with on threads of one
// process; an asynchronous run trains, a slow worker (worker_speed) pushes fewer gradients, and the
// run goes on when a worker is killed or silent past the timeout; a lost server stops the run,
// naming it, and the chief's backup resumes it to the uninterrupted run's weights.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <csignal>

#include "ps_cluster_runner.hpp"
#include "distlab/formats/safetensors.hpp"

namespace {

/// A parameter-server run of `steps`, `mode`, with `workers` workers of `replicas` replicas each
/// and `servers` servers, sharded by `partitioner` (a JSON object, or "" for none).
QString config(const QString& mode, const QString& optimizer, int workers, int replicas, int servers, const QString& partitioner,
               int steps) {
    const QString sharding = partitioner.isEmpty() ? QString() : ", \"partitioner\": " + partitioner;
    return QStringLiteral(R"({
  "name": "ps-cluster", "seed": 7,
  "model": {"layers": [{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "dense", "units": 2}]},
  "data": {"source": "synthetic", "kind": "spiral", "samples": 800, "noise": 0.1, "global_batch_size": 32},
  "optimizer": %1,
  "strategy": {"type": "parameter_server", "mode": "%2", "workers": %3, "replicas_per_worker": %4, "parameter_servers": %5,
               "timeout_seconds": 5%6},
  "steps": %7
})")
        .arg(optimizer, mode)
        .arg(workers)
        .arg(replicas)
        .arg(servers)
        .arg(sharding)
        .arg(steps);
}

const QString kAdam = QStringLiteral(R"({"type": "adam", "learning_rate": 0.01})");
const QString kMomentum = QStringLiteral(R"({"type": "sgd", "learning_rate": 0.05, "momentum": 0.9})");

QJsonObject lastJsonLine(const QString& text) {
    const QStringList lines = text.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

bool sameBytes(const QString& a, const QString& b) {
    QFile first(a), second(b);
    return first.open(QIODevice::ReadOnly) && second.open(QIODevice::ReadOnly) && first.readAll() == second.readAll();
}

/// The loss of each line of a --metrics file.
QList<double> losses(const QString& metrics) {
    QFile file(metrics);
    QList<double> values;
    if (!file.open(QIODevice::ReadOnly)) return values;
    for (const QByteArray& line : file.readAll().split('\n'))
        if (!line.trimmed().isEmpty()) values << QJsonDocument::fromJson(line).object()["loss"].toDouble();
    return values;
}

double mean(const QList<double>& values) {
    double sum = 0.0;
    for (double value : values) sum += value;
    return values.isEmpty() ? 0.0 : sum / values.size();
}

QString describe(const std::map<QString, CliResult>& results) {
    QString text;
    for (const auto& [name, result] : results) text += QString("%1 (exit %2): %3\n").arg(name).arg(result.exitCode).arg(result.err);
    return text;
}

}  // namespace

class TestPsCluster : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString write(const QString& name, const QString& text) const {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0) qFatal("cannot write %s", qPrintable(name));
        return path(name);
    }
    /// distlab-cli train on threads of one process, with the tasks' OpenMP team of one thread.
    CliResult trainInOneProcess(const QStringList& arguments) const {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
        return runProgram(QStringLiteral(DISTLAB_CLI_PATH), QStringList{"train"} << arguments, 120000, environment);
    }

private slots:
    void synchronousInProcessesEqualsOneProcessBitForBit_data() {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<int>("replicas");
        QTest::addColumn<QString>("partitioner");
        QTest::newRow("adam, two shards per variable") << kAdam << 1 << QString(R"({"type": "fixed", "num_shards": 2})");
        QTest::newRow("momentum, two replicas per worker") << kMomentum << 2 << QString();
    }
    void synchronousInProcessesEqualsOneProcessBitForBit() {
        QFETCH(QString, optimizer);
        QFETCH(int, replicas);
        QFETCH(QString, partitioner);
        const QString tag = QString(QTest::currentDataTag()).left(4);
        // The same file both ways: the cluster comes from TF_CONFIG, as TensorFlow reads it.
        const QString run = write(tag + "-sync.json", config("sync", optimizer, 2, replicas, 2, partitioner, 40));
        const PsCluster cluster = PsCluster::onLoopback(2, 2);
        auto tasks = startPsCluster(cluster, {run, "--quiet"}, {{"chief:0", {"--save-weights", path(tag + "-processes.safetensors")}}});
        const auto results = finishPsCluster(tasks);
        for (const auto& [name, result] : results) QVERIFY2(result.finished && result.exitCode == 0, qPrintable(describe(results)));
        const QJsonObject chief = lastJsonLine(results.at("chief:0").out);
        QCOMPARE(chief["steps"].toInt(), 40);
        QCOMPARE(chief["task"].toString(), QString("chief:0"));
        QCOMPARE(chief["coordinator"].toBool(), true);
        QCOMPARE(chief["workers"].toInt(), 2);
        // Every synchronous update averaged one gradient of each worker, applied on each server.
        for (const char* worker : {"worker:0", "worker:1"}) QCOMPARE(lastJsonLine(results.at(worker).out)["gradients"].toInt(), 40);
        int elements = 0;
        for (const char* server : {"ps:0", "ps:1"}) {
            const QJsonObject summary = lastJsonLine(results.at(server).out);
            QCOMPARE(summary["updates"].toInt(), 40);
            QVERIFY(summary["elements"].toInt() > 0);  // the variables are split over both servers
            elements += summary["elements"].toInt();
        }
        QCOMPARE(elements, 2 * 16 + 16 + 16 * 2 + 2);  // every parameter on exactly one server
        QVERIFY(trainInOneProcess({run, "--quiet", "--save-weights", path(tag + "-threads.safetensors")}).exitCode == 0);
        QVERIFY2(sameBytes(path(tag + "-processes.safetensors"), path(tag + "-threads.safetensors")),
                 "the run in processes ended with other weights than on threads");
    }

    void anAsynchronousRunTrains() {
        // Two rings of points ("circle"), which a small model learns within 150 updates: on threads the
        // same config falls from a mean loss of 0.63 over the first 20 updates to 0.08 over the last 20.
        const QString run = write("async.json", config("async", R"({"type": "adam", "learning_rate": 0.03})", 2, 1, 1, {}, 150)
                                                    .replace(R"("kind": "spiral")", R"("kind": "circle")"));
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 1), {run, "--quiet"}, {{"chief:0", {"--metrics", path("async.jsonl")}}});
        const auto results = finishPsCluster(tasks);
        for (const auto& [name, result] : results) QVERIFY2(result.exitCode == 0, qPrintable(describe(results)));
        QCOMPARE(lastJsonLine(results.at("chief:0").out)["steps"].toInt(), 150);
        const QList<double> loss = losses(path("async.jsonl"));
        QCOMPARE(loss.size(), 150);
        // Asynchronous updates interleave differently each run, so not those numbers: the loss falls.
        const double first = mean(loss.mid(0, 20)), last = mean(loss.mid(130, 20));
        QVERIFY2(last < 0.5 * first, qPrintable(QString("first %1, last %2").arg(first).arg(last)));
        // Asynchronous: the workers' gradients each made updates of their own.
        const int gradients =
            lastJsonLine(results.at("worker:0").out)["gradients"].toInt() + lastJsonLine(results.at("worker:1").out)["gradients"].toInt();
        QVERIFY2(gradients >= 150 && gradients <= 152, qPrintable(QString::number(gradients)));  // plus each one's last, not applied
    }

    void aSlowWorkerPushesFewerGradients() {
        // worker_speed in processes, as on threads: worker 1 at 0.2 computes each gradient five
        // times as long. A 512-unit hidden layer on batches of 256 makes the gradient's compute
        // (milliseconds) outweigh the messages around it, so in an asynchronous run worker 0
        // pushes at least twice as many gradients (five times as many where compute were all).
        const QString run =
            write("straggler.json", config("async", kAdam, 2, 1, 1, {}, 120)
                                        .replace(R"({"type": "dense", "units": 16, "activation": "tanh"})",
                                                 R"({"type": "dense", "units": 512, "activation": "relu"},
                                                                    {"type": "dense", "units": 512, "activation": "relu"})")
                                        .replace(R"("global_batch_size": 32)", R"("global_batch_size": 256)")
                                        .replace(R"("timeout_seconds": 5)", R"("timeout_seconds": 5, "worker_speed": [1.0, 0.2])"));
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 1), {run, "--quiet"});
        const auto results = finishPsCluster(tasks);
        for (const auto& [name, result] : results) QVERIFY2(result.exitCode == 0, qPrintable(describe(results)));
        const int fast = lastJsonLine(results.at("worker:0").out)["gradients"].toInt();
        const int slow = lastJsonLine(results.at("worker:1").out)["gradients"].toInt();
        QVERIFY2(slow > 0 && fast >= 2 * slow,
                 qPrintable(QString("worker 0 pushed %1 gradients, worker 1 (speed 0.2) %2").arg(fast).arg(slow)));
    }

    void aKilledWorkerDoesNotStopAnAsynchronousRun() {
        const QString run = write("kill-worker.json", config("async", kAdam, 2, 1, 1, {}, 300));
        const QString backup = path("kill-worker.ckpt");
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 1), {run, "--quiet"},
                                    {{"chief:0", {"--checkpoint", backup, "--checkpoint-every", "10"}}});
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(backup) && clock.elapsed() < 60000) QTest::qWait(20);
        QVERIFY2(QFile::exists(backup), "the chief wrote no backup");
        QVERIFY2(tasks.at("worker:1")->signal(SIGKILL), "worker 1 ended before it could be killed");
        const auto results = finishPsCluster(tasks);
        const CliResult& chief = results.at("chief:0");
        QVERIFY2(chief.exitCode == 0, qPrintable(describe(results)));
        const QJsonObject summary = lastJsonLine(chief.out);
        QCOMPARE(summary["steps"].toInt(), 300);  // worker 0 did the rest, the lost one's unfinished step too
        QCOMPARE(summary["lost_tasks"].toArray(), QJsonArray{"worker:1"});
        QVERIFY2(results.at("worker:0").exitCode == 0 && results.at("ps:0").exitCode == 0, qPrintable(describe(results)));
        QCOMPARE(lastJsonLine(results.at("ps:0").out)["updates"].toInt(), 300);
    }

    void aStalledWorkerThatWakesBeforeTheTimeoutLetsTheRunGoOn() {
        // Stopped for 1.5 s with a 3 s timeout: the other worker goes on meanwhile (the chief talks
        // to each worker on that worker's own link), and the stalled one joins in again.
        const QString run = write(
            "stall.json", QString(config("async", kAdam, 2, 1, 2, {}, 300)).replace(R"("timeout_seconds": 5)", R"("timeout_seconds": 3)"));
        const QString backup = path("stall.ckpt");
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 2), {run, "--quiet"},
                                    {{"chief:0", {"--checkpoint", backup, "--checkpoint-every", "10"}}});
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(backup) && clock.elapsed() < 60000) QTest::qWait(20);
        QVERIFY2(tasks.at("worker:1")->signal(SIGSTOP), "worker 1 ended before it could be stopped");
        QTest::qWait(1500);
        QVERIFY(tasks.at("worker:1")->signal(SIGCONT));
        const auto results = finishPsCluster(tasks);
        for (const auto& [name, result] : results) QVERIFY2(result.exitCode == 0, qPrintable(describe(results)));
        const QJsonObject chief = lastJsonLine(results.at("chief:0").out);
        QCOMPARE(chief["steps"].toInt(), 300);
        QVERIFY2(!chief.contains("lost_tasks"), qPrintable(results.at("chief:0").out));
        QVERIFY(lastJsonLine(results.at("worker:1").out)["gradients"].toInt() > 0);
    }

    void aWorkerSilentPastTheTimeoutIsLostAndTheRunGoesOn() {
        // Stopped for longer than the 2 s timeout: the chief and the server give up on it alone
        // (each link between two tasks is a Gloo context of its own: engine/src/comm/gloo_links.hpp),
        // worker 0 goes on, and the run ends while worker 1 still sleeps. Woken, worker 1 finds its
        // links closed and ends with exit code 3.
        const QString run = write(
            "silent.json", QString(config("async", kAdam, 2, 1, 1, {}, 300)).replace(R"("timeout_seconds": 5)", R"("timeout_seconds": 2)"));
        const QString backup = path("silent.ckpt");
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 1), {run, "--quiet"},
                                    {{"chief:0", {"--checkpoint", backup, "--checkpoint-every", "10"}}});
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(backup) && clock.elapsed() < 60000) QTest::qWait(20);
        QVERIFY2(tasks.at("worker:1")->signal(SIGSTOP), "worker 1 ended before it could be stopped");
        std::map<QString, CliResult> results;
        for (const QString name : {"chief:0", "ps:0", "worker:0"}) results[name] = tasks.at(name)->finish(60000);
        QVERIFY(tasks.at("worker:1")->signal(SIGCONT));
        results["worker:1"] = tasks.at("worker:1")->finish(60000);
        for (const QString name : {"chief:0", "ps:0", "worker:0"}) QVERIFY2(results.at(name).exitCode == 0, qPrintable(describe(results)));
        QCOMPARE(lastJsonLine(results.at("chief:0").out)["steps"].toInt(), 300);
        QCOMPARE(lastJsonLine(results.at("ps:0").out)["updates"].toInt(), 300);
        QVERIFY2(results.at("worker:1").exitCode == 3, qPrintable(describe(results)));
        QVERIFY2(results.at("worker:1").err.contains("Gloo"), qPrintable(results.at("worker:1").err));
    }

    void aLostServerStopsTheRunAndTheBackupResumesIt() {
        const QString run = write("kill-ps.json", config("sync", kMomentum, 2, 1, 2, {}, 100));
        auto whole =
            startPsCluster(PsCluster::onLoopback(2, 2), {run, "--quiet"}, {{"chief:0", {"--save-weights", path("whole.safetensors")}}});
        const auto reference = finishPsCluster(whole);
        QVERIFY2(reference.at("chief:0").exitCode == 0, qPrintable(describe(reference)));
        // The same run with a backup every 10 updates; ps 0 is killed once the first backup exists.
        const QString backup = path("kill-ps.ckpt");
        auto tasks = startPsCluster(PsCluster::onLoopback(2, 2), {run, "--quiet"},
                                    {{"chief:0", {"--checkpoint", backup, "--checkpoint-every", "10"}}});
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(backup) && clock.elapsed() < 60000) QTest::qWait(20);
        QVERIFY2(QFile::exists(backup), "the chief wrote no backup");
        QVERIFY2(tasks.at("ps:0")->signal(SIGKILL), "ps 0 ended before it could be killed");
        clock.restart();
        const CliResult chief = tasks.at("chief:0")->finish(30000);
        QVERIFY2(chief.finished && clock.elapsed() < 5000 + 3000, qPrintable(QString::number(clock.elapsed())));  // within timeout_seconds
        QCOMPARE(chief.exitCode, 3);
        QVERIFY2(chief.err.contains("lost task ps:0"), qPrintable(chief.err));
        const auto rest = finishPsCluster(tasks, 30000);
        for (const char* task : {"worker:0", "worker:1", "ps:1"}) {
            QVERIFY2(rest.at(task).exitCode == 3, qPrintable(describe(rest)));
            QVERIFY2(rest.at(task).err.contains("the chief stopped the run"), qPrintable(describe(rest)));
        }
        // The backup is whole, and the cluster started again with --resume on the chief ends
        // exactly where the uninterrupted run did.
        QVERIFY(distlab::readSafeTensors(backup.toStdString()));
        auto resumed = startPsCluster(PsCluster::onLoopback(2, 2), {run, "--quiet"},
                                      {{"chief:0", {"--resume", backup, "--save-weights", path("resumed.safetensors")}}});
        const auto results = finishPsCluster(resumed);
        for (const auto& [name, result] : results) QVERIFY2(result.exitCode == 0, qPrintable(describe(results)));
        QCOMPARE(lastJsonLine(results.at("chief:0").out)["steps"].toInt(), 100);
        QVERIFY2(sameBytes(path("resumed.safetensors"), path("whole.safetensors")), "the resumed run's weights differ");
    }

    void refusalsNameWhatDiffers() {
        // What is not supported is refused before anything starts, naming the config field.
        const QString noChief = write("no-chief.json", config("sync", kAdam, 1, 1, 1, {}, 5));
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("TF_CONFIG",
                           R"({"cluster": {"worker": ["localhost:1"], "ps": ["localhost:2"]}, "task": {"type": "worker", "index": 0}})");
        const CliResult refused = runProgram(DISTLAB_WORKER_PATH, {noChief, "--quiet"}, 30000, environment);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("cluster.chief"), qPrintable(refused.err));
        // A ps task with the wrong token is refused by the chief as a multi-worker task is.
        const QString run = write("token.json", config("sync", kAdam, 1, 1, 1, {}, 5));
        const PsCluster cluster = PsCluster::onLoopback(1, 1);
        TaskProcess chief(DISTLAB_WORKER_PATH, {run, "--quiet"}, cluster.environment("chief:0"));
        const CliResult wrong = runProgram(DISTLAB_WORKER_PATH, {run, "--quiet"}, 30000, cluster.environment("ps:0", "wrong"));
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(wrong.err.contains("wrong token"), qPrintable(wrong.err));
        // The refusal changed nothing: the right tasks join and the run completes.
        TaskProcess worker(DISTLAB_WORKER_PATH, {run, "--quiet"}, cluster.environment("worker:0"));
        const CliResult server = runProgram(DISTLAB_WORKER_PATH, {run, "--quiet"}, 60000, cluster.environment("ps:0"));
        QVERIFY2(server.exitCode == 0, qPrintable(server.err));
        QVERIFY2(chief.finish(60000).exitCode == 0 && worker.finish(60000).exitCode == 0, "the run did not complete after the refusal");
    }
};

QTEST_GUILESS_MAIN(TestPsCluster)
#include "test_ps_cluster.moc"
