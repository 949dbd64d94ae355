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
        QTest::addColumn<bool>("wide");
        QTest::newRow("one_device sgd") << 1 << int(CrossDeviceOps::Ring) << int(OptimizerKind::Sgd) << 1 << false;
        QTest::newRow("mirrored 4 ring adam") << 4 << int(CrossDeviceOps::Ring) << int(OptimizerKind::Adam) << 1 << false;
        QTest::newRow("mirrored 3 one-device acc 2")
            << 3 << int(CrossDeviceOps::ReductionToOneDevice) << int(OptimizerKind::Sgd) << 2 << false;
        // Layers wide enough for the packed product split across a team of two (model/packed_product.cpp)
        QTest::newRow("one_device sgd wide, 2 threads") << 1 << int(CrossDeviceOps::Ring) << int(OptimizerKind::Sgd) << 1 << true;
    }

    void stepsDoNotAllocate() {
        QFETCH(int, replicas);
        QFETCH(int, ops);
        QFETCH(int, optimizer);
        QFETCH(int, accumulation);
        QFETCH(bool, wide);
        const DataSplit data = makeClassificationData(wide ? 480 : 240, wide ? 64 : 5, 3, 3);
        RunConfig config = smallConfig(replicas, CrossDeviceOps(ops), OptimizerKind(optimizer), 0.9, accumulation);
        if (wide) {
            config.model.layers = {{"dense", 512, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
            config.data.globalBatchSize = 120;
            config.threads = 2;
        }
        MirroredTrainer trainer(config, data);
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
