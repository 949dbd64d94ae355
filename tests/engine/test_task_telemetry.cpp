// The telemetry a cluster's tasks stream to the app: protobuf's delimited frames read back as sent,
// whatever pieces the bytes arrive in; what is not task telemetry refused with a reason; and the
// steps of several tasks joined into one run's records with worked numbers.
#include <QtTest>

#include <google/protobuf/io/coded_stream.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "distlab/telemetry/cluster_steps.hpp"
#include "distlab/telemetry/task_telemetry.hpp"
#include "distlab/telemetry/task_telemetry_sender.hpp"

using namespace distlab;

namespace {

TaskHello exampleHello() {
    TaskHello hello;
    hello.token = "0123456789abcdef0123456789abcdef";
    hello.task = "worker:1";
    hello.firstReplica = 2;
    hello.replicas = 2;
    hello.globalReplicas = 4;
    hello.pid = 4242;
    hello.clockOriginUnixNs = 1'790'000'000'000'000'000;
    hello.configHash = "3cc9a1b2ca42e001";
    hello.firstStep = 10;
    hello.steps = 500;
    return hello;
}

// A 2-2-... model's picture: a 2 x 2 kernel and a bias of 2, a 2 x 2 boundary grid.
ModelSnapshot exampleSnapshot() {
    ModelSnapshot snapshot;
    snapshot.step = 40;
    snapshot.parameters = {ParameterInfo{"dense_0/kernel", {2, 2}, 0, 4}, ParameterInfo{"dense_0/bias", {2}, 4, 2}};
    snapshot.values = {0.5f, -1.25f, 2.0f, 0.0f, 0.125f, -3.5f};
    snapshot.layerWidths = {2, 2};
    snapshot.gridResolution = 2;
    snapshot.gridMinX = -1.5;
    snapshot.gridMaxX = 1.5;
    snapshot.gridMinY = -2.0;
    snapshot.gridMaxY = 2.5;
    snapshot.grid = {0.25f, 0.5f, 0.75f, 1.0f};
    return snapshot;
}

// One replica's record, its times in microseconds: start, compute end, communication end, update end.
ReplicaRecord lane(int replica, std::int64_t step, std::int64_t start, std::int64_t compute, std::int64_t comm, std::int64_t update,
                   float watched) {
    ReplicaRecord record;
    record.step = step;
    record.replica = replica;
    record.startNs = start * 1000;
    record.computeEndNs = compute * 1000;
    record.commEndNs = comm * 1000;
    record.updateEndNs = update * 1000;
    record.stepEndNs = update * 1000;
    record.watched[0] = watched;
    record.localLoss = 0.5f + static_cast<float>(replica);
    record.bytesSent = 1000 + replica;
    return record;
}

TaskStep taskStep(std::int64_t step, std::vector<ReplicaRecord> replicas) {
    TaskStep out;
    out.step.step = step;
    out.step.loss = 0.25;
    out.step.accuracy = 0.75;
    out.step.samples = 32;
    out.step.learningRate = 0.01f;
    out.step.startNs = replicas.front().startNs;
    out.step.endNs = replicas.front().stepEndNs;
    for (ReplicaRecord& record : replicas) record.stepEndNs = out.step.endNs;
    out.replicas = std::move(replicas);
    return out;
}

std::vector<TaskMessage> readAll(TaskTelemetryReader& reader) {
    std::vector<TaskMessage> messages;
    for (;;) {
        auto next = reader.next();
        if (!next) QTest::qFail(next.error().message.c_str(), __FILE__, __LINE__);
        if (!next || !next->has_value()) return messages;
        messages.push_back(std::move(**next));
    }
}

std::string varint(std::uint32_t value) {
    std::string out(5, '\0');
    auto* end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(value, reinterpret_cast<std::uint8_t*>(out.data()));
    out.resize(static_cast<std::size_t>(end - reinterpret_cast<std::uint8_t*>(out.data())));
    return out;
}

/// A listening socket on a free loopback port, and the one connection it accepts.
struct Listener {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    int port = 0;
    Listener() {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
        ::listen(fd, 1);
        socklen_t length = sizeof(address);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
        port = ntohs(address.sin_port);
    }
    ~Listener() { ::close(fd); }
    std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

/// Reads everything from `fd` until it closes.
std::string readAllFrom(int fd) {
    std::string bytes;
    char buffer[65536];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof(buffer))) > 0;) bytes.append(buffer, static_cast<std::size_t>(n));
    return bytes;
}

}  // namespace

class TestTaskTelemetry : public QObject {
    Q_OBJECT
private slots:
    void everyMessageReadsBackAsSentByteByByte() {
        const TaskHello hello = exampleHello();
        TaskStep step = taskStep(11, {lane(2, 11, 100, 300, 450, 500, 1.5f), lane(3, 11, 110, 320, 450, 510, -2.0f)});
        step.step.evaluation.step = 11;
        step.step.evaluation.testLoss = 0.125;
        step.step.evaluation.testAccuracy = 0.875;
        step.step.evaluation.hasTest = true;
        const std::string stream = encodeTaskMessage(hello) + encodeTaskMessage(step) +
                                   encodeTaskMessage(TaskStateMessage{TaskPhase::Failed, "lost task worker:0"}) +
                                   encodeTaskMessage(TaskSummaryMessage{R"({"steps":11})"}) + encodeTaskMessage(exampleSnapshot()) +
                                   encodeTaskMessage(DataPoints{{0.5f, -1.0f, 2.0f, 3.0f}, {-0.25f, 0.75f}, {1.0f, 0.0f}, {1.0f}, true});
        // A slow socket: one byte at a time; every message comes whole, once.
        TaskTelemetryReader reader;
        std::vector<TaskMessage> messages;
        for (char byte : stream) {
            reader.append(std::string_view(&byte, 1));
            for (TaskMessage& message : readAll(reader)) messages.push_back(std::move(message));
        }
        QCOMPARE(reader.buffered(), std::size_t{0});
        QCOMPARE(messages.size(), std::size_t{6});
        const auto& backHello = std::get<TaskHello>(messages[0]);
        QCOMPARE(backHello.token, hello.token);
        QCOMPARE(backHello.task, std::string("worker:1"));
        QCOMPARE(backHello.firstReplica, 2);
        QCOMPARE(backHello.globalReplicas, 4);
        QCOMPARE(backHello.clockOriginUnixNs, hello.clockOriginUnixNs);
        QCOMPARE(backHello.configHash, hello.configHash);
        QCOMPARE(backHello.firstStep, std::int64_t{10});
        QCOMPARE(backHello.steps, std::int64_t{500});
        const auto& backStep = std::get<TaskStep>(messages[1]);
        QCOMPARE(backStep.step.step, std::int64_t{11});
        QCOMPARE(backStep.step.loss, 0.25);
        QCOMPARE(backStep.step.evaluation.testAccuracy, 0.875);
        QCOMPARE(backStep.replicas.size(), std::size_t{2});
        QCOMPARE(backStep.replicas[1].replica, 3);
        QCOMPARE(backStep.replicas[1].computeEndNs, std::int64_t{320'000});
        QCOMPARE(backStep.replicas[1].watched[0], -2.0f);
        QCOMPARE(backStep.replicas[1].bytesSent, std::int64_t{1003});
        QCOMPARE(backStep.replicas[1].stepEndNs, backStep.step.endNs);
        QCOMPARE(std::get<TaskStateMessage>(messages[2]).phase, TaskPhase::Failed);
        QCOMPARE(std::get<TaskStateMessage>(messages[2]).message, std::string("lost task worker:0"));
        QCOMPARE(std::get<TaskSummaryMessage>(messages[3]).json, std::string(R"({"steps":11})"));
        const ModelSnapshot sent = exampleSnapshot();
        const auto& snapshot = std::get<ModelSnapshot>(messages[4]);
        QCOMPARE(snapshot.step, sent.step);
        QCOMPARE(snapshot.parameters.size(), std::size_t{2});
        QCOMPARE(snapshot.parameters[1].name, std::string("dense_0/bias"));
        QCOMPARE(snapshot.parameters[0].shape, sent.parameters[0].shape);
        QCOMPARE(snapshot.parameters[1].offset, std::int64_t{4});
        QCOMPARE(snapshot.values, sent.values);
        QCOMPARE(snapshot.layerWidths, sent.layerWidths);
        QCOMPARE(snapshot.gridResolution, 2);
        QCOMPARE(snapshot.gridMaxY, 2.5);
        QCOMPARE(snapshot.grid, sent.grid);
        const auto& points = std::get<DataPoints>(messages[5]);
        QCOMPARE(points.train, (std::vector<float>{0.5f, -1.0f, 2.0f, 3.0f}));
        QCOMPARE(points.trainValue, (std::vector<float>{1.0f, 0.0f}));
        QCOMPARE(points.test, (std::vector<float>{-0.25f, 0.75f}));
        QCOMPARE(points.testValue, (std::vector<float>{1.0f}));
        QVERIFY(points.classification);
    }

    void aStepFromAReportNumbersItsReplicasGlobally() {
        StepReport report;
        report.step = 7;
        report.loss = 0.5;
        report.samples = 32;
        report.replicas.resize(2);
        report.replicas[0].lossSum = 4.0;
        report.replicas[0].examples = 8;
        report.replicas[1].bytesSent = 77;
        TaskTelemetryReader reader;
        reader.append(encodeTaskStep(report, 6, std::nullopt));
        const std::vector<TaskMessage> messages = readAll(reader);
        QCOMPARE(messages.size(), std::size_t{1});
        const auto& step = std::get<TaskStep>(messages[0]);
        QCOMPARE(step.replicas[0].replica, 6);
        QCOMPARE(step.replicas[1].replica, 7);
        QCOMPARE(step.replicas[0].localLoss, 0.5f);  // 4 / 8
        QCOMPARE(step.replicas[1].bytesSent, std::int64_t{77});
        QCOMPARE(step.step.evaluation.step, std::int64_t{0});  // no evaluation
    }

    void whatIsNotTaskTelemetryIsRefusedWithAReason() {
        struct Case {
            const char* name;
            std::string bytes;
            const char* why;
        };
        const std::vector<Case> cases{
            {"a huge length", varint(2'000'000'000) + "x", "at most"},
            {"an empty frame", varint(0), "empty frame"},
            {"not protobuf", varint(4) + std::string("\xff\xff\xff\xff", 4), "not a task message"},
            {"a length that never ends", std::string("\xff\xff\xff\xff\xff\xff", 6), "not a varint"},
            {"no known message", varint(2) + std::string("\x78\x01", 2), "no known kind"},  // field 15: not in the oneof
            {"a parameter outside the values",
             [] {
                 ModelSnapshot snapshot = exampleSnapshot();
                 snapshot.parameters[1].offset = 5;  // 5 + 2 > 6
                 return encodeTaskMessage(snapshot);
             }(),
             "outside its values"},
            {"a shape that is not the size",
             [] {
                 ModelSnapshot snapshot = exampleSnapshot();
                 snapshot.parameters[0].shape = {3, 2};  // 6 elements, size 4
                 return encodeTaskMessage(snapshot);
             }(),
             "not its size"},
            {"a grid of the wrong size",
             [] {
                 ModelSnapshot snapshot = exampleSnapshot();
                 snapshot.grid.pop_back();
                 return encodeTaskMessage(snapshot);
             }(),
             "grid of a bad size"},
            {"points without their values", encodeTaskMessage(DataPoints{{0.5f, -1.0f, 2.0f, 3.0f}, {}, {1.0f}, {}, true}),
             "data points of a bad count"},
            {"replicas out of range",
             [] {
                 TaskHello hello = exampleHello();
                 hello.firstReplica = 3;  // 3 + 2 > 4
                 return encodeTaskMessage(hello);
             }(),
             "out of range"},
        };
        for (const Case& c : cases) {
            TaskTelemetryReader reader;
            reader.append(c.bytes);
            auto next = reader.next();
            QVERIFY2(!next, c.name);
            QVERIFY2(next.error().message.find(c.why) != std::string::npos, (std::string(c.name) + ": " + next.error().message).c_str());
            // The reader stays failed: the connection is dropped, never resynchronized.
            reader.append(encodeTaskMessage(TaskSummaryMessage{"{}"}));
            QVERIFY2(!reader.next(), c.name);
        }
        // A truncated frame is not an error: its rest may come.
        const std::string whole = encodeTaskMessage(exampleHello());
        TaskTelemetryReader reader;
        reader.append(std::string_view(whole).substr(0, whole.size() - 1));
        auto next = reader.next();
        QVERIFY(next && !next->has_value());
    }

    void theSenderDeliversEveryFrameInOrderThenDropsStepsOnlyWhenTheAppFallsBehind() {
        Listener listener;
        constexpr int kSteps = 3000;
        std::string received;
        {
            auto sender = TaskTelemetrySender::connect(listener.address(), 5.0);
            QVERIFY2(sender, sender ? "" : sender.error().message.c_str());
            const int connection = ::accept(listener.fd, nullptr, nullptr);
            QVERIFY(connection >= 0);
            (*sender)->sendAlways(encodeTaskMessage(exampleHello()));
            for (int s = 1; s <= kSteps; ++s) (*sender)->sendStep(encodeTaskMessage(taskStep(s, {lane(2, s, 0, 1, 2, 3, 0.0f)})));
            (*sender)->sendAlways(encodeTaskMessage(TaskSummaryMessage{"{}"}));
            sender->reset();  // flushes, closes
            received = readAllFrom(connection);
            ::close(connection);
        }
        TaskTelemetryReader reader;
        reader.append(received);
        const std::vector<TaskMessage> messages = readAll(reader);
        // Fewer than the queue holds were sent: none dropped, all in order.
        QCOMPARE(messages.size(), std::size_t{kSteps + 2});
        QVERIFY(std::holds_alternative<TaskHello>(messages.front()));
        for (int s = 1; s <= kSteps; ++s) QCOMPARE(std::get<TaskStep>(messages[static_cast<std::size_t>(s)]).step.step, std::int64_t{s});
        QVERIFY(std::holds_alternative<TaskSummaryMessage>(messages.back()));

        // An app that reads nothing: the queue stays bounded, steps past it are dropped and counted,
        // and the never-dropped frames still queue.
        Listener stalled;
        auto sender = TaskTelemetrySender::connect(stalled.address(), 5.0);
        QVERIFY(sender);
        const int connection = ::accept(stalled.fd, nullptr, nullptr);
        const std::string big(8192, 'x');
        for (std::size_t s = 0; s < 4 * TaskTelemetrySender::kMaxQueuedSteps; ++s)
            (*sender)->sendStep(encodeTaskMessage(TaskSummaryMessage{big}));
        QTRY_VERIFY((*sender)->droppedSteps() > 0);
        ::close(connection);
    }

    void aSenderWithNoAppToReachSaysWhere() {
        int port = 0;
        {
            Listener closed;  // a port free a moment ago, nobody listening on it now
            port = closed.port;
        }
        auto sender = TaskTelemetrySender::connect("127.0.0.1:" + std::to_string(port), 2.0);
        QVERIFY(!sender);
        QVERIFY2(sender.error().message.find("--telemetry: cannot reach the app at 127.0.0.1:" + std::to_string(port)) != std::string::npos,
                 sender.error().message.c_str());
    }

    void tasksStepsJoinIntoOneRunsRecords() {
        // Two tasks of two replicas each. Task 1's clock started 1 ms (1000 us) after task 0's, so
        // its times move 1000 us later on the run's clock.
        ClusterStepJoin join(2);
        join.add(0, taskStep(1, {lane(0, 1, 0, 400, 600, 700, 1.0f), lane(1, 1, 0, 400, 600, 700, 1.0f)}), 0);
        QVERIFY(join.takeReady().empty());  // waits for task 1
        join.add(1, taskStep(1, {lane(2, 1, -1000, -500, -400, -300, 1.25f), lane(3, 1, -1000, -600, -400, -300, 0.75f)}), 1'000'000);
        join.add(0, taskStep(2, {lane(0, 2, 800, 900, 1000, 1100, 2.0f), lane(1, 2, 800, 900, 1000, 1100, 2.0f)}), 0);
        std::vector<ClusterStep> ready = join.takeReady();
        QCOMPARE(ready.size(), std::size_t{1});  // step 2 still waits for task 1
        const ClusterStep& step = ready[0];
        QCOMPARE(step.step.step, std::int64_t{1});
        QCOMPARE(step.replicas.size(), std::size_t{4});
        QCOMPARE(step.replicas[2].replica, 2);
        QCOMPARE(step.replicas[2].startNs, std::int64_t{0});             // -1000 us + 1000 us
        QCOMPARE(step.replicas[3].computeEndNs, std::int64_t{400'000});  // -600 + 1000
        QCOMPARE(step.step.startNs, std::int64_t{0});
        QCOMPARE(step.step.endNs, std::int64_t{700'000});
        QCOMPARE(step.step.durationNs, std::int64_t{700'000});
        for (const ReplicaRecord& record : step.replicas) QCOMPARE(record.stepEndNs, std::int64_t{700'000});
        // Compute: 400, 400, 500, 400 us -> mean 425; communication: 200, 200, 100, 200 -> 175;
        // optimizer: 100 each; idle: 0, 0, 0, 0.
        QCOMPARE(step.step.phases[Phase::Compute], 425'000.0);
        QCOMPARE(step.step.phases[Phase::Communication], 175'000.0);
        QCOMPARE(step.step.phases[Phase::Optimizer], 100'000.0);
        QCOMPARE(step.step.phases[Phase::Idle], 0.0);
        QCOMPARE(step.step.watchedSpread, 0.5f);  // 1.25 - 0.75
        QVERIFY(step.step.hasLanes);
        // Task 1 ends: step 2 goes on with task 0's replicas only.
        join.taskEnded(1);
        ready = join.takeReady();
        QCOMPARE(ready.size(), std::size_t{1});
        QCOMPARE(ready[0].replicas.size(), std::size_t{2});
        QCOMPARE(join.pending(), std::size_t{0});
    }

    void aTaskFarBehindDoesNotHoldTheOthers() {
        ClusterStepJoin join(2);
        const auto steps = static_cast<std::int64_t>(ClusterStepJoin::kMaxPendingSteps) + 1;
        for (std::int64_t s = 1; s <= steps; ++s) join.add(0, taskStep(s, {lane(0, s, s, s + 1, s + 2, s + 3, 0.0f)}), 0);
        const std::vector<ClusterStep> ready = join.takeReady();
        QCOMPARE(ready.size(), std::size_t{1});  // the oldest went on without task 1
        QCOMPARE(join.pending(), ClusterStepJoin::kMaxPendingSteps);
        // Task 1's report of it, too late, is dropped rather than waited for again.
        join.add(1, taskStep(1, {lane(1, 1, 1, 2, 3, 4, 0.0f)}), 0);
        QCOMPARE(join.pending(), ClusterStepJoin::kMaxPendingSteps);
    }
};

QTEST_GUILESS_MAIN(TestTaskTelemetry)
#include "test_task_telemetry.moc"
