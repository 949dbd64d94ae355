// distlab-cli collectives, end to end: nccl-tests style rows, a correctness check at every size,
// only backends that run offered, and clear errors for the others and for bad arguments.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "cli_runner.hpp"

namespace {
QList<QJsonObject> jsonLines(const QString& text) {
    QList<QJsonObject> rows;
    for (const QString& line : text.trimmed().split('\n')) rows.append(QJsonDocument::fromJson(line.toUtf8()).object());
    return rows;
}
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
    // backends DistLab does not build (Gloo, NCCL: they come with multi-process training) are refused
    // by the option check, naming what exists, not offered and then refused.
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
        for (const QString& absent : {QStringLiteral("gloo"), QStringLiteral("nccl"), QStringLiteral("mpi")}) {
            QVERIFY2(!backends.contains(absent), qPrintable(absent + " is offered"));
            const CliResult r = runCli({"collectives", "--backend", absent});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("--backend: expected one of " + backends.join(QStringLiteral(", ")) + " (got \"" + absent + "\")"),
                     qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
    }

    void unavailableBackendsAndBadArguments_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("gloo") << QStringList{"--backend", "gloo"} << "--backend: expected one of inprocess (got \"gloo\")";
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
