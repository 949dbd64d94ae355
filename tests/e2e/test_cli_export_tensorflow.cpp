// distlab-cli export-tensorflow (docs/interfaces.md §3.10): the code on stdout, or written to a file
// (replaced atomically when it exists, as export-pytorch's script is), never over an input; a bad
// config is named in the error (exit 2). Text only: the golden files are tests/engine/test_tensorflow_code.cpp's.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.hpp"

namespace {

const QString kExample = QStringLiteral(DISTLAB_EXAMPLES_DIR "/spiral-mirrored-4.json");

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

}  // namespace

class TestCliExportTensorFlow : public QObject {
    Q_OBJECT

private slots:
    void printsTheCodeOnStdout() {
        const CliResult result = runCli({"export-tensorflow", kExample});
        QCOMPARE(result.exitCode, 0);
        QVERIFY(result.out.startsWith("#!/usr/bin/env python3\n# The DistLab run \"spiral-mirrored-4\" as TensorFlow code."));
        QVERIFY(result.out.contains("CommunicationImplementation.RING"));
        QVERIFY(result.err.isEmpty());
    }

    void writesTheFileAndReplacesIt() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString out = dir.filePath("spiral.tf.py");
        QVERIFY(writeText(out, "old contents\n"));
        const CliResult result = runCli({"export-tensorflow", kExample, out, "--set", "optimizer.learning_rate=0.5"});
        QVERIFY2(result.exitCode == 0, qPrintable(result.err));
        const QByteArray code = readFile(out);
        QVERIFY(code.contains("learning_rate=0.5"));
        QVERIFY(result.out.contains(QString("\"bytes\":%1").arg(code.size())));
        // The same bytes as on stdout, for the same config.
        QCOMPARE(runCli({"export-tensorflow", kExample, "--set", "optimizer.learning_rate=0.5"}).out.toUtf8(), code);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temporary left
    }

    void refusesToOverwriteAnInput() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = dir.filePath("run.json");
        const QByteArray original = readFile(kExample);
        QVERIFY(writeText(config, original));
        const CliResult result = runCli({"export-tensorflow", config, config});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains("is the same file as CONFIG"), qPrintable(result.err));
        QCOMPARE(readFile(config), original);
        const CliResult folder = runCli({"export-tensorflow", config, dir.path()});
        QCOMPARE(folder.exitCode, 2);
        QVERIFY2(folder.err.contains("OUT.py"), qPrintable(folder.err));
    }

    void namesTheBadConfig() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString config = dir.filePath("bad.json");
        QVERIFY(writeText(config, R"({"model": {"layers": [{"units": 0}]}})"));
        const CliResult result = runCli({"export-tensorflow", config, dir.filePath("out.py")});
        QCOMPARE(result.exitCode, 2);
        QVERIFY2(result.err.contains("bad.json: model.layers[0].units"), qPrintable(result.err));
        QVERIFY(!QFile::exists(dir.filePath("out.py")));
        const CliResult missing = runCli({"export-tensorflow", dir.filePath("none.json")});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.contains("CONFIG: cannot read"), qPrintable(missing.err));
        const CliResult usage = runCli({"export-tensorflow"});
        QCOMPARE(usage.exitCode, 2);
        QVERIFY2(usage.err.contains("CONFIG is required"), qPrintable(usage.err));
    }
};

QTEST_GUILESS_MAIN(TestCliExportTensorFlow)
#include "test_cli_export_tensorflow.moc"
