// The telemetry ring: drops (never blocks) when full, hands records over in order, and the
// in-place reading the GUI uses (readable / peek / release) loses and repeats nothing while the
// producer keeps pushing on another thread.
#include <QtTest>

#include <cstdint>
#include <thread>

#include "distlab/telemetry/spsc_ring.hpp"

using namespace distlab;

class TestTelemetryRing : public QObject {
    Q_OBJECT

private slots:
    void fullRingDropsAndCounts() {
        SpscRing<std::int64_t> ring(5);  // rounded up to 8
        QCOMPARE(ring.capacity(), std::size_t{8});
        for (std::int64_t i = 0; i < 10; ++i) ring.tryPush(i);
        QCOMPARE(ring.readable(), std::size_t{8});
        QCOMPARE(ring.dropped(), std::uint64_t{2});
        QCOMPARE(ring.peek(0), std::int64_t{0});
        QCOMPARE(ring.peek(7), std::int64_t{7});
        ring.release(3);  // room for three more
        QCOMPARE(ring.readable(), std::size_t{5});
        QCOMPARE(ring.peek(0), std::int64_t{3});
        QVERIFY(ring.tryPush(100));
        QCOMPARE(ring.peek(5), std::int64_t{100});
        std::int64_t sum = 0;
        QCOMPARE(ring.drain([&](std::int64_t value) { sum += value; }), std::size_t{6});
        QCOMPARE(sum, 3 + 4 + 5 + 6 + 7 + 100);
        QCOMPARE(ring.readable(), std::size_t{0});
    }

    void peekAndReleaseAcrossThreads() {
        constexpr std::int64_t kRecords = 1'000'000;
        SpscRing<std::int64_t> ring(1024);
        std::thread producer([&] {
            for (std::int64_t i = 0; i < kRecords; ++i)
                while (!ring.tryPush(i)) std::this_thread::yield();  // the test wants every record
        });
        std::int64_t expected = 0;
        bool inOrder = true;
        while (expected < kRecords) {
            const std::size_t available = ring.readable();
            // Take part of what is there, as a drain that stops at a step still waiting would.
            const std::size_t take = available > 1 ? available / 2 + 1 : available;
            for (std::size_t i = 0; i < take; ++i) inOrder = inOrder && ring.peek(i) == expected + static_cast<std::int64_t>(i);
            ring.release(take);
            expected += static_cast<std::int64_t>(take);
            if (take == 0) std::this_thread::yield();
        }
        producer.join();
        QVERIFY(inOrder);
        QCOMPARE(expected, kRecords);
        QCOMPARE(ring.readable(), std::size_t{0});
    }
};

QTEST_APPLESS_MAIN(TestTelemetryRing)
#include "test_telemetry_ring.moc"
