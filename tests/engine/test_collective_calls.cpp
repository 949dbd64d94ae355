// The communicator calls besides the algorithms: typed (int32, 16-bit) broadcasts, Work handles,
// and the companion values an all-reduce carries.
#include <QtTest>

#include <atomic>
#include <limits>
#include <memory>
#include <vector>

#include "distlab/comm/in_process_group.hpp"
#include "distlab/tensor/dtype.hpp"
#include "collective_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestCollectiveCalls : public QObject {
    Q_OBJECT
private slots:
    void typedBroadcastKeepsEveryBit() {
        // int32 (with values whose bits are float NaNs and denormals), float16 and bfloat16.
        const int ranks = 3;
        InProcessGroup group(ranks, CrossDeviceOps::Ring);
        std::vector<std::vector<std::int32_t>> ints(ranks, std::vector<std::int32_t>(5, 0));
        ints[1] = {-1, 0x7fc00001, 1, 0x00000003, std::numeric_limits<std::int32_t>::min()};
        std::vector<std::vector<std::uint16_t>> halves(ranks, std::vector<std::uint16_t>(4, 0));
        halves[1] = {0x3c00, 0x7bff, 0x0001, 0xfc00};  // 1, the largest half, the smallest denormal, -inf
        std::vector<std::vector<std::uint16_t>> brains(ranks, std::vector<std::uint16_t>(3, 0));
        brains[1] = {0x3f80, 0x0001, 0xff80};
        onEveryRank(ranks, [&](int r) {
            Communicator& comm = group.communicator(r);
            QVERIFY(comm.broadcast(BufferView(std::span<std::int32_t>(ints[r])), 1).test());
            comm.broadcast(BufferView(std::span<std::uint16_t>(halves[r]), DType::Float16), 1).wait();
            comm.broadcast(BufferView(std::span<std::uint16_t>(brains[r]), DType::BFloat16), 1).wait();
        });
        for (int r = 0; r < ranks; ++r) {
            QCOMPARE(ints[r], ints[1]);
            QCOMPARE(halves[r], halves[1]);
            QCOMPARE(brains[r], brains[1]);
        }
    }

    void workHandles() {
        // A done call: test() and wait() at once, with its record.
        InProcessGroup group(1, CrossDeviceOps::Ring);
        std::vector<float> buffer{1.0f, 2.0f};
        Work done = group.communicator(0).allReduce(buffer, ReduceOp::Sum);
        QVERIFY(done.test());
        QVERIFY(done.wait().endNs >= done.wait().startNs);
        // A call in flight: test() asks the backend's state, wait() blocks on it once.
        struct Pending final : WorkState {
            std::atomic<bool>* ready;
            int* waits;
            bool done() override { return ready->load(); }
            CollectiveTiming wait() override {
                ++*waits;
                CollectiveTiming timing;
                timing.bytesSent = 42;
                return timing;
            }
        };
        std::atomic<bool> ready{false};
        int waits = 0;
        auto state = std::make_unique<Pending>();
        state->ready = &ready;
        state->waits = &waits;
        Work inFlight(std::move(state));
        QVERIFY(!inFlight.test());
        QCOMPARE(waits, 0);
        ready = true;
        QVERIFY(inFlight.test());
        QCOMPARE(inFlight.wait().bytesSent, std::int64_t{42});
        QCOMPARE(inFlight.wait().bytesSent, std::int64_t{42});
        QCOMPARE(waits, 1);
    }

    void companionValuesRideAlong() {
        // A few values reduced in the same call as a buffer (the step's loss and counts with the
        // last gradient pack): every algorithm and op, an empty buffer (then one barrier carries
        // them), calls in a row (the group's two slots alternate) and calls without a companion
        // in between.
        for (CrossDeviceOps algorithm : kAlgorithms)
            for (int ranks = 1; ranks <= 6; ++ranks) {
                InProcessGroup group(ranks, algorithm);
                for (int round = 0; round < 3; ++round)
                    for (const ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Min, ReduceOp::Max})
                        for (const std::int64_t size : {std::int64_t{0}, std::int64_t{1}, std::int64_t{2 * ranks + 1}}) {
                            const std::int64_t values = 1 + (size + round) % static_cast<std::int64_t>(kMaxCompanionValues);
                            auto buffers = filled(ranks, size);
                            auto companions = filled(ranks, values);
                            auto plain = filled(ranks, 5);
                            std::vector<CollectiveTiming> timings(static_cast<std::size_t>(ranks));
                            onEveryRank(ranks, [&](int r) {
                                Communicator& comm = group.communicator(r);
                                AllReduceOptions options{op, 0};
                                options.companion = companions[r];
                                timings[static_cast<std::size_t>(r)] = comm.allReduce(buffers[r], options).wait();
                                comm.allReduce(plain[r], AllReduceOptions{op, 0});
                            });
                            const QString where = QString("%1, %2 ranks, %3 elements + %4 values, %5")
                                                      .arg(configName(algorithm))
                                                      .arg(ranks)
                                                      .arg(size)
                                                      .arg(values)
                                                      .arg(opName(op));
                            QVERIFY2(wrongElements(companions, op) == 0, qPrintable(where));
                            if (size > 0) QVERIFY2(wrongElements(buffers, op) == 0, qPrintable(where));
                            QVERIFY2(wrongElements(plain, op) == 0, qPrintable(where));
                            std::int64_t sent = 0, received = 0;
                            for (const CollectiveTiming& timing : timings) sent += timing.bytesSent, received += timing.bytesReceived;
                            QVERIFY2(sent == received, qPrintable(where));
                            if (ranks > 1) QVERIFY2(sent >= 4 * values * (ranks - 1) * ranks, qPrintable(where));
                        }
            }
        InProcessGroup group(2, CrossDeviceOps::Ring);
        std::vector<float> buffer(4), tooMany(kMaxCompanionValues + 1);
        AllReduceOptions options;
        options.companion = tooMany;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, group.communicator(0).allReduce(buffer, options));
    }
};

QTEST_APPLESS_MAIN(TestCollectiveCalls)
#include "test_collective_calls.moc"
