// distlab-cli compare (docs/interfaces.md §13.2): the printed table and the CSV hold the same rows,
// the JSONL has one line per update of every variant, and a bad study is an input error.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.hpp"

namespace {

const char* const kStudy = R"({
  "name": "e2e",
  "base": {"seed": 2, "model": {"layers": [{"units": 6, "activation": "tanh"}, {"units": 2}]},
           "data": {"samples": 200, "global_batch_size": 16}},
  "steps": 30,
  "baseline": "mirrored",
  "target_accuracy": 0.5,
  "variants": [
    {"label": "single", "set": {"strategy.type": "one_device"}},
    {"label": "mirrored", "set": {"strategy.type": "mirrored", "strategy.replicas": 2}}
  ]
})";

void writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(text);
}

QStringList linesOf(const QString& text) { return text.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }

}  // namespace

class TestCliCompare : public QObject {
    Q_OBJECT

private slots:
    void theCsvHoldsThePrintedRows() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeText(dir.filePath("s.study.json"), kStudy);
        const CliResult result =
            runCli({"compare", dir.filePath("s.study.json"), "--csv", dir.filePath("t.csv"), "--jsonl", dir.filePath("m.jsonl")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QVERIFY(result.err.contains("[2/2] mirrored: finished"));

        QStringList printed;
        for (const QString& line : linesOf(result.out))
            if (!line.startsWith('#')) printed.append(line);
        QFile csvFile(dir.filePath("t.csv"));
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QStringList csv = linesOf(QString::fromUtf8(csvFile.readAll()));
        QCOMPARE(printed.size(), 3);  // the header and two variants
        QCOMPARE(csv.size(), 3);
        for (int i = 0; i < 3; ++i) {
            // The labels hold no spaces, so the aligned columns split on blanks; "-" is an empty cell.
            QStringList cells = printed[i].split(QLatin1Char(' '), Qt::SkipEmptyParts);
            for (QString& cell : cells)
                if (cell == "-") cell.clear();
            QCOMPARE(cells, csv[i].split(QLatin1Char(',')));
        }
        QVERIFY(csv[0].startsWith("variant,state,steps,"));
        QVERIFY(csv[1].startsWith("single,finished,30,"));
        QVERIFY(csv[2].startsWith("mirrored,finished,30,"));
        const int ratio = csv[0].split(',').indexOf("speed_vs_baseline");
        QCOMPARE(csv[2].split(',')[ratio], QStringLiteral("1.000"));  // the baseline against itself

        QFile jsonl(dir.filePath("m.jsonl"));
        QVERIFY(jsonl.open(QIODevice::ReadOnly));
        const QStringList lines = linesOf(QString::fromUtf8(jsonl.readAll()));
        QCOMPARE(lines.size(), 60);  // 30 updates of each variant
        QMap<QString, int> perVariant;
        for (const QString& line : lines) {
            const QJsonObject object = QJsonDocument::fromJson(line.toUtf8()).object();
            QVERIFY(object.contains("step") && object.contains("loss") && object.contains("comm_ms"));
            ++perVariant[object["variant"].toString()];
        }
        QCOMPARE(perVariant["single"], 30);
        QCOMPARE(perVariant["mirrored"], 30);
    }

    void predictionsStandBesideTheMeasurement() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeText(dir.filePath("s.study.json"), kStudy);
        const CliResult result = runCli({"compare", dir.filePath("s.study.json"), "--predict", "--quiet", "--csv", dir.filePath("t.csv")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        QFile csvFile(dir.filePath("t.csv"));
        QVERIFY(csvFile.open(QIODevice::ReadOnly));
        const QStringList csv = linesOf(QString::fromUtf8(csvFile.readAll()));
        // Near the left, right after the seconds the measured step is taken from.
        QVERIFY2(csv[0].startsWith("variant,state,steps,seconds,step_ms,predicted_step_ms,prediction_error,final_loss,"),
                 qPrintable(csv[0]));
        for (int row = 1; row <= 2; ++row) {
            const QStringList cells = csv[row].split(',');
            QVERIFY(cells[4].toDouble() > 0);  // measured
            QVERIFY(cells[5].toDouble() > 0);  // predicted
            QVERIFY2(cells[6].startsWith('+') || cells[6].startsWith('-'), qPrintable(csv[row]));
        }
        // The printed table has the same columns in the same order.
        QVERIFY2(result.out.contains(
                     QRegularExpression("variant +state +steps +seconds +step_ms +predicted_step_ms +prediction_error +final_loss")),
                 qPrintable(result.out));
    }

    void aBadStudyIsAnInputError() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeText(dir.filePath("s.study.json"), R"({"variants": [{"label": "a", "config": "missing.json"}]})");
        const CliResult result = runCli({"compare", dir.filePath("s.study.json"), "--csv", dir.filePath("t.csv")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.startsWith("error: " + dir.filePath("s.study.json") + ": variants: a study compares 2 to 6"),
                 qPrintable(result.err));
        QVERIFY(!QFile::exists(dir.filePath("t.csv")));
    }

    void anOutputThatIsAnInputIsRefused() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeText(dir.filePath("s.study.json"), kStudy);
        const CliResult result = runCli({"compare", dir.filePath("s.study.json"), "--csv", dir.filePath("s.study.json")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains("--csv") && result.err.contains("same file as STUDY"), qPrintable(result.err));
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "test_cli_compare.moc"
