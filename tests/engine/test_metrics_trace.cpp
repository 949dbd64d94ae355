// Metrics JSONL and Chrome trace files, parsed back with nlohmann::json.
#include <signal.h>
#include <sys/resource.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>

#include "distlab/formats/chrome_trace_writer.hpp"
#include "file_test_support.hpp"
#include "distlab/formats/metrics_writer.hpp"

using namespace distlab;
using nlohmann::json;

namespace {

QList<QByteArray> linesOf(const QString& path) {
    QList<QByteArray> lines = readAll(path).split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
    return lines;
}

QString errorText(const Error& error) { return QString::fromStdString(error.message); }

MetricsRecord sampleRecord() {
    MetricsRecord record;
    record.step = 7;
    record.epoch = 1;
    record.loss = 0.1;
    record.learningRate = 1e-5;
    record.stepMs = 2.5;
    record.computeMs = 1.75;
    record.optimizerMs = 0.125;
    record.commMs = 0.5;
    record.waitMs = 0.25;
    record.bytesCommunicated = 9007199254740993;  // 2^53 + 1: exact as an integer
    record.gradNormBefore = {1.0, 2.0};
    record.gradNormAfter = {1.5, 1.5};
    record.replicaLoss = {0.125, -0.0};
    return record;
}

}  // namespace

class TestMetricsTrace : public QObject {
    Q_OBJECT

private slots:
    void metricsLineIsExact() {
        QTemporaryDir folder;
        const QString path = folder.filePath("m.jsonl");
        auto writer = MetricsWriter::open(path.toStdString());
        QVERIFY(writer.ok());
        MetricsRecord record = sampleRecord();
        writer->write(record);
        record.step = 8;
        record.loss = std::numeric_limits<double>::quiet_NaN();
        record.learningRate = std::numeric_limits<double>::infinity();
        record.gradNormBefore = {-std::numeric_limits<double>::infinity(), 1e300};
        record.gradNormAfter.clear();
        record.replicaLoss = {3.0};
        record.testLoss = 0.3;
        record.testAccuracy = 0.875;
        record.trainAccuracy = 1.0;
        writer->write(record);
        QCOMPARE(writer->lineCount(), std::int64_t{2});
        QVERIFY(writer->close().ok());

        const QList<QByteArray> lines = linesOf(path);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines[0], QByteArray(R"({"step":7,"epoch":1,"loss":0.1,"learning_rate":1e-05,"step_ms":2.5,"compute_ms":1.75,)"
                                      R"("optimizer_ms":0.125,"comm_ms":0.5,"wait_ms":0.25,"bytes_communicated":9007199254740993,)"
                                      R"("grad_norm_before":[1,2],"grad_norm_after":[1.5,1.5],"replica_loss":[0.125,-0]})"));
        QCOMPARE(lines[1], QByteArray(R"({"step":8,"epoch":1,"loss":null,"learning_rate":null,"step_ms":2.5,"compute_ms":1.75,)"
                                      R"("optimizer_ms":0.125,"comm_ms":0.5,"wait_ms":0.25,"bytes_communicated":9007199254740993,)"
                                      R"("grad_norm_before":[null,1e+300],"grad_norm_after":[],"replica_loss":[3],)"
                                      R"("test_loss":0.3,"test_accuracy":0.875,"train_accuracy":1})"));

        const json first = json::parse(lines[0].toStdString());
        QCOMPARE(first["step"].get<std::int64_t>(), std::int64_t{7});
        QCOMPARE(first["loss"].get<double>(), 0.1);
        QCOMPARE(first["learning_rate"].get<double>(), 1e-5);
        QCOMPARE(first["bytes_communicated"].get<std::int64_t>(), std::int64_t{9007199254740993});
        QCOMPARE(first["grad_norm_before"].size(), std::size_t{2});
        QCOMPARE(first["grad_norm_before"][1].get<double>(), 2.0);
        QCOMPARE(first["replica_loss"][1].get<double>(), 0.0);  // "-0": JSON readers take it as the integer 0
        QVERIFY(!first.contains("test_loss"));
        const json second = json::parse(lines[1].toStdString());
        QVERIFY(second["loss"].is_null());
        QVERIFY(second["grad_norm_before"][0].is_null());
        QCOMPARE(second["grad_norm_before"][1].get<double>(), 1e300);
        QCOMPARE(second["test_accuracy"].get<double>(), 0.875);
    }

    void metricsNumbersRoundTrip() {
        // Random bit patterns: every finite double must read back bit for bit.
        QTemporaryDir folder;
        const QString path = folder.filePath("m.jsonl");
        auto writer = MetricsWriter::open(path.toStdString());
        QVERIFY(writer.ok());
        std::mt19937_64 random(7);
        std::vector<double> written;
        MetricsRecord record;
        while (written.size() < 3000) {
            const double value = std::bit_cast<double>(random());
            if (!std::isfinite(value)) continue;
            written.push_back(value);
            record.step = static_cast<std::int64_t>(written.size());
            record.loss = value;
            record.replicaLoss = {value, value / 3.0};
            writer->write(record);
        }
        QVERIFY(writer->close().ok());
        const QList<QByteArray> lines = linesOf(path);
        QCOMPARE(lines.size(), static_cast<qsizetype>(written.size()));
        for (std::size_t i = 0; i < written.size(); ++i) {
            const json line = json::parse(lines[static_cast<qsizetype>(i)].toStdString());
            QCOMPARE(std::bit_cast<std::uint64_t>(line["loss"].get<double>()), std::bit_cast<std::uint64_t>(written[i]));
            QCOMPARE(std::bit_cast<std::uint64_t>(line["replica_loss"][1].get<double>()), std::bit_cast<std::uint64_t>(written[i] / 3.0));
        }
    }

    void metricsErrors() {
        QTemporaryDir folder;
        const QString missing = folder.filePath("nope/m.jsonl");
        QCOMPARE(errorText(MetricsWriter::open(missing.toStdString()).error()),
                 missing + ": cannot create a temporary file in \"" + folder.filePath("nope") + "\": No such file or directory");

        const QString path = folder.filePath("m.jsonl");
        auto writer = MetricsWriter::open(path.toStdString());
        QVERIFY(writer.ok());
        QVERIFY(writer->close().ok());
        QCOMPARE(errorText(writer->close().error()), path + ": already closed");
        writer->write(sampleRecord());  // ignored after close
        QCOMPARE(readAll(path), QByteArray());

        // A full disk (here: a file-size limit) surfaces at close(), naming the file.
        auto limited = MetricsWriter::open(path.toStdString());
        QVERIFY(limited.ok());
        Status closed = Ok{};
        {
            const FileSizeLimit limit(4096);
            QVERIFY(limit.active());
            for (int i = 0; i < 10000; ++i) limited->write(sampleRecord());
            closed = limited->close();
        }
        QVERIFY(!closed.ok());
        QCOMPARE(errorText(closed.error()), path + ": cannot write: File too large");
    }

    void metricsThroughput() {
        QTemporaryDir folder;
        const QString path = folder.filePath("m.jsonl");
        auto writer = MetricsWriter::open(path.toStdString());
        QVERIFY(writer.ok());
        MetricsRecord record = sampleRecord();
        record.gradNormBefore.assign(8, 0.123456789);
        record.gradNormAfter.assign(8, 0.987654321);
        record.replicaLoss.assign(8, 2.3025850929940455);
        constexpr int kLines = 100000;
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < kLines; ++i) {
            record.step = i;
            record.loss = 1.0 / (i + 1);
            writer->write(record);
        }
        QVERIFY(writer->close().ok());
        const double seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
        qInfo("%d metrics lines (8 replicas) in %.3f s: %.0f lines/s", kLines, seconds, kLines / seconds);
#ifdef NDEBUG  // optimized builds only: sanitizer builds are several times slower
        QVERIFY2(seconds < 5.0, "metrics writing is far slower than 50k lines/s");
#endif
        QCOMPARE(linesOf(path).size(), kLines);
    }

    // A GPU run's bytes are the ring all-reduce's formula, not a count: the metrics line and the
    // trace's span say so; a counted run's lines stay as they were.
    void ringFormulaBytesAreLabelled() {
        QTemporaryDir folder;
        const QString metrics = folder.filePath("m.jsonl");
        auto writer = MetricsWriter::open(metrics.toStdString());
        QVERIFY(writer.ok());
        MetricsRecord record = sampleRecord();
        writer->write(record);
        record.bytesFromRingFormula = true;
        writer->write(record);
        QVERIFY(writer->close().ok());
        const QList<QByteArray> lines = linesOf(metrics);
        QCOMPARE(lines.size(), 2);
        QVERIFY(!json::parse(lines[0].toStdString()).contains("bytes_from"));
        QVERIFY2(lines[1].contains(R"("bytes_communicated":9007199254740993,"bytes_from":"ring_formula",)"), lines[1].constData());

        const QString trace = folder.filePath("t.json");
        auto spans = ChromeTraceWriter::open(trace.toStdString(), "gpu", devices());
        QVERIFY(spans.ok());
        spans->add({0, "all_reduce", "communication", 1, 1.0, 2.0, -1, 0, 4096, true});
        spans->add({0, "all_reduce", "communication", 1, 4.0, 2.0, -1, 0, 4096, false});
        QVERIFY(spans->close().ok());
        const json events = json::parse(readAll(trace).toStdString())["traceEvents"];
        int labelled = 0, counted = 0;
        for (const json& event : events) {
            if (!event.contains("args") || !event["args"].contains("bytes")) continue;
            QCOMPARE(event["args"]["bytes"].get<std::int64_t>(), std::int64_t{4096});
            if (event["args"].value("bytes_from", "") == "ring_formula")
                ++labelled;
            else
                ++counted;
        }
        QCOMPARE(labelled, 1);
        QCOMPARE(counted, 1);
    }

    void traceIsValidAndExact() {
        QTemporaryDir folder;
        const QString path = folder.filePath("t.json");
        const std::vector<std::string> devices{"cpu:0", "cpu:1"};
        auto writer = ChromeTraceWriter::open(path.toStdString(), "toy \"run\"", devices);
        QVERIFY(writer.ok());
        writer->add({0, "compute", "", 1, 12.5, 3.25});
        writer->add({1, "communication", "allreduce", 1, 15.75, 0.5});
        writer->add({1, "idle", "", 2, 16.25, -1.0});                                         // negative duration becomes 0
        writer->add({0, "optimizer", "", 2, std::numeric_limits<double>::quiet_NaN(), 1.0});  // dropped
        writer->add({0, "bad\xFFname\n", "", 3, 1e6, 0.001});
        QCOMPARE(writer->spanCount(), std::int64_t{4});
        QCOMPARE(writer->droppedCount(), std::int64_t{1});
        QVERIFY(!QFile::exists(path));  // streamed to a nameless staging file until close()
        QCOMPARE(entriesOf(folder.path()).size(), 0);
        QVERIFY(writer->close().ok());
        QCOMPARE(entriesOf(folder.path()), QStringList{"t.json"});

        const json trace = json::parse(readAll(path).toStdString());
        QCOMPARE(trace["displayTimeUnit"].get<std::string>(), std::string("ms"));
        const json& events = trace["traceEvents"];
        QCOMPARE(events.size(), std::size_t{1 + 2 * 2 + 4});
        QCOMPARE(
            events[0].dump(),
            // Not a raw string: moc reads a backslash-quote inside one as the literal's end and
            // drops every slot after it (four slots below never ran while this was one).
            std::string("{\"args\":{\"name\":\"DistLab toy \\\"run\\\"\"},\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0}"));
        QCOMPARE(events[1].dump(), std::string(R"({"args":{"name":"cpu:0"},"name":"thread_name","ph":"M","pid":1,"tid":0})"));
        QCOMPARE(events[2].dump(), std::string(R"({"args":{"sort_index":0},"name":"thread_sort_index","ph":"M","pid":1,"tid":0})"));
        QCOMPARE(events[3].dump(), std::string(R"({"args":{"name":"cpu:1"},"name":"thread_name","ph":"M","pid":1,"tid":1})"));
        QCOMPARE(events[4].dump(), std::string(R"({"args":{"sort_index":1},"name":"thread_sort_index","ph":"M","pid":1,"tid":1})"));
        QCOMPARE(events[5].dump(),
                 std::string(R"({"args":{"step":1},"cat":"compute","dur":3.25,"name":"compute","ph":"X","pid":1,"tid":0,"ts":12.5})"));
        QCOMPARE(events[6]["cat"].get<std::string>(), std::string("allreduce"));
        QCOMPARE(events[6]["ts"].get<double>(), 15.75);
        QCOMPARE(events[6]["tid"].get<int>(), 1);
        QCOMPARE(events[7]["name"].get<std::string>(), std::string("idle"));
        QCOMPARE(events[7]["dur"].get<double>(), 0.0);
        QCOMPARE(events[7]["args"]["step"].get<int>(), 2);
        QCOMPARE(events[8]["name"].get<std::string>(), std::string("bad\xEF\xBF\xBDname\n"));
        QCOMPARE(events[8]["ts"].get<double>(), 1e6);
        QCOMPARE(events[8]["dur"].get<double>(), 0.001);
    }

    void traceWithoutCloseLeavesNothing() {
        QTemporaryDir folder;
        const QString path = folder.filePath("t.json");
        QFile old(path);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("previous trace");
        old.close();
        {
            const std::vector<std::string> devices{"cpu:0"};
            auto writer = ChromeTraceWriter::open(path.toStdString(), "run", devices);
            QVERIFY(writer.ok());
            writer->add({0, "compute", "", 0, 0.0, 1.0});
        }
        QCOMPARE(readAll(path), QByteArray("previous trace"));
        QCOMPARE(entriesOf(folder.path()), QStringList{"t.json"});

        const QString missing = folder.filePath("nope/t.json");
        QCOMPARE(errorText(ChromeTraceWriter::open(missing.toStdString(), "run", devices()).error()),
                 missing + ": cannot create a temporary file in \"" + folder.filePath("nope") + "\": No such file or directory");
    }

    // The files change only when published, each time to a whole version: a run that is dropped
    // (killed, or rejected before its first publish) leaves the last one.
    void publishReplacesWithWholeVersionsOnly() {
        QTemporaryDir folder;
        const QString metrics = folder.filePath("m.jsonl");
        const QString trace = folder.filePath("t.json");
        QFile old(metrics);
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("{\"step\":0}\n");
        old.close();
        {
            auto lines = MetricsWriter::open(metrics.toStdString());
            auto spans = ChromeTraceWriter::open(trace.toStdString(), "run", devices());
            QVERIFY(lines.ok() && spans.ok());
            lines->write(sampleRecord());
            spans->add({0, "compute", "", 1, 0.0, 1.0});
            QCOMPARE(readAll(metrics), QByteArray("{\"step\":0}\n"));
            QVERIFY(!QFile::exists(trace));
            QVERIFY(lines->publish().ok());
            QVERIFY(spans->publish().ok());
            QCOMPARE(linesOf(metrics).size(), 1);
            QCOMPARE(json::parse(readAll(trace).toStdString())["traceEvents"].size(), std::size_t{4});
            lines->write(sampleRecord());
            spans->add({0, "compute", "", 2, 1.0, 1.0});
            QVERIFY(spans->publish().ok());
            QCOMPARE(json::parse(readAll(trace).toStdString())["traceEvents"].size(), std::size_t{5});
            spans->add({0, "compute", "", 3, 2.0, 1.0});
        }
        QCOMPARE(linesOf(metrics).size(), 1);
        QCOMPARE(json::parse(readAll(trace).toStdString())["traceEvents"].size(), std::size_t{5});
        QCOMPARE(entriesOf(folder.path()), (QStringList{"m.jsonl", "t.json"}));
    }

    void traceCloseTwiceFails() {
        QTemporaryDir folder;
        const QString path = folder.filePath("t.json");
        auto writer = ChromeTraceWriter::open(path.toStdString(), "run", devices());
        QVERIFY(writer.ok());
        QVERIFY(writer->close().ok());
        QCOMPARE(errorText(writer->close().error()), path + ": the trace was already closed");
        const json trace = json::parse(readAll(path).toStdString());
        QCOMPARE(trace["traceEvents"].size(), std::size_t{3});
    }

    void longTraceStaysValid() {
        QTemporaryDir folder;
        const QString path = folder.filePath("t.json");
        const std::vector<std::string> names{"cpu:0", "cpu:1", "cpu:2", "cpu:3"};
        auto writer = ChromeTraceWriter::open(path.toStdString(), "long", names);
        QVERIFY(writer.ok());
        constexpr std::int64_t kSteps = 25000;
        double now = 0.0;
        for (std::int64_t step = 0; step < kSteps; ++step) {
            for (int device = 0; device < 4; ++device) {
                writer->add({device, "compute", "", step, now, 10.0 + device});
                writer->add({device, "communication", "", step, now + 14.0, 2.0});
            }
            now += 17.0;
        }
        QVERIFY(writer->close().ok());
        const json trace = json::parse(readAll(path).toStdString());
        QCOMPARE(trace["traceEvents"].size(), std::size_t{1 + 2 * 4 + kSteps * 8});
        const json& last = trace["traceEvents"].back();
        QCOMPARE(last["args"]["step"].get<std::int64_t>(), kSteps - 1);
        QCOMPARE(last["ts"].get<double>(), 17.0 * (kSteps - 1) + 14.0);
    }

private:
    static std::vector<std::string> devices() { return {"cpu:0"}; }
};

QTEST_APPLESS_MAIN(TestMetricsTrace)
#include "test_metrics_trace.moc"
