// distlab-cli equivalence (docs/interfaces.md §13.7): the example equivalence study prints every
// variant's class with its reason, the must-equal ones stay near float rounding while the async
// parameter servers drift, the CSV holds every update of every compared variant, and a bad study
// is an input error that writes nothing.
#include <QFile>

#include <algorithm>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.hpp"

namespace {

QStringList linesOf(const QString& text) { return text.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }

/// The "after update N: largest relative difference X" figure of the variant block that starts with `label`.
double lastRelative(const QString& out, const QString& label) {
    const QStringList lines = linesOf(out);
    for (qsizetype i = 0; i < lines.size(); ++i) {
        if (!lines[i].startsWith(label + QStringLiteral(": "))) continue;
        for (qsizetype j = i + 1; j < lines.size() && lines[j].startsWith(QLatin1Char(' ')); ++j) {
            const auto match = QRegularExpression(QStringLiteral("largest relative difference (\\S+)")).match(lines[j]);
            if (match.hasMatch()) return match.captured(1).toDouble();
        }
    }
    return -1.0;
}

}  // namespace

class TestCliEquivalence : public QObject {
    Q_OBJECT

private slots:
    void theExampleSeparatesRoundingFromStaleness() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString csvPath = dir.filePath("d.csv");
        const CliResult result =
            runCli({"equivalence", QStringLiteral(DISTLAB_EXAMPLES_DIR "/equivalence-lab.study.json"), "--csv", csvPath});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QVERIFY(result.out.contains("one device: baseline"));
        QVERIFY(result.out.contains("mirrored 2 ring: must equal: "));
        QVERIFY(result.out.contains("accumulation 2: must equal: "));
        QVERIFY(result.out.contains("async parameter servers: may differ: asynchronous parameter servers"));
        QVERIFY(result.out.contains("staleness"));
        QVERIFY(result.out.contains("why not zero: float addition is not associative"));
        for (const char* label : {"mirrored 2 ring", "mirrored 4 hierarchical, 2 packs", "mirrored 4 tree", "accumulation 2"}) {
            const double relative = lastRelative(result.out, QString::fromUtf8(label));
            QVERIFY2(relative >= 0.0 && relative < 1e-4, label);
        }
        QVERIFY(lastRelative(result.out, QStringLiteral("async parameter servers")) > 1e-3);

        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList rows = linesOf(QString::fromUtf8(csv.readAll()));
        QCOMPARE(rows.front(), QStringLiteral("step,variant,class,max_abs_diff,max_rel_diff,parameter,element,loss_diff"));
        QCOMPARE(rows.size(), 1 + 5 * 200);  // every update of the five compared variants
        // A label with a comma is quoted.
        QVERIFY(std::any_of(rows.begin(), rows.end(), [](const QString& row) {
            return row.startsWith(QStringLiteral("200,\"mirrored 4 hierarchical, 2 packs\",must equal,"));
        }));
    }

    void aBadStudyIsAnInputError() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QFile file(dir.filePath("bad.study.json"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"equivalence": "yes", "variants": []})");
        file.close();
        const CliResult result = runCli({"equivalence", dir.filePath("bad.study.json"), "--csv", dir.filePath("d.csv")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains("bad.study.json: equivalence"), qPrintable(result.err));
        QVERIFY(!QFile::exists(dir.filePath("d.csv")));
    }
};

QTEST_GUILESS_MAIN(TestCliEquivalence)
#include "test_cli_equivalence.moc"
