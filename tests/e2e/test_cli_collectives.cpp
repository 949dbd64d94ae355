// distlab-cli collectives, end to end: nccl-tests style rows, a correctness check at every size,
// only backends that run offered, and clear errors for the others and for bad arguments. With
// --backend gloo the ranks are processes: none may outlive the command, whether it succeeds, a
// rank dies, or the command itself is killed.
#include <QtTest>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QUuid>

#include <csignal>
#include <sys/types.h>

#include "cli_runner.hpp"

namespace {
QList<QJsonObject> jsonLines(const QString& text) {
    QList<QJsonObject> rows;
    for (const QString& line : text.trimmed().split('\n')) rows.append(QJsonDocument::fromJson(line.toUtf8()).object());
    return rows;
}

// The command's rank processes inherit its environment: a variable with a fresh value marks every
// process of one command, whoever its parent is by now.
constexpr const char* kMarker = "DISTLAB_TEST_COLLECTIVES_MARKER";

QProcessEnvironment markedEnvironment(const QString& marker) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString::fromLatin1(kMarker), marker);
    return environment;
}

/// Process ids of the live processes carrying `marker` (a zombie's environment reads empty).
QList<qint64> markedProcesses(const QString& marker) {
    const QByteArray needle = QByteArray(kMarker) + '=' + marker.toUtf8() + '\0';
    QList<qint64> pids;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool number = false;
        const qint64 pid = entry.toLongLong(&number);
        if (!number) continue;
        QFile environ(QStringLiteral("/proc/%1/environ").arg(pid));
        if (environ.open(QIODevice::ReadOnly) && environ.readAll().contains(needle)) pids << pid;
    }
    return pids;
}

/// Waits up to timeoutMs until `count` processes carry `marker`; they are returned (fewer on timeout).
QList<qint64> waitForMarked(const QString& marker, int count, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    QList<qint64> pids = markedProcesses(marker);
    while (pids.size() < count && timer.elapsed() < timeoutMs) {
        QTest::qWait(20);
        pids = markedProcesses(marker);
    }
    return pids;
}

/// Waits up to timeoutMs until no process carries `marker`; whether none does.
bool noneLeft(const QString& marker, int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (!markedProcesses(marker).isEmpty()) {
        if (timer.elapsed() > timeoutMs) return false;
        QTest::qWait(20);
    }
    return true;
}

// A sweep on three ranks whose first row comes within a second or so and whose whole takes
// minutes: long enough to interfere with while the ranks measure.
const QStringList kLongGlooRun{"collectives", "--backend",   "gloo", "--replicas", "3",   "--min-bytes",
                               "4",           "--max-bytes", "64M",  "--iters",    "300", "--json"};
}  // namespace

class TestCliCollectives : public QObject {
    Q_OBJECT
private slots:
    void jsonRowsForEverySizeAndAlgorithm() {
        const CliResult r = runCli({"collectives", "--json", "--algorithm", "all", "--replicas", "3", "--min-bytes", "4", "--max-bytes",
                                    "64K", "--iters", "3", "--op", "mean", "--memcpy"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QList<QJsonObject> rows = jsonLines(r.out);
        QCOMPARE(rows.size(), 4 * 15 + 2);  // 4, 8, ..., 65536 bytes for each algorithm; memcpy 1 and 3 threads
        const QStringList algorithms{"reduction_to_one_device", "hierarchical_copy", "ring", "tree"};
        for (int i = 0; i < 60; ++i) {
            const QJsonObject& row = rows[i];
            QCOMPARE(row["collective"].toString(), QString("all_reduce"));
            QCOMPARE(row["algorithm"].toString(), algorithms[i / 15]);
            QCOMPARE(row["replicas"].toInt(), 3);
            QCOMPARE(row["op"].toString(), QString("mean"));
            QCOMPARE(row["bytes"].toInteger(), qint64(4) << (i % 15));
            QCOMPARE(row["elements"].toInteger(), qint64(1) << (i % 15));
            QCOMPARE(row["wrong"].toInteger(), qint64(0));
            QVERIFY(row["time_us"].toDouble() > 0);
            const double algbw = row["algbw_gbps"].toDouble();
            QVERIFY(qAbs(algbw - row["bytes"].toDouble() / (row["time_us"].toDouble() * 1e3)) <= 1e-9 * qMax(1.0, algbw));
            QVERIFY(qAbs(row["busbw_gbps"].toDouble() - algbw * 4.0 / 3.0) <= 1e-9 * qMax(1.0, algbw));
        }
        QCOMPARE(rows[60]["collective"].toString(), QString("memcpy"));
        QCOMPARE(rows[60]["threads"].toInt(), 1);
        QCOMPARE(rows[61]["threads"].toInt(), 3);
        QVERIFY(rows[61]["copy_gbps"].toDouble() > 0);
    }

    void humanTableByDefault() {
        const CliResult r = runCli({"collectives", "--replicas", "2", "--min-bytes", "1K", "--max-bytes", "4K", "--iters", "2"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2 + 3);
        QVERIFY(lines[1].contains("busbw_gbps") && lines[1].contains("wrong"));
        QVERIFY(lines[2].trimmed().startsWith("ring"));
        QVERIFY(lines[4].contains(" 4096 "));
    }

    // The backends --help offers are exactly those that run: each offered one measures, and the
    // backends DistLab does not build here (NCCL comes with GPUs, MPI not at all) are refused by the
    // option check, naming what exists, not offered and then refused.
    void offeredBackendsAreExactlyThoseThatRun() {
        const CliResult help = runCli({"collectives", "--help"});
        QCOMPARE(help.exitCode, 0);
        const QRegularExpressionMatch offered =
            QRegularExpression(QStringLiteral("--backend NAME\\s+one of: ([a-z_]+(?:, [a-z_]+)*)")).match(help.out);
        QVERIFY2(offered.hasMatch(), qPrintable(help.out));
        const QStringList backends = offered.captured(1).split(QStringLiteral(", "));
        for (const QString& backend : backends) {
            const CliResult r = runCli({"collectives", "--backend", backend, "--json", "--replicas", "2", "--min-bytes", "1K",
                                        "--max-bytes", "1K", "--iters", "2"});
            QVERIFY2(r.exitCode == 0, qPrintable(backend + ": " + r.err));
            const QList<QJsonObject> rows = jsonLines(r.out);
            QCOMPARE(rows.size(), 1);
            QCOMPARE(rows[0]["backend"].toString(), backend);
            QCOMPARE(rows[0]["wrong"].toInt(), 0);
        }
        QVERIFY2(backends.contains(QStringLiteral("gloo")), qPrintable(help.out));
        for (const QString& absent : {QStringLiteral("nccl"), QStringLiteral("mpi")}) {
            QVERIFY2(!backends.contains(absent), qPrintable(absent + " is offered"));
            const CliResult r = runCli({"collectives", "--backend", absent});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--backend: expected one of " + backends.join(QStringLiteral(", ")) + " (got \"" + absent + "\")"),
                     qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
    }

    // Gloo on 2 processes as a run's communication auto (the default: the direct exchange) and on
    // 3 as ring (Gloo's ring at every size): a row per size, exact results, times and bandwidths
    // that agree; every rank process gone when the command returns.
    void glooRowsOnTwoAndThreeProcesses() {
        for (const int ranks : {2, 3}) {
            const QString marker = QUuid::createUuid().toString(QUuid::WithoutBraces);
            const QString algorithm = ranks == 2 ? QStringLiteral("auto") : QStringLiteral("ring");
            QStringList arguments{"collectives", "--backend", "gloo",        "--json", "--replicas", QString::number(ranks),
                                  "--min-bytes", "4",         "--max-bytes", "256K",   "--iters",    "3",
                                  "--op",        "mean"};
            if (ranks == 3) arguments << "--algorithm" << algorithm;
            const CliResult r = runProgram(QStringLiteral(DISTLAB_CLI_PATH), arguments, 120000, markedEnvironment(marker));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            const QList<QJsonObject> rows = jsonLines(r.out);
            QCOMPARE(rows.size(), 17);  // 4, 8, ..., 262144 bytes
            for (int i = 0; i < rows.size(); ++i) {
                const QJsonObject& row = rows[i];
                QCOMPARE(row["backend"].toString(), QString("gloo"));
                QCOMPARE(row["algorithm"].toString(), algorithm);
                QCOMPARE(row["replicas"].toInt(), ranks);
                QCOMPARE(row["op"].toString(), QString("mean"));
                QCOMPARE(row["bytes"].toInteger(), qint64(4) << i);
                QCOMPARE(row["wrong"].toInteger(), qint64(0));
                const double timeUs = row["time_us"].toDouble();
                QVERIFY2(timeUs > 0 && timeUs < 1e6, qPrintable(QString::number(timeUs)));  // loopback: well under a second
                const double algbw = row["algbw_gbps"].toDouble();
                QVERIFY(qAbs(algbw - row["bytes"].toDouble() / (timeUs * 1e3)) <= 1e-9 * qMax(1.0, algbw));
                QVERIFY(qAbs(row["busbw_gbps"].toDouble() - algbw * 2.0 * (ranks - 1) / ranks) <= 1e-9 * qMax(1.0, algbw));
            }
            QVERIFY2(noneLeft(marker, 2000), qPrintable(QString("rank processes left behind on %1 ranks").arg(ranks)));
        }
    }

    void glooHumanTableNamesProcesses() {
        const CliResult r = runCli({"collectives", "--backend", "gloo", "--replicas", "2", "--min-bytes", "1K", "--max-bytes", "2K"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2 + 2);
        QVERIFY2(lines[0].contains("backend gloo, 2 processes"), qPrintable(lines[0]));
        QVERIFY(lines[3].trimmed().startsWith("auto"));
    }

    // A rank that dies ends the command at once (not after Gloo's timeout), names the rank, and
    // takes the other ranks with it.
    void aDeadRankEndsTheCommandAndTheOtherRanks() {
        const QString marker = QUuid::createUuid().toString(QUuid::WithoutBraces);
        QProcess command;
        command.setProcessEnvironment(markedEnvironment(marker));
        command.start(QStringLiteral(DISTLAB_CLI_PATH), kLongGlooRun);
        QVERIFY(command.waitForStarted());
        const QList<qint64> marked = waitForMarked(marker, 3, 20000);
        QCOMPARE(marked.size(), 3);                // the command and its two rank processes
        QVERIFY(command.waitForReadyRead(20000));  // a first row: the group is joined and measuring
        const qint64 victim = marked[0] == command.processId() ? marked[1] : marked[0];
        QCOMPARE(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
        QVERIFY2(command.waitForFinished(10000), "the command outlived its rank by 10 s");
        QCOMPARE(command.exitCode(), 1);
        const QString err = QString::fromUtf8(command.readAllStandardError());
        QVERIFY2(err.contains(QRegularExpression("error: collectives: rank [12] was killed by signal 9")), qPrintable(err));
        QVERIFY2(noneLeft(marker, 2000), "a rank process outlived the command");
    }

    // The command killed outright cannot clean up: the kernel's parent-death signal ends its ranks.
    void aKilledCommandTakesItsRanksAlong() {
        const QString marker = QUuid::createUuid().toString(QUuid::WithoutBraces);
        QProcess command;
        command.setProcessEnvironment(markedEnvironment(marker));
        command.start(QStringLiteral(DISTLAB_CLI_PATH), kLongGlooRun);
        QVERIFY(command.waitForStarted());
        QCOMPARE(waitForMarked(marker, 3, 20000).size(), 3);
        QVERIFY(command.waitForReadyRead(20000));
        command.kill();
        QVERIFY(command.waitForFinished(5000));
        QVERIFY2(noneLeft(marker, 3000), "a rank process outlived the killed command");
    }

    void unavailableBackendsAndBadArguments_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("nccl") << QStringList{"--backend", "nccl"} << "--backend: expected one of inprocess, gloo (got \"nccl\")";
        QTest::newRow("gloo algorithm") << QStringList{"--backend", "gloo", "--algorithm", "tree"}
                                        << "--algorithm tree: the gloo backend takes auto (the default) or ring, as a run's communication";
        QTest::newRow("gloo all") << QStringList{"--backend", "gloo", "--algorithm", "all"} << "--algorithm all: the gloo backend";
        QTest::newRow("auto in process") << QStringList{"--algorithm", "auto"} << "--algorithm auto: only for --backend gloo";
        QTest::newRow("rank process") << QStringList{"--rank-process", "1"}
                                      << "--rank-process: only for the ranks 1 to N-1 of --backend gloo";
        QTest::newRow("algorithm") << QStringList{"--algorithm", "butterfly"} << "--algorithm: expected one of ring";
        QTest::newRow("replicas") << QStringList{"--replicas", "0"} << "--replicas: expected an integer in [1, 64]";
        QTest::newRow("bytes") << QStringList{"--min-bytes", "2"} << "--min-bytes: expected a byte count >= 4";
        QTest::newRow("order") << QStringList{"--min-bytes", "8K", "--max-bytes", "4K"}
                               << "--min-bytes 8192 is larger than --max-bytes 4096";
        QTest::newRow("iters") << QStringList{"--iters", "0"} << "--iters: expected an integer in [1, 10000000]";
        QTest::newRow("too much") << QStringList{"--replicas", "8", "--max-bytes", "1G"} << "exceeds the 4 GiB";
        QTest::newRow("missing value") << QStringList{"--replicas"} << "--replicas: 1 required N missing";
        QTest::newRow("unknown") << QStringList{"--fast", "yes"} << "The following arguments were not expected: yes --fast";
    }

    void unavailableBackendsAndBadArguments() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliResult r = runCli(QStringList{"collectives"} + arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("error: collectives: ") && r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliCollectives)
#include "test_cli_collectives.moc"
