// Once warmed up, a training step allocates nothing on the heap (one_device and mirrored,
// SGD with momentum and Adam, with accumulation).
#include <QtTest>

#include <atomic>

#include "allocation_counter.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestNoAllocation : public QObject {
    Q_OBJECT
private slots:
    void stepsDoNotAllocate_data() {
        QTest::addColumn<int>("replicas");
        QTest::addColumn<int>("ops");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<int>("accumulation");
        QTest::newRow("one_device sgd") << 1 << int(CrossDeviceOps::Ring) << int(OptimizerKind::Sgd) << 1;
        QTest::newRow("mirrored 4 ring adam") << 4 << int(CrossDeviceOps::Ring) << int(OptimizerKind::Adam) << 1;
        QTest::newRow("mirrored 3 one-device acc 2") << 3 << int(CrossDeviceOps::ReductionToOneDevice) << int(OptimizerKind::Sgd) << 2;
    }

    void stepsDoNotAllocate() {
        QFETCH(int, replicas);
        QFETCH(int, ops);
        QFETCH(int, optimizer);
        QFETCH(int, accumulation);
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        MirroredTrainer trainer(smallConfig(replicas, CrossDeviceOps(ops), OptimizerKind(optimizer), 0.9, accumulation), data);
        for (int i = 0; i < 15; ++i) trainer.step();  // warm up, across an epoch boundary
        g_allocations = 0;
        g_countAllocations = true;
        for (int i = 0; i < 100; ++i) trainer.step();
        g_countAllocations = false;
        QCOMPARE(g_allocations.load(), 0L);
    }
};

QTEST_APPLESS_MAIN(TestNoAllocation)
#include "test_no_allocation.moc"
