// The app opens and saves every file through the engine's one opener and one writer: a FIFO or a
// huge file given as a config, as data or as weights, and a save into a folder that cannot take it,
// each give one clear message naming the file, at once (no hang), and change nothing on disk.
#include <QtTest>

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "file_test_support.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

// Refusing a file takes milliseconds; this only tells a refusal from a hang on a loaded machine.
constexpr qint64 kPromptMs = 5000;

}  // namespace

class TestAppFiles : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;

    /// A FIFO in the test's folder (made once); nothing ever writes into it.
    QString fifo(const QString& name) {
        const QString path = m_dir.filePath(name);
        if (!isFifo(path) && ::mkfifo(local(path).c_str(), 0644) != 0) qWarning("mkfifo %s failed", qPrintable(path));
        return path;
    }
    // The one message the last action showed; it must name `file` and say what is wrong.
    void expectOneError(const QString& file, const QString& problem) {
        QCOMPARE(m_recorder->errors.size(), 1);
        const QString& shown = m_recorder->errors.front();
        qInfo("shown: %s", qPrintable(shown));
        QVERIFY2(shown.contains(file) && shown.contains(problem), qPrintable(shown));
        m_recorder->errors.clear();
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-files")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1200, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void openingAFifoIsRefusedAtOnce() {
        const QString pipe = fifo("run.json");
        QVERIFY(isFifo(pipe));
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!m_window->openConfig(pipe));
        QVERIFY(timer.elapsed() < kPromptMs);
        expectOneError(pipe, "FIFO");
        QVERIFY(!m_window->loadWeights(fifo("w.safetensors")));
        QVERIFY(timer.elapsed() < kPromptMs);
        expectOneError(m_dir.filePath("w.safetensors"), "FIFO");
        QVERIFY(isFifo(pipe));
    }

    void dataFromAFifoIsReportedNotWaitedFor() {
        QVERIFY(isFifo(fifo("data.csv")));
        const QString config = m_dir.filePath("csv.json");
        writeRaw(config, R"({"model": {"layers": [{"type": "dense", "units": 2}]},
                             "data": {"source": "csv", "path": "data.csv", "global_batch_size": 1}})");
        QVERIFY(m_window->openConfig(config));  // the data loads on the session thread
        QTRY_COMPARE_WITH_TIMEOUT(m_recorder->errors.size(), 1, kPromptMs);
        expectOneError(m_dir.filePath("data.csv"), "data.path");
    }

    void openingAHugeFileIsRefused() {
        const QString big = m_dir.filePath("big.json");
        writeRaw(big, "");
        QVERIFY(::truncate(local(big).c_str(), 200'000'000) == 0);  // sparse: no disk used
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!m_window->openConfig(big));
        QVERIFY(timer.elapsed() < kPromptMs);
        expectOneError(big, "16 MiB");
    }

    void savingWhereNothingCanBeWrittenIsRefused_data() {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("problem");
        QTest::newRow("missing folder") << m_dir.filePath("nope") << "No such file or directory";
        if (::geteuid() == 0) {
            // Permissions do not stop root; nobody may create a file in /sys.
            QTest::newRow("unwritable folder") << "/sys" << "cannot create a temporary file";
        } else {
            QVERIFY(QDir(m_dir.path()).mkpath("read-only"));
            QVERIFY(::chmod(local(m_dir.filePath("read-only")).c_str(), 0555) == 0);
            QTest::newRow("unwritable folder") << m_dir.filePath("read-only") << "Permission denied";
        }
    }

    void savingWhereNothingCanBeWrittenIsRefused() {
        QFETCH(QString, folder);
        QFETCH(QString, problem);
        const QStringList before = entriesOf(m_dir.path());
        MainWindow& window = *m_window;
        const std::vector<std::pair<QString, std::function<bool(const QString&)>>> saves{
            {"run.json", [&](const QString& p) { return window.saveConfig(p); }},
            {"w.safetensors", [&](const QString& p) { return window.saveWeights(p); }},
            {"metrics.csv", [&](const QString& p) { return window.exportMetrics(p); }},
            {"trace.json", [&](const QString& p) { return window.exportTrace(p); }},
            {"view.png", [&](const QString& p) { return window.saveViewPng(p); }},
        };
        for (const auto& [name, save] : saves) {
            const QString target = folder + "/distlab-test-" + name;
            QElapsedTimer timer;
            timer.start();
            QVERIFY2(!save(target), qPrintable(target));
            QVERIFY(timer.elapsed() < kPromptMs);
            expectOneError(target, problem);
            QVERIFY(!QFile::exists(target));
        }
        QCOMPARE(entriesOf(m_dir.path()), before);
    }

    void savingOverAFifoIsRefused() {
        const QString pipe = fifo("out.json");
        QVERIFY(isFifo(pipe));
        QVERIFY(!m_window->saveConfig(pipe));
        expectOneError(pipe, "FIFO");
        QVERIFY(!m_window->exportTrace(pipe));
        expectOneError(pipe, "FIFO");
        QVERIFY(isFifo(pipe));
    }
};

QTEST_MAIN(TestAppFiles)
#include "test_app_files.moc"
