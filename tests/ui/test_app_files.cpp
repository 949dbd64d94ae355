// The app opens and saves every file through the engine's one opener and one writer: a FIFO or a
// huge file given as a config, as data or as weights, and a save into a folder that cannot take it,
// each give one clear message naming the file, at once (no hang), and change nothing on disk. A
// save the trainer does leaves the window drawing while it waits for its turn.
#include <QtTest>

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "file_test_support.hpp"
#include <distlab/distribute/trainer.hpp>
#include <distlab/session/training_session.hpp>

#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {

// Refusing a file takes milliseconds; this only tells a refusal from a hang on a loaded machine.
constexpr qint64 kPromptMs = 5000;

// Counts the paint events a widget receives.
class PaintCounter : public QObject {
public:
    explicit PaintCounter(QWidget& widget) { widget.installEventFilter(this); }
    int count() const { return m_count; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint) ++m_count;
        return QObject::eventFilter(watched, event);
    }

private:
    int m_count = 0;
};

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
        QVERIFY(!fileTaskSucceeds(*m_window, [&] { m_window->loadWeights(fifo("w.safetensors")); }));
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
            QTest::newRow("unwritable folder") << "/sys"
                                               << "cannot create a temporary file";
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
            {"w.safetensors", [&](const QString& p) { return fileTaskSucceeds(window, [&] { window.saveWeights(p); }); }},
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

    // The weights are written by the trainer, on the run's session thread; the window does not wait
    // for it. A slow trainer task ahead of the save holds the save back: meanwhile the event loop
    // turns (a timer fires), the window repaints, the busy state shows, and the outcome comes after.
    void aSlowSaveLeavesTheWindowDrawing() {
        MainWindow& window = *m_window;
        static constexpr int kSlowMs = 800;
        QObject context;
        // Straight to the session (its future is not waited for), so nothing of the app's is involved.
        QVERIFY(window.controller().session() != nullptr);
        window.controller().session()->post([](Trainer&) { std::this_thread::sleep_for(std::chrono::milliseconds(kSlowMs)); });
        std::optional<bool> outcome;
        connect(&window, &MainWindow::sessionFileDone, &context, [&outcome](bool ok) { outcome = ok; });
        PaintCounter paints(*window.statusBar());
        const QString weights = m_dir.filePath(QStringLiteral("slow.safetensors"));
        QElapsedTimer clock;
        clock.start();
        window.saveWeights(weights);
        const qint64 returnedMs = clock.elapsed();
        QVERIFY2(returnedMs < kSlowMs / 4, qPrintable(QStringLiteral("saveWeights returned after %1 ms").arg(returnedMs)));
        QVERIFY(!outcome);
        // Busy: the cursor, the status bar, and the file actions that would queue behind it.
        QVERIFY(QGuiApplication::overrideCursor() != nullptr);
        QCOMPARE(QGuiApplication::overrideCursor()->shape(), Qt::BusyCursor);
        QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("Saving the weights")),
                 qPrintable(window.statusBar()->currentMessage()));
        QAction* saveAction = window.findChild<QAction*>(QStringLiteral("saveWeightsAction"));
        QVERIFY(saveAction != nullptr && !saveAction->isEnabled());

        int beats = 0;
        QTimer beat;
        beat.setInterval(10);
        connect(&beat, &QTimer::timeout, &context, [&] {
            ++beats;
            window.statusBar()->update();
        });
        beat.start();
        int beatsWhileSaving = 0;
        int paintsWhileSaving = 0;
        connect(&window, &MainWindow::sessionFileDone, &context, [&] {
            beatsWhileSaving = beats;
            paintsWhileSaving = paints.count();
        });
        QVERIFY(QTest::qWaitFor([&] { return outcome.has_value(); }, kLoadTimeoutMs));
        const qint64 answeredMs = clock.elapsed();
        QVERIFY2(*outcome, qPrintable(m_recorder->errors.join('\n')));
        QVERIFY2(answeredMs >= kSlowMs - 50, qPrintable(QStringLiteral("answered after %1 ms").arg(answeredMs)));
        // ~80 beats of 10 ms in the 800 ms; a loaded machine still turns its loop many times.
        QVERIFY2(beatsWhileSaving >= 10, qPrintable(QStringLiteral("%1 timer beats while saving").arg(beatsWhileSaving)));
        QVERIFY2(paintsWhileSaving >= 5, qPrintable(QStringLiteral("%1 paints while saving").arg(paintsWhileSaving)));
        QVERIFY(QFile::exists(weights));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("slow.safetensors")));
        QVERIFY(QGuiApplication::overrideCursor() == nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(saveAction->isEnabled(), 5000);
    }
};

QTEST_MAIN(TestAppFiles)
#include "test_app_files.moc"
