// The telemetry ring: drops (never blocks) when full, hands records over in order, and the
// in-place reading the GUI uses (readable / peek / release) loses and repeats nothing while the
// producer keeps pushing on another thread. The steps' channel around it loses no step when the
// ring is full (a backlog, thinned by the rows' rule, handed over at a marker), in order.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "distlab/telemetry/spsc_ring.hpp"
#include "distlab/telemetry/step_channel.hpp"
#include "distlab/telemetry/thinned_log.hpp"

using namespace distlab;

namespace {

StepRecord step(std::int64_t number) {
    StepRecord record;
    record.step = number;
    return record;
}

/// Reads the channel as the app's drain does: the ring in order, a backlog at its marker, the
/// leftover once the producer is closed. Returns the steps met.
std::vector<std::int64_t> readChannel(StepChannel& channel) {
    std::vector<std::int64_t> steps;
    SpscRing<StepRecord>& ring = channel.ring();
    const std::size_t count = ring.readable();
    for (std::size_t i = 0; i < count; ++i) {
        if (ring.peek(i).kind == StepRecordKind::Backlog)
            channel.takeBacklog().forEach([&](const StepRecord& r) { steps.push_back(r.step); });
        else
            steps.push_back(ring.peek(i).step);
    }
    ring.release(count);
    channel.takeLeftover().forEach([&](const StepRecord& r) { steps.push_back(r.step); });
    return steps;
}

std::vector<std::int64_t> range(std::int64_t first, std::int64_t last, std::int64_t stride = 1) {
    std::vector<std::int64_t> steps;
    for (std::int64_t s = first; s <= last; s += stride) steps.push_back(s);
    return steps;
}

}  // namespace

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

    void thinnedLogKeepsTheRecentStepsAndEveryStrideThBefore() {
        ThinnedLog<StepRecord> log;
        for (std::int64_t s = 1; s <= 100'000; ++s) log.add(step(s));
        // Worked: 80,000 older steps must fit under 30,000 rows: every 4th (steps 1, 5, ...,
        // 79,997: 20,000 rows), then the recent 80,001 .. 100,000 whole.
        QCOMPARE(log.stride(), std::int64_t{4});
        std::vector<std::int64_t> expected = range(1, 79'997, 4);
        const std::vector<std::int64_t> recent = range(80'001, 100'000);
        expected.insert(expected.end(), recent.begin(), recent.end());
        std::vector<std::int64_t> kept;
        log.forEach([&](const StepRecord& r) { kept.push_back(r.step); });
        QCOMPARE(kept, expected);
        QCOMPARE(log.fromNewest(0).step, std::int64_t{100'000});
        QCOMPARE(log.fromNewest(1).step, std::int64_t{99'999});
    }

    void aFullRingSendsTheStepsThroughABacklogInOrder() {
        // Nobody reads while 1,000 steps go by: 8 fit the ring, the rest wait on the producer's side.
        StepChannel channel(8);
        for (std::int64_t s = 1; s <= 1000; ++s) channel.publish(step(s));
        QCOMPARE(channel.ring().dropped(), std::uint64_t{0});
        QVERIFY(!channel.flush());  // the ring has no room for the backlog's marker yet
        std::vector<std::int64_t> seen = readChannel(channel);
        QCOMPARE(seen, range(1, 8));
        // A paused producer flushes now and then: each try hands one backlog over at a marker.
        std::vector<std::int64_t> later;
        for (int tries = 0; tries < 10 && later.size() < 992; ++tries) {
            channel.flush();
            const std::vector<std::int64_t> read = readChannel(channel);
            later.insert(later.end(), read.begin(), read.end());
        }
        QVERIFY(channel.flush());
        QCOMPARE(later, range(9, 1000));
        // With the backlog gone, steps take the ring again.
        channel.publish(step(1001));
        QCOMPARE(channel.ring().readable(), std::size_t{1});
        QCOMPARE(channel.ring().peek(0).step, std::int64_t{1001});
    }

    void aLongBacklogIsThinnedLikeTheRows() {
        // 100,000 steps while nobody reads: the ring takes 1..64, the backlog 65 .. 100,000 (the
        // first of them handed over at once, the rest kept by the producer). The producer's thread
        // then ends; the reader gets all of it: the backlog thinned by the rows' rule, the newest
        // 20,000 whole, the older every 4th (step - 1 a multiple of 4: 69, 73, ..., 79,997).
        StepChannel channel(64);
        for (std::int64_t s = 1; s <= 100'000; ++s) channel.publish(step(s));
        channel.closeProducer();
        std::vector<std::int64_t> seen = readChannel(channel);
        std::vector<std::int64_t> expected = range(1, 65);
        for (const auto& part : {range(69, 79'997, 4), range(80'001, 100'000)}) expected.insert(expected.end(), part.begin(), part.end());
        QCOMPARE(seen.size(), expected.size());
        QCOMPARE(seen, expected);
    }

    void channelAcrossThreadsLosesNoStep() {
        // A producer far faster than a reader that sleeps between reads: every step arrives, in
        // order. The producer keeps within 10,000 steps of the reader (the test's doing, not the
        // channel's), so no backlog reaches the 20,000 steps past which it would be thinned.
        constexpr std::int64_t kSteps = 200'000;
        StepChannel channel(256);
        std::atomic<std::int64_t> read{0};
        std::thread producer([&] {
            for (std::int64_t s = 1; s <= kSteps; ++s) {
                channel.publish(step(s));
                while (s - read.load() > 10'000) {
                    channel.flush();  // as a waiting session does: its backlog still goes over
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                }
            }
            while (!channel.flush()) std::this_thread::sleep_for(std::chrono::microseconds(100));
        });
        std::vector<std::int64_t> seen;
        while (static_cast<std::int64_t>(seen.size()) < kSteps) {
            const std::vector<std::int64_t> part = readChannel(channel);
            seen.insert(seen.end(), part.begin(), part.end());
            read.store(static_cast<std::int64_t>(seen.size()));
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        }
        producer.join();
        QCOMPARE(seen, range(1, kSteps));
    }
};

QTEST_APPLESS_MAIN(TestTelemetryRing)
#include "test_telemetry_ring.moc"
