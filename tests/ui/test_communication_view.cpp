// The communication view driven as a learner would, offscreen: mirrored on 4 devices with ring,
// capture one all-reduce of the real gradients and step through it (2(N−1) = 6 steps; at the end
// every replica holds the same buffer, the sum of the replicas' gradients before the reduction,
// which is also the gradient the trainer applied); switch the algorithm and the packing in the
// strategy panel and capture again (step counts as the engine's); the link table, the bus
// bandwidth and the communication share fill while training; one device has nothing to capture.
#include <QtTest>

#include <QComboBox>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>

#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include <distlab/comm/collective_trace.hpp>
#include <distlab/comm/in_process_group.hpp>
#include <distlab/config/run_config_json.hpp>

#include "bridge/all_reduce_capture.hpp"
#include "bridge/comm_capture.hpp"
#include "bridge/comm_stats.hpp"
#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "panels/explanations.hpp"
#include "panels/reduction_options.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "views/buffer_strips.hpp"
#include "views/comm_diagram.hpp"
#include "views/communication_view.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
constexpr int kReplicas = 4;

RunConfig mirrored(CrossDeviceOps algorithm, int packs = 1) {
    RunConfig config = MainWindow::defaultConfig();
    config.strategy.type = StrategyKind::Mirrored;
    for (int i = 0; i < kReplicas; ++i) config.strategy.devices.push_back(DeviceName{DeviceName::Kind::Cpu, i});
    config.strategy.crossDeviceOps = algorithm;
    config.strategy.numPacks = packs;
    return config;
}

bool idle(MainWindow& window) {
    SessionController& controller = window.controller();
    return controller.hasRun() && !controller.isLoading() && controller.state() == SessionState::Paused && controller.snapshot() != nullptr;
}

// Every replica's buffer after the last step equals replica 0's and the sum of the inputs (frame 0).
void checkReducedToTheSum(const AllReduceCapture& capture) {
    QVERIFY(capture.hasValues());
    const int last = capture.stepCount();
    const auto reduced = capture.buffer(last, 0);
    QCOMPARE(static_cast<std::int64_t>(reduced.size()), capture.elements());
    for (int r = 1; r < capture.ranks(); ++r) QVERIFY2(capture.buffer(last, r) == reduced, qPrintable(QStringLiteral("rank %1").arg(r)));
    for (std::int64_t e = 0; e < capture.elements(); ++e) {
        double sum = 0.0, magnitude = 0.0;
        for (int r = 0; r < capture.ranks(); ++r) {
            sum += capture.value(0, r, e);
            magnitude += std::abs(capture.value(0, r, e));
        }
        QVERIFY2(std::abs(reduced[static_cast<std::size_t>(e)] - sum) <= 1e-7 + 1e-5 * magnitude,
                 qPrintable(QStringLiteral("element %1: %2 vs %3").arg(e).arg(reduced[static_cast<std::size_t>(e)]).arg(sum)));
        for (int r = 0; r < capture.ranks(); ++r) {
            QCOMPARE(capture.contributions(0, r, e), 1);
            QCOMPARE(capture.contributions(last, r, e), capture.ranks());
        }
    }
    // Every algorithm moves 2(N−1) buffers' worth over all its links together.
    std::int64_t total = 0;
    for (int from = 0; from < capture.ranks(); ++from)
        for (int to = 0; to < capture.ranks(); ++to) total += capture.linkBytes(from, to);
    QCOMPARE(total, 2 * (capture.ranks() - 1) * capture.elements() * static_cast<std::int64_t>(sizeof(float)));
}
// One packed all-reduce of distinct inputs on an InProcessGroup of `ranks` threads, traced.
AllReduceCapture reduceOnGroup(int ranks, CrossDeviceOps algorithm, const std::vector<PackRange>& packs, bool snapshots) {
    InProcessGroup group(ranks, algorithm);
    CollectiveTrace::Limits limits;
    limits.eventsPerRank = 4096;
    limits.snapshotsPerRank = snapshots ? 256 : 0;
    limits.snapshotFloatsPerRank = snapshots ? 1 << 16 : 0;
    CollectiveTrace trace(ranks, limits);
    trace.setCaptureSnapshots(snapshots);
    for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&trace);
    const std::int64_t elements = packs.back().end;
    std::vector<std::vector<float>> buffers(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r)
        for (std::int64_t e = 0; e < elements; ++e) buffers[static_cast<std::size_t>(r)].push_back(static_cast<float>((r + 1) * 100 + e));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            std::span<float> buffer(buffers[static_cast<std::size_t>(r)]);
            for (std::size_t p = 0; p < packs.size(); ++p)
                group.communicator(r).allReduce(
                    buffer.subspan(static_cast<std::size_t>(packs[p].begin), static_cast<std::size_t>(packs[p].size())),
                    AllReduceOptions{ReduceOp::Sum, static_cast<int>(p)});
        });
    for (std::thread& thread : threads) thread.join();
    for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(nullptr);
    return AllReduceCapture::fromTrace(trace, algorithm, packs, 1);
}
}  // namespace

class TestCommunicationView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-comm")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1400, 900), mirrored(CrossDeviceOps::Ring));
        QTRY_VERIFY_WITH_TIMEOUT(idle(*m_window), kLoadTimeoutMs);
        m_window->views().setCurrentWidget(&m_window->communicationView());
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    // The capture model on its own: every algorithm, 2 to 5 ranks, odd sizes and packs; a rank that
    // takes no snapshot at a step (hierarchical copy on 2) keeps its buffer; without snapshots the
    // contributions still follow from the transfers.
    void captureFollowsEveryAlgorithmOnAGroup() {
        const std::vector<PackRange> packs{{0, 5}, {5, 13}};
        for (CrossDeviceOps algorithm :
             {CrossDeviceOps::Ring, CrossDeviceOps::ReductionToOneDevice, CrossDeviceOps::HierarchicalCopy, CrossDeviceOps::Tree}) {
            for (int ranks = 2; ranks <= 5; ++ranks) {
                const QString name = QStringLiteral("%1 on %2").arg(QString::fromLatin1(configName(algorithm))).arg(ranks);
                const AllReduceCapture capture = reduceOnGroup(ranks, algorithm, packs, true);
                QVERIFY2(!capture.empty(), qPrintable(name));
                QCOMPARE(capture.stepCount(), 2 * allReduceStepCount(algorithm, ranks));
                QCOMPARE(capture.frameCount(), capture.stepCount() + 1);
                for (std::int64_t e = 0; e < capture.elements(); ++e)
                    for (int r = 0; r < ranks; ++r) QCOMPARE(capture.value(0, r, e), static_cast<float>((r + 1) * 100 + e));
                checkReducedToTheSum(capture);
                // Pack 0 is done before pack 1 starts: at the last step of pack 0, pack 1 is still the input.
                const int packZeroDone = capture.stepsPerPack();
                for (int r = 0; r < ranks; ++r) {
                    QCOMPARE(capture.contributions(packZeroDone, r, 0), ranks);
                    QCOMPARE(capture.contributions(packZeroDone, r, 5), 1);
                    QCOMPARE(capture.value(packZeroDone, r, 5), static_cast<float>((r + 1) * 100 + 5));
                }
                const AllReduceCapture bare = reduceOnGroup(ranks, algorithm, packs, false);
                QVERIFY(!bare.hasValues());
                QVERIFY(bare.buffer(bare.stepCount(), 0).empty());
                QCOMPARE(bare.allTransfers().size(), capture.allTransfers().size());
                for (std::int64_t e = 0; e < bare.elements(); ++e)
                    for (int r = 0; r < ranks; ++r) QCOMPARE(bare.contributions(bare.stepCount(), r, e), ranks);
            }
        }
    }

    void ringStepThroughEndsWithTheSumOnEveryReplica() {
        MainWindow& window = *m_window;
        CommunicationView& view = window.communicationView();
        QVERIFY(view.capture().empty());
        QVERIFY(view.captureNext());
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        const AllReduceCapture& capture = view.capture();
        QCOMPARE(capture.ranks(), kReplicas);
        QCOMPARE(capture.algorithm(), CrossDeviceOps::Ring);
        QCOMPARE(capture.stepCount(), 2 * (kReplicas - 1));
        QCOMPARE(capture.stepCount(), allReduceStepCount(CrossDeviceOps::Ring, kReplicas));
        QCOMPARE(capture.packs().size(), std::size_t{1});
        QCOMPARE(capture.trainingStep(), std::int64_t{1});  // the paused run took exactly one step for it
        QCOMPARE(window.controller().stepsDone(), std::int64_t{1});
        QVERIFY(capture.hasValues());
        QVERIFY(capture.buffer(0, 0) != capture.buffer(0, 1));  // each replica's own shard, own gradient

        QCOMPARE(view.frame(), 0);
        QVERIFY(view.frameText().startsWith(QStringLiteral("Input")));
        for (int k = 1; k <= capture.stepCount(); ++k) {
            view.stepForward();
            QCOMPARE(view.frame(), k);
            QVERIFY2(view.frameText().endsWith(QString::fromLatin1(allReduceStepName(CrossDeviceOps::Ring, kReplicas, k - 1))),
                     qPrintable(view.frameText()));
            // One chunk per device per step, always from its predecessor on the ring.
            const auto transfers = capture.transfers(k);
            QCOMPARE(transfers.size(), std::size_t{kReplicas});
            for (const CapturedTransfer& t : transfers) {
                QCOMPARE(t.from, (t.to + kReplicas - 1) % kReplicas);
                QCOMPARE(t.kind, k < kReplicas ? TransferKind::Reduce : TransferKind::Copy);
                QVERIFY(t.end - t.begin >= capture.elements() / kReplicas);
            }
        }
        view.stepForward();
        QCOMPARE(view.frame(), capture.stepCount());
        // After the reduce-scatter each device holds the full sum of exactly one chunk: chunk rank + 1.
        const int scattered = kReplicas - 1;
        for (int r = 0; r < kReplicas; ++r) {
            std::int64_t full = 0;
            for (std::int64_t e = 0; e < capture.elements(); ++e) full += capture.contributions(scattered, r, e) == kReplicas ? 1 : 0;
            QVERIFY(full >= capture.elements() / kReplicas && full <= capture.elements() / kReplicas + 1);
        }
        checkReducedToTheSum(capture);

        // The reduced buffer is the gradient the trainer applied on every replica.
        const auto reduced = capture.buffer(capture.stepCount(), 0);
        QVERIFY(onSessionThread(window.controller(), [&](Trainer& trainer) {
            for (int r = 0; r < kReplicas; ++r) {
                const auto grads = trainer.replicaModel(r).store().grads();
                QVERIFY(std::equal(grads.begin(), grads.end(), reduced.begin(), reduced.end()));
            }
        }));

        // The pictures: one arrow per device at a ring step, every chunk painted.
        view.setFrame(1);
        QTRY_COMPARE_WITH_TIMEOUT(view.diagram().arrowsPainted(), kReplicas, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(view.strips().chunksPainted() >= kReplicas * kReplicas, 5000);
        view.stepBack();
        QCOMPARE(view.frame(), 0);
        // The value table: a few elements on every replica, and their sum.
        view.setFrame(capture.stepCount());
        QTableWidget& values = view.valueTable();
        QCOMPARE(values.columnCount(), kReplicas + 1);
        QVERIFY(values.rowCount() >= 2);
        for (int row = 0; row < values.rowCount(); ++row) {
            const double sum = values.item(row, kReplicas)->text().toDouble();
            for (int r = 0; r < kReplicas; ++r)
                QVERIFY(std::abs(values.item(row, r)->text().toDouble() - sum) <= 1e-4 * std::max(1.0, std::abs(sum)));
        }

        // Links: ring devices talk only to their successor; each row adds up to what telemetry says
        // the device sent, less the step's figures (loss sum, correct, examples: 12 bytes to each
        // peer) that ride along with the last pack and are not part of the gradient's picture.
        for (int from = 0; from < kReplicas; ++from)
            for (int to = 0; to < kReplicas; ++to) QCOMPARE(capture.linkBytes(from, to) > 0, to == (from + 1) % kReplicas);
        QTRY_VERIFY_WITH_TIMEOUT(view.stats().stepsTaken() >= 1, 5000);
        for (int from = 0; from < kReplicas; ++from) {
            std::int64_t row = 0;
            for (int to = 0; to < kReplicas; ++to) row += capture.linkBytes(from, to);
            QCOMPARE(view.stats().lastBytesSent(from), row + 12 * (kReplicas - 1));
        }
        // The link list: the ring's 4 links, each with its bytes, then the step figures' 12 bytes
        // every device sends each peer; the device table: what each sent.
        QTableWidget& links = view.linkTable();
        QTRY_COMPARE_WITH_TIMEOUT(links.rowCount(), kReplicas + 1, 5000);
        for (int row = 0; row < kReplicas; ++row) {
            QCOMPARE(links.item(row, 0)->text(), QStringLiteral("cpu:%1 → cpu:%2").arg(row).arg((row + 1) % kReplicas));
            QCOMPARE(links.item(row, 1)->text(), QStringLiteral("%1 B").arg(capture.linkBytes(row, (row + 1) % kReplicas)));
        }
        QCOMPARE(links.item(kReplicas, 1)->text(), QStringLiteral("12 B"));
        QTRY_COMPARE_WITH_TIMEOUT(view.deviceTable().rowCount(), kReplicas, 5000);
        QCOMPARE(view.deviceTable().item(0, 1)->text(), QStringLiteral("%1 B").arg(view.stats().lastBytesSent(0)));
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void playRunsThroughEveryStep() {
        CommunicationView& view = m_window->communicationView();
        QVERIFY(view.captureNext());
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        view.play();
        QVERIFY(view.playing());
        QTRY_COMPARE_WITH_TIMEOUT(view.frame(), view.capture().stepCount(), CommunicationView::kFrameMs * 10);
        QTRY_VERIFY(!view.playing());
        view.captureButton().click();  // a second capture starts at the input again
        QTRY_COMPARE_WITH_TIMEOUT(view.capture().trainingStep(), std::int64_t{2}, 10000);
        QCOMPARE(view.frame(), 0);
    }

    void otherAlgorithmsAndPacksMatchTheEngine() {
        MainWindow& window = *m_window;
        CommunicationView& view = window.communicationView();
        StrategyPanel& strategy = window.setup().strategyPanel();
        QCOMPARE(strategy.reductionBox().count(), 4);
        QCOMPARE(strategy.reductionBox().findData(static_cast<int>(CrossDeviceOps::Nccl)), -1);
        struct Case {
            CrossDeviceOps algorithm;
            int packs;
        };
        for (const Case& c : {Case{CrossDeviceOps::Tree, 1}, Case{CrossDeviceOps::ReductionToOneDevice, 3},
                              Case{CrossDeviceOps::HierarchicalCopy, 2}, Case{CrossDeviceOps::Ring, 2}}) {
            const QString name = QString::fromLatin1(configName(c.algorithm));
            strategy.reductionBox().setCurrentIndex(strategy.reductionBox().findData(static_cast<int>(c.algorithm)));
            strategy.reductionOptions().packsBox().setValue(c.packs);
            window.applySetupNow();
            QTRY_VERIFY2_WITH_TIMEOUT(window.controller().config().strategy.crossDeviceOps == c.algorithm &&
                                          window.controller().config().strategy.numPacks == c.packs && idle(window),
                                      qPrintable(name), kLoadTimeoutMs);
            QVERIFY(view.capture().empty());  // a new run forgets the old capture
            QVERIFY(view.captureNext());
            QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
            const AllReduceCapture& capture = view.capture();
            QCOMPARE(capture.algorithm(), c.algorithm);
            QCOMPARE(capture.stepsPerPack(), allReduceStepCount(c.algorithm, kReplicas));
            QCOMPARE(capture.packs().size(), static_cast<std::size_t>(c.packs));
            QCOMPARE(capture.stepCount(), c.packs * allReduceStepCount(c.algorithm, kReplicas));
            for (int frame = 1; frame <= capture.stepCount(); ++frame) {
                view.setFrame(frame);
                QVERIFY(view.frameText().endsWith(QString::fromLatin1(allReduceStepName(c.algorithm, kReplicas, capture.stepOf(frame)))));
                QVERIFY2(!capture.transfers(frame).empty(), qPrintable(name + view.frameText()));
            }
            checkReducedToTheSum(capture);
        }
        QCOMPARE(allReduceStepCount(CrossDeviceOps::Tree, kReplicas), 4);
        QCOMPARE(allReduceStepCount(CrossDeviceOps::ReductionToOneDevice, kReplicas), 2);
        // Reduction to one device: device 0 receives (N−1) buffers, then sends them back.
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void reductionToOneDeviceLoadsDeviceZero() {
        MainWindow& window = *m_window;
        window.startRun(mirrored(CrossDeviceOps::ReductionToOneDevice), false);
        QTRY_VERIFY_WITH_TIMEOUT(idle(window), kLoadTimeoutMs);
        CommunicationView& view = window.communicationView();
        QVERIFY(view.captureNext());
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        const AllReduceCapture& capture = view.capture();
        const std::int64_t bytes = capture.elements() * static_cast<std::int64_t>(sizeof(float));
        for (int r = 1; r < kReplicas; ++r) {
            QCOMPARE(capture.linkBytes(r, 0), bytes);
            QCOMPARE(capture.linkBytes(0, r), bytes);
        }
        QCOMPARE(capture.transfers(1).size(), std::size_t{kReplicas - 1});
        for (const CapturedTransfer& t : capture.transfers(1)) QCOMPARE(t.to, 0);
        checkReducedToTheSum(capture);
    }

    void trainingFillsLinksAndBandwidth() {
        MainWindow& window = *m_window;
        CommunicationView& view = window.communicationView();
        window.controller().play();
        // Shown while running: the view captures an all-reduce by itself, at a later step.
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        QVERIFY(view.capture().trainingStep() >= 1);
        checkReducedToTheSum(view.capture());
        QTRY_VERIFY_WITH_TIMEOUT(window.controller().history().stepsSeen() >= 40, 30000);
        window.controller().pause();
        QTRY_COMPARE_WITH_TIMEOUT(window.controller().state(), SessionState::Paused, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(view.stats().stepsTaken() >= 40, 5000);
        const CommStats& stats = view.stats();
        QTRY_COMPARE_WITH_TIMEOUT(stats.steps(), window.controller().history().stepsSeen(), 5000);
        QVERIFY(stats.busBandwidth().appendedCount() > 0);
        stats.busBandwidth().forEach([](const SeriesPoint& point) { QVERIFY(point.low > 0.0f); });
        // busbw = algbw × 2(N−1)/N, point by point.
        QCOMPARE(stats.algorithmBandwidth().appendedCount(), stats.busBandwidth().appendedCount());
        QVERIFY(std::abs(stats.busBandwidth().last().high - stats.algorithmBandwidth().last().high * 1.5f) <=
                1e-4f * stats.busBandwidth().last().high);
        QVERIFY(stats.communicationShare().appendedCount() > 0);
        stats.communicationShare().forEach([](const SeriesPoint& point) { QVERIFY(point.low > 0.0f && point.high <= 100.0f); });
        for (int r = 0; r < kReplicas; ++r) {
            QVERIFY(stats.lastBytesSent(r) > 0);
            QCOMPARE(stats.totalBytesSent(r), stats.lastBytesSent(r) * stats.steps());  // the same bytes every step
            QVERIFY(stats.totalCommunicationNs(r) > 0);
        }
        QTRY_VERIFY_WITH_TIMEOUT(view.bandwidthChart().pointsReceived() > 0, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(view.shareChart().pointsReceived() > 0, 5000);
        QVERIFY(view.dataUpdates() > 0);
        QVERIFY(m_recorder->errors.isEmpty());
    }

    void oneDeviceHasNothingToCapture() {
        MainWindow& window = *m_window;
        window.startRun(MainWindow::defaultConfig(), false);
        QTRY_VERIFY_WITH_TIMEOUT(idle(window), kLoadTimeoutMs);
        CommunicationView& view = window.communicationView();
        QVERIFY(!view.captureNext());
        QVERIFY(view.capturer().message().contains(QStringLiteral("One device")));
        QVERIFY(view.capture().empty());
        QCOMPARE(window.controller().stepsDone(), std::int64_t{0});  // nothing was stepped
    }

    void panelExplainsWhatEachChoiceCosts() {
        auto body = [](const char* key) { return explanationFor(QString::fromLatin1(key)).body; };
        QVERIFY(body("strategy.cross_device_ops.ring").contains(QStringLiteral("2(N−1) steps of S/N")));
        QVERIFY(body("strategy.cross_device_ops.ring").contains(QStringLiteral("2(N−1)/N · S")));
        QVERIFY(body("strategy.cross_device_ops.reduction_to_one_device").contains(QStringLiteral("receives <b>(N−1)·S</b>")));
        QVERIFY(body("strategy.cross_device_ops.hierarchical_copy").contains(QStringLiteral("4 steps")));
        QVERIFY(body("strategy.cross_device_ops.tree").contains(QStringLiteral("2·⌊log₂N⌋ steps")));
        QVERIFY(body("strategy.cross_device_ops.nccl").contains(QStringLiteral("GPU")));
        QVERIFY(body("strategy.num_packs").contains(QStringLiteral("3, 3, 4")));
        QVERIFY(explanationFor(QStringLiteral("view.communication")).valid());

        // Bucketing by bytes writes bytes_per_pack (and one num_pack, as the config requires).
        StrategyPanel& strategy = m_window->setup().strategyPanel();
        ReductionOptions& options = strategy.reductionOptions();
        options.packingBox().setCurrentIndex(1);
        options.bytesPerPackBox().setValue(256);
        RunConfig draft = m_window->controller().config();
        strategy.applyTo(draft);
        QCOMPARE(draft.strategy.bytesPerPack, std::int64_t{256});
        QCOMPARE(draft.strategy.numPacks, std::int64_t{1});
        QVERIFY(validateRunConfig(draft, "set-up").ok());
        m_window->applySetupNow();
        QTRY_VERIFY_WITH_TIMEOUT(m_window->controller().config().strategy.bytesPerPack == 256 && idle(*m_window), kLoadTimeoutMs);
        CommunicationView& view = m_window->communicationView();
        QVERIFY(view.captureNext());
        QTRY_VERIFY_WITH_TIMEOUT(!view.capture().empty(), 10000);
        QVERIFY(view.capture().packs().size() > 1);  // 114 parameters of 4 bytes in buckets of > 256 bytes
        checkReducedToTheSum(view.capture());
    }

private:
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestCommunicationView)
#include "test_communication_view.moc"
