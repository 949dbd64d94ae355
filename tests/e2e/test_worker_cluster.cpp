// distlab-worker end to end: a multi-worker run in processes ends where the same run on threads
// and on one device ends; what a refused task, a lost one and a stalled one see; the backup a
// lost run leaves and the resume that finishes it; Redis as the rendezvous.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <QScopeGuard>

#include <csignal>
#include <unistd.h>
#include <algorithm>
#include <cmath>

#include "cluster_runner.hpp"
#include "distlab/formats/safetensors.hpp"
#include "weight_files.hpp"

namespace {

/// A run of `steps` with `optimizer`, under `strategy` (a JSON object's members).
QString config(const QString& strategy, const QString& optimizer, int steps) {
    return QStringLiteral(R"({
  "name": "cluster", "seed": 11,
  "model": {"layers": [{"type": "dense", "units": 16, "activation": "tanh"}, {"type": "dense", "units": 2}]},
  "data": {"source": "synthetic", "kind": "spiral", "samples": 800, "noise": 0.1, "global_batch_size": 32},
  "optimizer": %1,
  "strategy": {%2},
  "steps": %3
})")
        .arg(optimizer, strategy)
        .arg(steps);
}

const QString kAdam = QStringLiteral(R"({"type": "adam", "learning_rate": 0.01})");
const QString kMomentum = QStringLiteral(R"({"type": "sgd", "learning_rate": 0.05, "momentum": 0.9})");
const QString kTwoLocal = QStringLiteral(R"("type": "multi_worker_mirrored", "local_replicas": 2, "timeout_seconds": 5)");

QJsonObject lastJsonLine(const QString& text) {
    const QStringList lines = text.trimmed().split('\n');
    return QJsonDocument::fromJson(lines.last().toUtf8()).object();
}

bool sameBytes(const QString& a, const QString& b) {
    QFile first(a), second(b);
    return first.open(QIODevice::ReadOnly) && second.open(QIODevice::ReadOnly) && first.readAll() == second.readAll();
}

}  // namespace

class TestWorkerCluster : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString write(const QString& name, const QString& text) const {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0) qFatal("cannot write %s", qPrintable(name));
        return path(name);
    }

private slots:
    void twoProcessesOfTwoReplicasEndAsMirroredFourAndOneDevice_data() {
        QTest::addColumn<QString>("optimizer");
        QTest::addColumn<QString>("communication");  // auto: the direct exchange between 2 workers; ring: Gloo's ring
        QTest::newRow("adam") << kAdam << "auto";
        QTest::newRow("momentum sgd") << kMomentum << "auto";
        QTest::newRow("momentum sgd, ring") << kMomentum << "ring";
    }
    void twoProcessesOfTwoReplicasEndAsMirroredFourAndOneDevice() {
        QFETCH(QString, optimizer);
        QFETCH(QString, communication);
        const QString tag = QString(QTest::currentDataTag()).replace(", ", "-").replace(' ', '-');
        const QString multi =
            write(tag + "-multi.json", config(kTwoLocal + QString(R"(, "communication": "%1")").arg(communication), optimizer, 50));
        const QString mirrored = write(tag + "-mirrored.json", config(R"("type": "mirrored", "replicas": 4)", optimizer, 50));
        const QString single = write(tag + "-one.json", config(R"("type": "one_device")", optimizer, 50));
        const QStringList workers = loopbackWorkers(2);
        auto tasks = startCluster(workers, {multi, "--quiet", "--save-weights", path(tag + "-multi.safetensors")});
        const auto results = finishAll(tasks);
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(results[i].finished && results[i].exitCode == 0, qPrintable(QString("task %1: %2").arg(i).arg(results[i].err)));
            const QJsonObject summary = lastJsonLine(results[i].out);
            QCOMPARE(summary["steps"].toInt(), 50);
            QCOMPARE(summary["task"].toString(), QString("worker:%1").arg(i));
            QCOMPARE(summary["workers"].toInt(), 2);
            QCOMPARE(summary["replicas"].toInt(), 2);
            QCOMPARE(summary["coordinator"].toBool(), i == 0);
            // Every worker saw the same global loss (it comes out of the all-reduce).
            QCOMPARE(summary["final_loss"].toDouble(), lastJsonLine(results[0].out)["final_loss"].toDouble());
        }
        QVERIFY(runCli({"train", mirrored, "--quiet", "--save-weights", path(tag + "-mirrored.safetensors")}).exitCode == 0);
        QVERIFY(runCli({"train", single, "--quiet", "--save-weights", path(tag + "-one.safetensors")}).exitCode == 0);
        const double toMirrored = weightRelativeError(path(tag + "-multi.safetensors"), path(tag + "-mirrored.safetensors"));
        const double toOne = weightRelativeError(path(tag + "-multi.safetensors"), path(tag + "-one.safetensors"));
        QVERIFY2(toMirrored <= 1e-5, qPrintable(QString::number(toMirrored)));
        QVERIFY2(toOne <= 1e-5, qPrintable(QString::number(toOne)));
        // And it trained: the initial weights are far away.
        auto none =
            startCluster(loopbackWorkers(2), {multi, "--quiet", "--steps", "0", "--save-weights", path(tag + "-initial.safetensors")});
        const auto untrained = finishAll(none);
        QVERIFY2(untrained[0].exitCode == 0, qPrintable(untrained[0].err));
        QVERIFY(weightRelativeError(path(tag + "-initial.safetensors"), path(tag + "-one.safetensors")) > 1e-2);
    }

    void theNetworkHopIsTheLeadsSpanWithinItsAllReduce() {
        // 2 processes x 2 local replicas; lanes 0 and 1 of each worker's trace are its replicas,
        // lane 0 the lead that exchanges each pack with the other worker. With a pack per
        // parameter their reductions overlap backward, so they are drawn on each lane's
        // reduction track beside it.
        const QString multi = write("network.json", config(kTwoLocal, kAdam, 5));
        auto tasks = startCluster(loopbackWorkers(2), {multi, "--quiet", "--set", "strategy.bytes_per_pack=1"},
                                  {{"--trace", path("network0.json")}, {"--trace", path("network1.json")}});
        const auto results = finishAll(tasks);
        // The kernels and biases (2·16, 16, 16·2, 2) in 4 packs, the step's 3 figures on the last:
        // the lead sends 4 · (32 + 16 + 32 + 2 + 3) = 340 bytes a step to the one peer.
        const QList<qint64> packBytes{32 * 4, 16 * 4, 32 * 4, (2 + 3) * 4};
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(results[i].exitCode == 0, qPrintable(results[i].err));
            QFile file(path(QString("network%1.json").arg(i)));
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QJsonArray events = QJsonDocument::fromJson(file.readAll()).object()["traceEvents"].toArray();
            QMap<int, QString> tracks;
            for (const QJsonValue& value : events)
                if (value["name"].toString() == "thread_name") tracks[value["tid"].toInt()] = value["args"]["name"].toString();
            int hops = 0;
            qint64 bytes = 0;
            for (const QJsonValue& value : events) {
                const QJsonObject hop = value.toObject();
                if (hop["name"].toString() != "network") continue;
                ++hops;
                QCOMPARE(tracks.value(hop["tid"].toInt()), QString("cpu:0 reduction"));
                QCOMPARE(hop["cat"].toString(), QString("communication"));
                const QJsonObject args = hop["args"].toObject();
                QCOMPARE(args["bytes"].toInteger(), packBytes.value(args["pack"].toInt(), -1));
                bytes += args["bytes"].toInteger();
                // Within the same step's all-reduce of the same pack on the same lane (the
                // microseconds are written to the nanosecond; allow their rounding).
                const auto within = [&](const QJsonValue& other) {
                    const QJsonObject reduce = other.toObject();
                    const double begin = reduce["ts"].toDouble(), end = begin + reduce["dur"].toDouble();
                    return reduce["name"].toString() == "all_reduce" && reduce["tid"] == hop["tid"] &&
                           reduce["args"].toObject()["step"] == args["step"] && reduce["args"].toObject()["pack"] == args["pack"] &&
                           begin <= hop["ts"].toDouble() + 1e-3 && hop["ts"].toDouble() + hop["dur"].toDouble() <= end + 1e-3;
                };
                QVERIFY2(std::any_of(events.begin(), events.end(), within), qPrintable(QJsonDocument(hop).toJson()));
            }
            QCOMPARE(hops, 5 * 4);  // each pack of each step, on the lead alone
            QCOMPARE(bytes, 5 * 340);
        }
    }

    void onlyTheCoordinatorWrites() {
        const QString multi = write("coordinator.json", config(kTwoLocal, kAdam, 5));
        auto tasks = startCluster(loopbackWorkers(2), {multi, "--quiet"},
                                  {{"--save-weights", path("w0.safetensors")}, {"--save-weights", path("w1.safetensors")}});
        const auto results = finishAll(tasks);
        QVERIFY2(results[1].exitCode == 0, qPrintable(results[1].err));
        QVERIFY(QFile::exists(path("w0.safetensors")));
        QVERIFY(!QFile::exists(path("w1.safetensors")));
    }

    void aWrongTokenOrADifferentConfigIsRefused() {
        const QString multi = write("refused.json", config(kTwoLocal, kAdam, 5));
        const QStringList workers = loopbackWorkers(2);
        TaskProcess chief(DISTLAB_WORKER_PATH, {multi, "--quiet"}, taskEnvironment(workers, 0, "right"));
        const CliResult wrong = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 30000, taskEnvironment(workers, 1, "wrong"));
        QCOMPARE(wrong.exitCode, 2);
        QVERIFY2(wrong.err.contains("token"), qPrintable(wrong.err));
        const CliResult different = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet", "--set", "optimizer.learning_rate=0.5"}, 30000,
                                               taskEnvironment(workers, 1, "right"));
        QCOMPARE(different.exitCode, 2);
        QVERIFY2(different.err.contains("config") && different.err.contains("worker:1"), qPrintable(different.err));
        // Garbage on the coordinator's port (random bytes, a huge length, a truncated frame) is refused.
        const int port = workers[0].section(':', 1).toInt();
        for (const QByteArray& garbage : {QByteArray("\x13\x37GET / HTTP/1.1\r\n\r\n"), QByteArray("\xff\xff\xff\xf0", 4),
                                          QByteArray("\x00\x00\x00\x20\xa1\x62op", 8)}) {
            const int fd = connectTo(port);
            QVERIFY(fd >= 0);
            QVERIFY(::write(fd, garbage.constData(), static_cast<std::size_t>(garbage.size())) == garbage.size());
            ::close(fd);
        }
        // The refusals changed nothing: the right task still joins and the run completes.
        const CliResult right = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 60000, taskEnvironment(workers, 1, "right"));
        QVERIFY2(right.exitCode == 0, qPrintable(right.err));
        const CliResult first = chief.finish(60000);
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    }

    void aPeerThatNeverComesTimesOut() {
        const QString multi = write("alone.json", config(R"("type": "multi_worker_mirrored", "timeout_seconds": 1.5)", kAdam, 5));
        QElapsedTimer clock;
        clock.start();
        const CliResult alone = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 30000, taskEnvironment(loopbackWorkers(2), 0, "t"));
        QCOMPARE(alone.exitCode, 2);
        QVERIFY2(alone.err.contains("worker:0"), qPrintable(alone.err));
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    }

    void aCoordinatorWithoutATokenMakesOneUpAndTheOthersNeedIt() {
        const QString multi = write("token.json", config(R"("type": "multi_worker_mirrored", "timeout_seconds": 1.5)", kAdam, 5));
        const QStringList workers = loopbackWorkers(2);
        QProcessEnvironment chiefEnvironment = taskEnvironment(workers, 0, "unused");
        chiefEnvironment.remove("DISTLAB_CLUSTER_TOKEN");
        const CliResult chief = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 30000, chiefEnvironment);
        QCOMPARE(chief.exitCode, 2);  // nobody came
        const QRegularExpression printed(
            "worker:0: the run's token is ([0-9a-f]{64}): start the other tasks with DISTLAB_CLUSTER_TOKEN=\\1");
        QVERIFY2(printed.match(chief.err).hasMatch(), qPrintable(chief.err));
        QProcessEnvironment otherEnvironment = taskEnvironment(workers, 1, "unused");
        otherEnvironment.remove("DISTLAB_CLUSTER_TOKEN");
        const CliResult other = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 30000, otherEnvironment);
        QCOMPARE(other.exitCode, 2);
        QVERIFY2(other.err.contains("task worker:1: DISTLAB_CLUSTER_TOKEN is not set"), qPrintable(other.err));
    }

    void aPortInUseAndATaskNotInTheClusterAreInputErrors() {
        const QString multi = write("port.json", config(kTwoLocal, kAdam, 5));
        const QStringList workers = loopbackWorkers(2);
        // Something else holds the coordinator's port.
        const int squatter = listenOn(workers[0].section(':', 1).toInt());
        QVERIFY(squatter >= 0);
        const CliResult inUse = runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet"}, 30000, taskEnvironment(workers, 0, "t"));
        QCOMPARE(inUse.exitCode, 2);
        QVERIFY2(inUse.err.contains(workers[0].section(':', 1)) && inUse.err.contains("in use"), qPrintable(inUse.err));
        const CliResult missing =
            runProgram(DISTLAB_WORKER_PATH, {multi, "--quiet", "--task", "worker:5"}, 30000, taskEnvironment(workers, 0, "t"));
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("task worker:5 is not in the cluster"), qPrintable(missing.err));
        ::close(squatter);
    }

    void aKilledWorkerStopsTheRunAndTheBackupResumesIt() {
        // 400 steps uninterrupted, for reference.
        const QString multi = write("backup.json", config(kTwoLocal, kMomentum, 400));
        auto whole = startCluster(loopbackWorkers(2), {multi, "--quiet", "--save-weights", path("whole.safetensors")});
        QVERIFY(finishAll(whole)[0].exitCode == 0);
        // The same run with a backup every 10 steps; worker 1 is killed once the first backup exists.
        const QStringList workers = loopbackWorkers(2);
        const QString backup = path("backup.ckpt");
        auto tasks = startCluster(workers, {multi, "--quiet", "--checkpoint", backup, "--checkpoint-every", "10", "--steps", "100000"});
        QElapsedTimer clock;
        clock.start();
        while (!QFile::exists(backup) && clock.elapsed() < 60000) QTest::qWait(20);
        QVERIFY(QFile::exists(backup));
        QVERIFY2(tasks[1]->signal(SIGKILL), "worker 1 ended before it could be killed");
        clock.restart();
        const CliResult chief = tasks[0]->finish(30000);
        QVERIFY2(chief.finished, "the chief did not notice the lost worker");
        QVERIFY2(clock.elapsed() < 5000 + 3000, qPrintable(QString::number(clock.elapsed())));  // within timeout_seconds
        QCOMPARE(chief.exitCode, 3);
        QVERIFY2(chief.err.contains("worker:1"), qPrintable(chief.err));
        tasks[1]->finish(5000);
        // The backup is whole (written atomically), and resuming the cluster from it ends exactly
        // where the uninterrupted run did.
        QVERIFY(distlab::readSafeTensors(backup.toStdString()));
        auto resumed =
            startCluster(loopbackWorkers(2), {multi, "--quiet", "--resume", backup, "--save-weights", path("resumed.safetensors")});
        const auto results = finishAll(resumed);
        QVERIFY2(results[0].exitCode == 0, qPrintable(results[0].err));
        QVERIFY2(results[1].exitCode == 0, qPrintable(results[1].err));
        QCOMPARE(lastJsonLine(results[0].out)["steps"].toInt(), 400);
        QVERIFY2(sameBytes(path("resumed.safetensors"), path("whole.safetensors")), "the resumed run's weights differ");
    }

    void redisServesTheRendezvous() {
        // A real redis-server on a free loopback port (Debian's redis-server, which the set-up installs).
        const int port = freePort();
        QProcess redis;
        redis.start("redis-server", {"--port", QString::number(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"});
        QVERIFY2(redis.waitForStarted(10000), "redis-server did not start (packaging/setup-debian.sh installs it)");
        QElapsedTimer clock;
        clock.start();
        for (int probe = listenOn(port); probe >= 0 && clock.elapsed() < 10000; probe = listenOn(port)) {  // until it holds its port
            ::close(probe);
            QTest::qWait(50);
        }
        const QString multi = write("redis.json", config(kTwoLocal, kAdam, 20));
        auto tasks = startCluster(loopbackWorkers(2), {multi, "--quiet", "--redis", QString("127.0.0.1:%1").arg(port)});
        const auto results = finishAll(tasks);
        redis.kill();
        redis.waitForFinished(5000);
        for (int i = 0; i < 2; ++i) QVERIFY2(results[i].exitCode == 0, qPrintable(results[i].err));
        QCOMPARE(lastJsonLine(results[1].out)["steps"].toInt(), 20);
    }

    void twoHostsInNetworkNamespaces() {
        // Two "hosts": network namespaces joined by a veth pair, 10.231.0.1 and 10.231.0.2, each
        // running one worker that listens on its own address only.
        if (::geteuid() != 0) QSKIP("creating network namespaces needs root (CI runs as root; run this test as root)");
        const QString a = QString("distlab-a-%1").arg(::getpid()), b = QString("distlab-b-%1").arg(::getpid());
        const QString veth = QString("dlv%1").arg(::getpid() % 100000);
        auto ip = [](const QStringList& arguments) { return runProgram("ip", arguments, 10000); };
        const CliResult added = ip({"netns", "add", a});
        QVERIFY2(added.exitCode == 0, qPrintable("ip netns add failed: " + added.err));
        ip({"netns", "add", b});
        const auto cleanup = qScopeGuard([&] {
            ip({"netns", "del", a});
            ip({"netns", "del", b});
        });
        QCOMPARE(ip({"link", "add", veth + "a", "type", "veth", "peer", "name", veth + "b"}).exitCode, 0);
        QCOMPARE(ip({"link", "set", veth + "a", "netns", a}).exitCode, 0);
        QCOMPARE(ip({"link", "set", veth + "b", "netns", b}).exitCode, 0);
        QCOMPARE(ip({"-n", a, "addr", "add", "10.231.0.1/24", "dev", veth + "a"}).exitCode, 0);
        QCOMPARE(ip({"-n", b, "addr", "add", "10.231.0.2/24", "dev", veth + "b"}).exitCode, 0);
        for (const QString& space : {a, b}) {
            QCOMPARE(ip({"-n", space, "link", "set", "lo", "up"}).exitCode, 0);
            QCOMPARE(ip({"-n", space, "link", "set", space == a ? veth + "a" : veth + "b", "up"}).exitCode, 0);
        }
        const QStringList workers{"10.231.0.1:23456", "10.231.0.2:23456"};
        const QString multi = write("hosts.json", config(kTwoLocal, kAdam, 30));
        std::vector<std::unique_ptr<TaskProcess>> tasks;
        for (int i = 0; i < 2; ++i)
            tasks.push_back(
                std::make_unique<TaskProcess>("ip",
                                              QStringList{"netns", "exec", i == 0 ? a : b, DISTLAB_WORKER_PATH, multi, "--quiet",
                                                          "--save-weights", path(QString("host%1.safetensors").arg(i))},
                                              taskEnvironment(workers, i, "hosts")));
        const auto results = finishAll(tasks);
        for (int i = 0; i < 2; ++i) QVERIFY2(results[i].exitCode == 0, qPrintable(QString("host %1: %2").arg(i).arg(results[i].err)));
        QCOMPARE(lastJsonLine(results[1].out)["steps"].toInt(), 30);
        // The same run on loopback ends with the same bits: the network changed nothing.
        auto local = startCluster(loopbackWorkers(2), {multi, "--quiet", "--save-weights", path("loopback.safetensors")});
        QVERIFY(finishAll(local)[0].exitCode == 0);
        QVERIFY(sameBytes(path("host0.safetensors"), path("loopback.safetensors")));
    }

    void aStalledWorkerIsLostAfterTheTimeoutAndOneThatWakesGoesOn() {
        // Runs without a step limit (steps 0), so they are still training whatever this machine's speed.
        const QString multi = write("stall.json", config(R"("type": "multi_worker_mirrored", "timeout_seconds": 3)", kAdam, 0));
        // Stopped for 1 s with a 3 s timeout: the run goes on, until both are interrupted.
        {
            auto tasks = startCluster(loopbackWorkers(2), {multi, "--quiet"});
            QTest::qWait(1500);
            QVERIFY2(tasks[1]->signal(SIGSTOP), "worker 1 is not running");
            QTest::qWait(1000);
            QVERIFY(tasks[1]->signal(SIGCONT));
            QTest::qWait(1500);
            QVERIFY2(tasks[0]->signal(SIGINT) && tasks[1]->signal(SIGINT), "a task ended during or after the stall");
            const auto results = finishAll(tasks, 30000);
            for (int i = 0; i < 2; ++i) {
                QVERIFY2(results[i].exitCode == 130,
                         qPrintable(QString("task %1 (exit %2): %3").arg(i).arg(results[i].exitCode).arg(results[i].err)));
                QVERIFY(lastJsonLine(results[i].out)["steps"].toInt() > 0);
            }
        }
        // Stopped for good: lost after the timeout.
        auto tasks = startCluster(loopbackWorkers(2), {multi, "--quiet"});
        QTest::qWait(1500);
        QVERIFY2(tasks[1]->signal(SIGSTOP), "worker 1 is not running");
        QElapsedTimer clock;
        clock.start();
        const CliResult chief = tasks[0]->finish(30000);
        tasks[1]->signal(SIGKILL);
        tasks[1]->signal(SIGCONT);
        tasks[1]->finish(5000);
        QCOMPARE(chief.exitCode, 3);
        QVERIFY2(clock.elapsed() >= 2500 && clock.elapsed() < 3000 + 4000, qPrintable(QString::number(clock.elapsed())));
        QVERIFY2(chief.err.contains("Timed out", Qt::CaseInsensitive) || chief.err.contains("timeout", Qt::CaseInsensitive),
                 qPrintable(chief.err));
    }
};

QTEST_GUILESS_MAIN(TestWorkerCluster)
#include "test_worker_cluster.moc"
