// The engine learns: the spiral to >= 95% training accuracy, and an MLP on Fashion-MNIST to
// >= 80% test accuracy within one epoch (skipped where the data package is not installed).
#include <QtTest>

#include <filesystem>

#include "distlab/distribute/trainer.hpp"

using namespace distlab;

class TestLearning : public QObject {
    Q_OBJECT
private slots:
    void spiral_data() {
        QTest::addColumn<int>("replicas");
        QTest::newRow("one_device") << 1;
        QTest::newRow("mirrored 4") << 4;
    }

    void spiral() {
        QFETCH(int, replicas);
        RunConfig config;
        config.seed = 3;
        config.model.layers = {
            {"dense", 32, Activation::Tanh, ""}, {"dense", 32, Activation::Tanh, ""}, {"dense", 2, Activation::Linear, ""}};
        config.data.source = DataSource::Synthetic;
        config.data.kind = SyntheticKind::Spiral;
        config.data.samples = 500;
        config.data.noise = 0.0;
        config.data.trainFraction = 0.8;
        config.data.globalBatchSize = 32;
        config.optimizer.type = OptimizerKind::Adam;
        config.optimizer.learningRate = 0.01;
        config.strategy.type = replicas > 1 ? StrategyKind::Mirrored : StrategyKind::OneDevice;
        for (int r = 0; r < replicas; ++r) config.strategy.devices.push_back({DeviceName::Kind::Cpu, r});
        auto trainer = Trainer::create(config);
        QVERIFY2(trainer.ok(), trainer.ok() ? "" : trainer.error().message.c_str());
        for (int step = 0; step < 3000; ++step) (*trainer)->step();
        const EvalResult train = (*trainer)->evaluate((*trainer)->data().train);
        QVERIFY2(train.accuracy >= 0.95, qPrintable(QString("training accuracy %1").arg(train.accuracy)));
    }

    void fashionMnistOneEpoch() {
        if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"))
            QSKIP("Fashion-MNIST is not installed (Debian package dataset-fashion-mnist)");
        RunConfig config;
        config.seed = 1;
        config.model.layers = {{"dense", 128, Activation::Relu, ""}, {"dense", 10, Activation::Linear, ""}};
        config.data.source = DataSource::FashionMnist;
        config.data.globalBatchSize = 64;
        config.optimizer.type = OptimizerKind::Adam;
        config.optimizer.learningRate = 0.001;
        config.strategy.type = StrategyKind::Mirrored;
        config.strategy.devices = {{DeviceName::Kind::Cpu, 0}, {DeviceName::Kind::Cpu, 1}};
        auto trainer = Trainer::create(config);
        QVERIFY2(trainer.ok(), trainer.ok() ? "" : trainer.error().message.c_str());
        const std::int64_t stepsPerEpoch = (*trainer)->data().train.count / 64;
        QCOMPARE(stepsPerEpoch, std::int64_t{937});
        for (std::int64_t step = 0; step < stepsPerEpoch; ++step) (*trainer)->step();
        QCOMPARE((*trainer)->sampler().epoch(), std::int64_t{0});
        const EvalResult test = (*trainer)->evaluate((*trainer)->data().test);
        QCOMPARE(test.examples, std::int64_t{10000});
        QVERIFY2(test.accuracy >= 0.80, qPrintable(QString("test accuracy %1").arg(test.accuracy)));
    }
};

QTEST_APPLESS_MAIN(TestLearning)
#include "test_learning.moc"
