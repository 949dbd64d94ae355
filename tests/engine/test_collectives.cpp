// The in-process collectives against exact expected buffers: every all-reduce algorithm on 1-8
// ranks and sizes from 0 elements to several MB (odd sizes, sizes below the rank count), SUM and
// MEAN; reduce, broadcast, all-gather, reduce-scatter, send/recv; the trace (events, snapshots of
// the partial sums, bounded logs); gradient packing; mirrored training with every algorithm and
// packing ends with one device's weights; a rank that fails releases the others (abort).
#include <QtTest>

#include <atomic>
#include <limits>
#include <chrono>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

#include "comm/in_process_algorithms.hpp"
#include "distlab/comm/collective_trace.hpp"
#include "distlab/comm/gradient_packer.hpp"
#include "distlab/comm/in_process_group.hpp"
#include "distlab/core/error.hpp"
#include "distlab/distribute/mirrored_trainer.hpp"
#include "distlab/distribute/replica_pool.hpp"
#include "distlab/tensor/dtype.hpp"
#include "allocation_counter.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

#include "collective_fixtures.hpp"

class TestCollectives : public QObject {
    Q_OBJECT
private slots:
    void allReduceEqualsTheReference() {
        for (CrossDeviceOps algorithm : kAlgorithms) {
            for (int ranks = 1; ranks <= 8; ++ranks) {
                InProcessGroup group(ranks, algorithm);
                std::vector<std::int64_t> sizes{0, 1, 2, 3, ranks - 1, ranks + 1, 2 * ranks + 1, 97, 1000, 4099, 65537};
                if (ranks % 2 == 0) sizes.push_back((1 << 20) + 3);  // a bit over 4 MB, on half the rank counts
                for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Min, ReduceOp::Max}) {
                    for (const std::int64_t size : sizes) {
                        if ((op == ReduceOp::Min || op == ReduceOp::Max) && size > 65537) continue;  // same paths as the sum
                        auto buffers = filled(ranks, size);
                        std::vector<CollectiveTiming> timings(static_cast<std::size_t>(ranks));
                        onEveryRank(ranks, [&](int r) {
                            timings[static_cast<std::size_t>(r)] =
                                group.communicator(r)
                                    .allReduce(buffers[static_cast<std::size_t>(r)], AllReduceOptions{op, static_cast<int>(size % 5)})
                                    .wait();
                        });
                        const QString where =
                            QString("%1, %2 ranks, %3 elements, %4").arg(configName(algorithm)).arg(ranks).arg(size).arg(opName(op));
                        QVERIFY2(wrongElements(buffers, op) == 0, qPrintable(where));
                        for (const CollectiveTiming& timing : timings) {
                            QVERIFY2(timing.startNs <= timing.endNs && timing.waitNs >= 0, qPrintable(where));
                            QVERIFY2(timing.waitNs <= timing.durationNs(), qPrintable(where));
                        }
                        // What goes out comes in: the group's bytes sent equal its bytes received.
                        std::int64_t sent = 0, received = 0;
                        for (const CollectiveTiming& timing : timings) sent += timing.bytesSent, received += timing.bytesReceived;
                        QVERIFY2(sent == received, qPrintable(where + QString(": sent %1, received %2").arg(sent).arg(received)));
                        if (ranks == 1 || size == 0) QCOMPARE(sent, std::int64_t{0});
                    }
                }
            }
        }
    }

    void ringMovesTwoNMinusOneChunks() {
        const int ranks = 4;
        const std::int64_t size = 4001;  // chunks 1001, 1000, 1000, 1000
        InProcessGroup group(ranks, CrossDeviceOps::Ring);
        auto buffers = filled(ranks, size);
        std::vector<CollectiveTiming> timings(ranks);
        onEveryRank(ranks, [&](int r) { timings[r] = group.communicator(r).allReduce(buffers[r], ReduceOp::Sum).wait(); });
        // Rank r sends chunks r, r-1, r-2 (reduce-scatter) then r+1, r, r-1 (all-gather).
        const std::int64_t chunk[] = {1001, 1000, 1000, 1000};
        for (int r = 0; r < ranks; ++r) {
            std::int64_t expected = 0;
            for (int s = 0; s < ranks - 1; ++s) expected += chunk[(r - s + 8) % 4] + chunk[(r + 1 - s + 8) % 4];
            QCOMPARE(timings[r].bytesSent, expected * 4);
        }
        QCOMPARE(comm_detail::ringChunkBegin(size, ranks, 1), std::int64_t{1001});
        QCOMPARE(comm_detail::ringChunkBegin(size, ranks, 4), size);
    }

    void reduceAndBroadcast() {
        for (int ranks = 1; ranks <= 8; ++ranks) {
            InProcessGroup group(ranks, CrossDeviceOps::Ring);
            for (const std::int64_t size : {std::int64_t{0}, std::int64_t{1}, std::int64_t{5}, std::int64_t{1001}}) {
                for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Min, ReduceOp::Max}) {
                    const int root = (ranks * 3 + 1) % ranks;
                    auto buffers = filled(ranks, size);
                    const auto original = buffers;
                    onEveryRank(ranks, [&](int r) { group.communicator(r).reduce(buffers[r], root, op); });
                    for (std::int64_t i = 0; i < size; ++i) {
                        QCOMPARE(buffers[root][i], expectedAt(ranks, i, op));
                        for (int r = 0; r < ranks; ++r)
                            if (r != root) QCOMPARE(buffers[r][i], original[r][i]);
                    }
                    onEveryRank(ranks, [&](int r) { group.communicator(r).broadcast(buffers[r], root); });
                    QVERIFY(wrongElements(buffers, op) == 0);
                }
            }
        }
    }

    void allGatherAndReduceScatter() {
        for (int ranks = 1; ranks <= 8; ++ranks) {
            InProcessGroup group(ranks, CrossDeviceOps::Tree);
            for (const std::int64_t block : {std::int64_t{0}, std::int64_t{1}, std::int64_t{3}, std::int64_t{257}}) {
                auto inputs = filled(ranks, block * ranks);
                std::vector<std::vector<float>> gathered(ranks, std::vector<float>(static_cast<std::size_t>(block * ranks), -99.0f));
                std::vector<std::vector<float>> scattered(ranks, std::vector<float>(static_cast<std::size_t>(block), -99.0f));
                auto greatest = scattered;
                onEveryRank(ranks, [&](int r) {
                    const std::span<const float> mine(inputs[r].data() + r * block, static_cast<std::size_t>(block));
                    group.communicator(r).allGather(mine, gathered[r]);
                    group.communicator(r).reduceScatter(inputs[r], scattered[r], ReduceOp::Mean);
                    group.communicator(r).reduceScatter(inputs[r], greatest[r], ReduceOp::Max);
                });
                for (int r = 0; r < ranks; ++r) {
                    for (int p = 0; p < ranks; ++p)
                        for (std::int64_t i = 0; i < block; ++i) QCOMPARE(gathered[r][p * block + i], inputs[p][p * block + i]);
                    for (std::int64_t i = 0; i < block; ++i) QCOMPARE(scattered[r][i], expectedAt(ranks, r * block + i, ReduceOp::Mean));
                    for (std::int64_t i = 0; i < block; ++i) QCOMPARE(greatest[r][i], expectedAt(ranks, r * block + i, ReduceOp::Max));
                }
            }
        }
        InProcessGroup group(2, CrossDeviceOps::Ring);
        std::vector<float> input(3), output(5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group.communicator(0).allGather(input, output));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group.communicator(0).reduceScatter(output, input, ReduceOp::Sum));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group.communicator(0).reduce(input, 2, ReduceOp::Sum));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group.communicator(0).send(input, 0));
    }

    void sendAndReceive() {
        for (int ranks = 2; ranks <= 8; ++ranks) {
            InProcessGroup group(ranks, CrossDeviceOps::Ring);
            std::vector<std::vector<float>> received(ranks, std::vector<float>(4, 0.0f));
            std::vector<CollectiveTiming> timings(ranks);
            int wrongAnswers = 0;
            onEveryRank(ranks, [&](int r) {
                Communicator& comm = group.communicator(r);
                for (int round = 0; round < 3; ++round) {  // rank 0 talks to every peer, which answers
                    if (r == 0) {
                        for (int peer = 1; peer < ranks; ++peer) {
                            const std::vector<float> message{float(peer), float(round), 7.0f, 8.0f};
                            comm.send(message, peer);
                            std::vector<float> answer(4, -5.0f);
                            timings[0] = comm.recv(answer, peer).wait();
                            // One element came: the rest of the buffer is untouched.
                            if (answer != std::vector<float>{float(peer * 10 + round), -5.0f, -5.0f, -5.0f}) ++wrongAnswers;
                        }
                    } else {
                        comm.recv(received[r], 0);
                        const std::vector<float> answer{received[r][0] * 10 + received[r][1]};
                        timings[r] = comm.send(answer, 0).wait();
                    }
                }
            });
            QCOMPARE(wrongAnswers, 0);
            QCOMPARE(timings[0].bytesReceived, std::int64_t{4});
            for (int r = 1; r < ranks; ++r) {
                QCOMPARE(received[r], (std::vector<float>{float(r), 2.0f, 7.0f, 8.0f}));
                QCOMPARE(timings[r].bytesSent, std::int64_t{4});
            }
        }
    }

    void traceRecordsRingStepsAndPartialSums() {
        InProcessGroup group(2, CrossDeviceOps::Ring);
        CollectiveTrace trace(2, {64, 16, 256});
        for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&trace);
        trace.setCaptureSnapshots(true);
        std::vector<std::vector<float>> buffers{{1, 2, 3, 4}, {10, 20, 30, 40}};
        onEveryRank(2, [&](int r) { group.communicator(r).allReduce(buffers[r], AllReduceOptions{ReduceOp::Sum, 3}); });
        // Step 0 (reduce-scatter): rank 0 adds rank 1's chunk 1, rank 1 adds rank 0's chunk 0.
        // Step 1 (all-gather): each copies the other's finished chunk.
        const std::vector<std::vector<float>> expected[2] = {{{1, 2, 3, 4}, {1, 2, 33, 44}, {11, 22, 33, 44}},
                                                             {{10, 20, 30, 40}, {11, 22, 30, 40}, {11, 22, 33, 44}}};
        for (int r = 0; r < 2; ++r) {
            const auto events = trace.events(r);
            QCOMPARE(int(events.size()), 2);
            QCOMPARE(events[0].step, 0);
            QCOMPARE(events[0].kind, TransferKind::Reduce);
            QCOMPARE(int(events[0].fromRank), 1 - r);
            QCOMPARE(int(events[0].toRank), r);
            QCOMPARE(events[0].beginElement, std::int64_t{r == 0 ? 2 : 0});
            QCOMPARE(events[0].endElement, std::int64_t{r == 0 ? 4 : 2});
            QCOMPARE(events[0].bytes, std::int64_t{8});
            QCOMPARE(events[0].pack, 3);
            QCOMPARE(events[1].step, 1);
            QCOMPARE(events[1].kind, TransferKind::Copy);
            QCOMPARE(events[1].beginElement, std::int64_t{r == 0 ? 0 : 2});
            QVERIFY(events[0].startNs <= events[0].endNs && events[0].endNs <= events[1].startNs);
            const auto snapshots = trace.snapshots(r);
            QCOMPARE(int(snapshots.size()), 3);
            for (int s = 0; s < 3; ++s) {
                QCOMPARE(snapshots[s].step, s - 1);
                const auto values = trace.values(r, snapshots[s]);
                QCOMPARE(std::vector<float>(values.begin(), values.end()), expected[r][s]);
            }
        }
        QCOMPARE(allReduceStepCount(CrossDeviceOps::Ring, 2), 2);
        QCOMPARE(QString(allReduceStepName(CrossDeviceOps::Ring, 2, 1)), QString("all-gather"));

        // Snapshots off: events only. Bounded: what does not fit is counted, not stored.
        trace.clear();
        trace.setCaptureSnapshots(false);
        CollectiveTrace tiny(2, {1, 0, 0});
        onEveryRank(2, [&](int r) { group.communicator(r).allReduce(buffers[r], ReduceOp::Sum); });
        QCOMPARE(int(trace.events(0).size()), 2);
        QCOMPARE(int(trace.snapshots(0).size()), 0);
        for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&tiny);
        tiny.setCaptureSnapshots(true);
        onEveryRank(2, [&](int r) { group.communicator(r).allReduce(buffers[r], ReduceOp::Sum); });
        QCOMPARE(int(tiny.events(1).size()), 1);
        QCOMPARE(tiny.droppedEvents(1), std::int64_t{1});
        QCOMPARE(tiny.droppedSnapshots(1), std::int64_t{3});
        for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(nullptr);
        onEveryRank(2, [&](int r) { group.communicator(r).allReduce(buffers[r], ReduceOp::Sum); });
        QCOMPARE(int(trace.events(0).size()), 2);                       // detached: nothing more recorded
        QCOMPARE(buffers[0], (std::vector<float>{88, 176, 264, 352}));  // 11 x 2^3 and so on
    }

    void traceShowsEachAlgorithmsShape() {
        // Tree on 5 ranks: level 1 (ranks 1, 2 add their children 3, 4 / none), level 0 (rank 0
        // adds 1 and 2), then the copies down: 4 steps.
        {
            InProcessGroup group(5, CrossDeviceOps::Tree);
            CollectiveTrace trace(5, {64, 0, 0});
            for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&trace);
            auto buffers = filled(5, 10);
            onEveryRank(5, [&](int r) { group.communicator(r).allReduce(buffers[r], ReduceOp::Sum); });
            QCOMPARE(allReduceStepCount(CrossDeviceOps::Tree, 5), 4);
            QCOMPARE(int(trace.events(1).size()), 3);  // adds 3 and 4, then copies from 0
            QCOMPARE(int(trace.events(1)[0].fromRank), 3);
            QCOMPARE(trace.events(1)[0].step, 0);
            QCOMPARE(int(trace.events(0).size()), 2);  // adds 1 and 2 in step 1
            QCOMPARE(trace.events(0)[1].step, 1);
            QCOMPARE(int(trace.events(4).size()), 1);
            QCOMPARE(trace.events(4)[0].step, 3);  // the copy down to depth 2
            QCOMPARE(int(trace.events(4)[0].fromRank), 1);
        }
        // Hierarchical copy on 4 ranks: lead 0 is (pack mod 4), lead 1 its partner in the other half.
        InProcessGroup group(4, CrossDeviceOps::HierarchicalCopy);
        CollectiveTrace trace(4, {256, 0, 0});
        for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&trace);
        auto buffers = filled(4, 6);
        for (int pack = 0; pack < 4; ++pack)
            onEveryRank(4, [&](int r) { group.communicator(r).allReduce(buffers[r], AllReduceOptions{ReduceOp::Sum, pack}); });
        const int expectedLead1[] = {2, 3, 0, 1};
        for (int pack = 0; pack < 4; ++pack) {
            int adders = 0;
            for (int r = 0; r < 4; ++r)
                for (const TransferEvent& event : trace.events(r))
                    if (event.pack == pack && event.step == 1) {
                        ++adders;
                        QCOMPARE(int(event.toRank), pack);
                        QCOMPARE(int(event.fromRank), expectedLead1[pack]);
                    }
            QCOMPARE(adders, 1);
        }
    }

    void packsSplitEvenlyWithTheRemainderLast() {
        QCOMPARE(GradientPacker::splitEvenly(10, 3), (std::vector<PackRange>{{0, 3}, {3, 6}, {6, 10}}));
        QCOMPARE(GradientPacker::splitEvenly(10, 1), (std::vector<PackRange>{{0, 10}}));
        QCOMPARE(GradientPacker::splitEvenly(9, 3), (std::vector<PackRange>{{0, 3}, {3, 6}, {6, 9}}));
        QCOMPARE(GradientPacker::splitEvenly(2, 3), (std::vector<PackRange>{{0, 2}}));  // empty packs left out
        QCOMPARE(GradientPacker::splitEvenly(0, 3), std::vector<PackRange>{});
    }

    void packsBucketByBytesAlongParameters() {
        const std::vector<ParameterInfo> parameters{{"a", {6}, 0, 6}, {"b", {2}, 6, 2}, {"c", {10}, 8, 10}, {"d", {1}, 18, 1}};
        // 32 bytes: a + b is exactly 32 (not more), c pushes it over and closes the pack.
        QCOMPARE(GradientPacker::bucketByBytes(parameters, 32), (std::vector<PackRange>{{0, 18}, {18, 19}}));
        QCOMPARE(GradientPacker::bucketByBytes(parameters, 20), (std::vector<PackRange>{{0, 6}, {6, 18}, {18, 19}}));
        QCOMPARE(GradientPacker::bucketByBytes(parameters, 1 << 20), (std::vector<PackRange>{{0, 19}}));
        QCOMPARE(GradientPacker::bucketByBytes(parameters, 1), (std::vector<PackRange>{{0, 6}, {6, 8}, {8, 18}, {18, 19}}));

        // A real model: dense 5->16->8->3 stores kernel, bias per layer.
        const RunConfig config = smallConfig(2, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        const Model model(config.model, 5);
        StrategyConfig strategy = config.strategy;
        strategy.bytesPerPack = 100 * 4;
        const GradientPacker packer(strategy, model.store().infos());
        // kernel 80 (> 100? no) + bias 16 = 96, + kernel 128 -> closes at 224; bias 8 + kernel 24 + bias 3.
        QCOMPARE(std::vector<PackRange>(packer.packs().begin(), packer.packs().end()), (std::vector<PackRange>{{0, 224}, {224, 259}}));
        strategy.bytesPerPack = 0;
        strategy.numPacks = 4;
        const GradientPacker even(strategy, model.store().infos());
        QCOMPARE(int(even.packs().size()), 4);
        QCOMPARE(even.packs().back(), (PackRange{192, 259}));
    }

    void warmCallsDoNotAllocate() {
        // Every algorithm with a trace and snapshots attached, and the other collectives.
        for (CrossDeviceOps algorithm : kAlgorithms) {
            const int ranks = 3;
            InProcessGroup group(ranks, algorithm);
            CollectiveTrace trace(ranks, {64, 8, 4096});
            for (int r = 0; r < group.size(); ++r) group.communicator(r).setTrace(&trace);
            trace.setCaptureSnapshots(true);
            auto buffers = filled(ranks, (1 << 19) + 1);  // two ring segments
            std::vector<std::vector<float>> gathered(ranks, std::vector<float>(3 * 5)), scattered(ranks, std::vector<float>(5));
            g_allocations = 0;
            onEveryRank(ranks, [&](int r) {
                Communicator& comm = group.communicator(r);
                const std::span<float> small(buffers[r].data(), 15);
                auto round = [&](int pack) {
                    comm.allReduce(buffers[r], AllReduceOptions{ReduceOp::Mean, pack});
                    comm.reduce(small, 1, ReduceOp::Sum);
                    comm.broadcast(small, 2);
                    comm.allGather(small.first(5), gathered[r]);
                    comm.reduceScatter(small, scattered[r], ReduceOp::Sum);
                    if (r < 2) (r == 0 ? comm.send(small, 1) : comm.recv(small, 0));
                };
                round(0);
                comm.barrier();
                if (r == 0) g_countAllocations = true;
                comm.barrier();
                for (int pack = 1; pack < 6; ++pack) round(pack);
                comm.barrier();
                if (r == 0) g_countAllocations = false;
            });
            QCOMPARE(g_allocations.load(), 0L);
        }
        // The trainer's packed step.
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        for (int packing = 0; packing < 2; ++packing) {
            RunConfig config =
                smallConfig(3, packing == 0 ? CrossDeviceOps::HierarchicalCopy : CrossDeviceOps::Tree, OptimizerKind::Sgd, 0.9, 1);
            if (packing == 0)
                config.strategy.numPacks = 4;
            else
                config.strategy.bytesPerPack = 200;
            MirroredTrainer trainer(config, data);
            for (int i = 0; i < 15; ++i) trainer.step();
            g_allocations = 0;
            g_countAllocations = true;
            for (int i = 0; i < 50; ++i) trainer.step();
            g_countAllocations = false;
            QCOMPARE(g_allocations.load(), 0L);
        }
    }

    void mirroredTrainingAgreesWithEveryAlgorithmAndPacking() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer reference(smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.9, 1), data);
        for (int step = 0; step < 20; ++step) reference.step();
        const auto expected = reference.replicaModel(0).store().values();
        for (int replicas : {2, 3, 4}) {
            for (CrossDeviceOps algorithm : kAlgorithms) {
                for (int packing = 0; packing < 3; ++packing) {
                    RunConfig config = smallConfig(replicas, algorithm, OptimizerKind::Sgd, 0.9, 1);
                    if (packing == 1) config.strategy.numPacks = 3;
                    if (packing == 2) config.strategy.bytesPerPack = 256;
                    MirroredTrainer mirrored(config, data);
                    for (int step = 0; step < 20; ++step) mirrored.step();
                    const QString where = QString("%1 replicas, %2, packing %3").arg(replicas).arg(configName(algorithm)).arg(packing);
                    const double error = relativeError(mirrored.replicaModel(0).store().values(), expected);
                    QVERIFY2(error <= 1e-5, qPrintable(where + QString(": relative error %1").arg(error)));
                    for (int r = 1; r < replicas; ++r) {
                        const auto a = mirrored.replicaModel(r).store().values();
                        QVERIFY2(std::equal(a.begin(), a.end(), mirrored.replicaModel(0).store().values().begin()), qPrintable(where));
                    }
                }
            }
        }
    }

    void sixteenBitAllReduceAccumulatesInFloat32() {
        // float16 and bfloat16 buffers, every algorithm, 2-8 ranks, against a float64 reference.
        // The inputs (k/7 rounded to 16 bits, |k| <= 30) are multiples of 2^-13 below 2^3, so
        // their sums are exact in float32: the SUM must be the float64 sum rounded once to the
        // buffer's type, bit for bit, and identical on every rank. MEAN is within one 16-bit ulp
        // (the float32 quotient is rounded again).
        for (DType dtype : {DType::Float16, DType::BFloat16}) {
            auto to16 = [dtype](double v) { return dtype == DType::Float16 ? floatToHalf(float(v)) : floatToBfloat16(float(v)); };
            auto from16 = [dtype](std::uint16_t b) { return double(dtype == DType::Float16 ? halfToFloat(b) : bfloat16ToFloat(b)); };
            for (CrossDeviceOps algorithm : kAlgorithms)
                for (int ranks : {2, 3, 5, 8})
                    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean}) {
                        const std::int64_t size = 1000 + ranks;
                        std::vector<std::vector<std::uint16_t>> buffers(static_cast<std::size_t>(ranks));
                        std::vector<double> reference(static_cast<std::size_t>(size), 0.0);
                        for (int r = 0; r < ranks; ++r)
                            for (std::int64_t e = 0; e < size; ++e) {
                                const std::uint16_t bits = to16(fillValue(r, e) / 7.0);
                                buffers[static_cast<std::size_t>(r)].push_back(bits);
                                reference[static_cast<std::size_t>(e)] += from16(bits);
                            }
                        InProcessGroup group(ranks, algorithm);
                        onEveryRank(ranks, [&](int r) {
                            group.communicator(r).allReduce(BufferView(buffers[static_cast<std::size_t>(r)], dtype),
                                                            AllReduceOptions{op, 0});
                        });
                        const QString label = QString("%1 %2 ranks %3 %4")
                                                  .arg(QString::fromLatin1(dtypeName(dtype).data()))
                                                  .arg(configName(algorithm))
                                                  .arg(ranks)
                                                  .arg(op == ReduceOp::Sum ? "sum" : "mean");
                        for (std::int64_t e = 0; e < size; ++e) {
                            const auto index = static_cast<std::size_t>(e);
                            const double exact = op == ReduceOp::Sum ? reference[index] : reference[index] / ranks;
                            const std::uint16_t got = buffers[0][index];
                            for (int r = 1; r < ranks; ++r) QVERIFY2(buffers[static_cast<std::size_t>(r)][index] == got, qPrintable(label));
                            if (op == ReduceOp::Sum) {
                                QVERIFY2(got == to16(exact), qPrintable(label + QString(" element %1").arg(e)));
                            } else {
                                const int bits = dtype == DType::Float16 ? 10 : 7;
                                const double ulp = exact == 0.0 ? 0.0 : std::ldexp(1.0, std::ilogb(exact) - bits);
                                QVERIFY2(std::abs(from16(got) - exact) <= ulp, qPrintable(label + QString(" element %1").arg(e)));
                            }
                        }
                    }
        }
        // Why float32 accumulation: 2048 + 1 + 1 in float16 steps would stay 2048 (the float16
        // spacing at 2048 is 2); accumulated in float32 it is 2050, which float16 holds exactly.
        InProcessGroup group(3, CrossDeviceOps::Ring);
        std::vector<std::vector<std::uint16_t>> buffers{{floatToHalf(2048.0f)}, {floatToHalf(1.0f)}, {floatToHalf(1.0f)}};
        onEveryRank(3, [&](int r) {
            group.communicator(r).allReduce(BufferView(buffers[static_cast<std::size_t>(r)], DType::Float16), AllReduceOptions{});
        });
        QCOMPARE(halfToFloat(buffers[2][0]), 2050.0f);
        // int32 is not a gradient type.
        InProcessGroup single(1, CrossDeviceOps::Ring);
        BufferView ints(std::span<float>{});
        ints.dtype = DType::Int32;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, single.communicator(0).allReduce(ints, AllReduceOptions{}));
    }

    void aFailingRankReleasesEveryWaitingPeer() {
        // Rank `failing` throws before its collective while the others are already in it (or in
        // the next one): the pool's failure hook aborts the group, every waiter throws
        // CollectiveAborted, and run() reports the rank that failed on its own. Every algorithm,
        // every collective kind, a failing rank 0 (the pool's calling thread) and a later one.
        using Call = std::function<void(Communicator&, std::vector<float>&)>;
        const std::vector<std::pair<const char*, Call>> calls{
            {"allReduce", [](Communicator& c, std::vector<float>& b) { c.allReduce(b, ReduceOp::Sum); }},
            {"reduce", [](Communicator& c, std::vector<float>& b) { c.reduce(b, 0, ReduceOp::Sum); }},
            {"broadcast", [](Communicator& c, std::vector<float>& b) { c.broadcast(b, 1); }},
            {"barrier", [](Communicator& c, std::vector<float>&) { c.barrier(); }},
            {"ring to the next rank",
             [](Communicator& c, std::vector<float>& b) {
                 // Everyone receives from its predecessor first: without an abort all would wait.
                 c.recv(b, (c.rank() + c.size() - 1) % c.size());
                 c.send(b, (c.rank() + 1) % c.size());
             }},
        };
        for (CrossDeviceOps algorithm : kAlgorithms)
            for (const auto& entry : calls)
                for (int failing : {0, 2}) {
                    const char* name = entry.first;
                    const Call& call = entry.second;  // not a structured binding: clang 14 cannot capture one in a lambda
                    const int ranks = 4;
                    InProcessGroup group(ranks, algorithm);
                    auto buffers = filled(ranks, 1000);
                    ReplicaPool pool(
                        ranks, 1,
                        [&, failing](int rank) {
                            if (rank == failing) {
                                std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the others wait first
                                throw std::runtime_error("device lost");
                            }
                            call(group.communicator(rank), buffers[static_cast<std::size_t>(rank)]);
                        },
                        [&] { group.abort(); });
                    const QString label = QString("%1, %2, rank %3").arg(configName(algorithm)).arg(name).arg(failing);
                    try {
                        pool.run();
                        QFAIL(qPrintable("no failure reported: " + label));
                    } catch (const TrainingError& error) {
                        QCOMPARE(QString(error.what()), QString("replica %1 failed: device lost").arg(failing));
                    }
                    // The pool stays failed: it does not run replicas whose peers are gone.
                    QVERIFY_THROWS_EXCEPTION(TrainingError, pool.run());
                    QVERIFY(group.abortFlag().load());
                }
    }
};

QTEST_APPLESS_MAIN(TestCollectives)
#include "test_collectives.moc"
