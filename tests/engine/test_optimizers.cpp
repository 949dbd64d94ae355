// Optimizer updates against values worked out by hand from PyTorch's update rules, the gradient's
// norm read during the update against the same norm read alone, and SGD's step fused into the
// backward pass against the gradient followed by the optimizer's pass.
#include <QtTest>

#include <omp.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>

#include "distlab/model/model.hpp"
#include "distlab/optim/adam.hpp"
#include "distlab/optim/sgd.hpp"
#include "distlab/tensor/reductions.hpp"

using namespace distlab;

namespace {

/// Values of mixed sign and magnitude (their squares' sum depends on the order it is added in).
std::vector<float> randomValues(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(n);
    for (float& v : values) v = normal(rng) * std::exp2(static_cast<float>(static_cast<int>(rng() % 20) - 10));
    return values;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

class TestOptimizers : public QObject {
    Q_OBJECT
private slots:
    void plainSgd() {
        Sgd sgd(0.0f, false, 2);
        std::vector<float> p{1.0f, -2.0f}, g{0.5f, -1.0f};
        sgd.apply(p, g, 0.1f);
        QCOMPARE(p[0], 0.95f);
        QCOMPARE(p[1], -1.9f);
        QVERIFY(sgd.slotNames().empty());
    }

    void momentum() {
        // b1 = g = 1; p = 1 - 0.1 = 0.9. b2 = 0.9 * 1 + 1 = 1.9; p = 0.9 - 0.19 = 0.71.
        Sgd sgd(0.9f, false, 1);
        std::vector<float> p{1.0f}, g{1.0f};
        sgd.apply(p, g, 0.1f);
        QVERIFY(std::abs(p[0] - 0.9f) < 1e-7f);
        sgd.apply(p, g, 0.1f);
        QVERIFY(std::abs(p[0] - 0.71f) < 1e-6f);
        QCOMPARE(sgd.slot(0)[0], 1.9f);
        QCOMPARE(sgd.slotNames().at(0), std::string("momentum"));
    }

    void nesterov() {
        // b1 = 1; p = 1 - 0.1 * (1 + 0.9 * 1) = 0.81. b2 = 1.9; p = 0.81 - 0.1 * (1 + 1.71) = 0.539.
        Sgd sgd(0.9f, true, 1);
        std::vector<float> p{1.0f}, g{1.0f};
        sgd.apply(p, g, 0.1f);
        QVERIFY(std::abs(p[0] - 0.81f) < 1e-6f);
        sgd.apply(p, g, 0.1f);
        QVERIFY(std::abs(p[0] - 0.539f) < 1e-6f);
    }

    void adam() {
        // Step 1 with g = 0.5: m = 0.05, v = 0.00025; m_hat = 0.5, v_hat = 0.25 -> p -= lr * 0.5 / (0.5 + eps).
        Adam adam(0.9f, 0.999f, 1e-7f, 1);
        std::vector<float> p{1.0f}, g{0.5f};
        adam.apply(p, g, 0.01f);
        QVERIFY(std::abs(p[0] - (1.0f - 0.01f * 0.5f / (0.5f + 1e-7f))) < 1e-6f);
        // Step 2 with g = -1: m = 0.045 - 0.1 = -0.055, v = 0.00024975 + 0.001 = 0.00124975.
        g[0] = -1.0f;
        const double m = -0.055, v = 0.00124975;
        const double mHat = m / (1 - 0.81), vHat = v / (1 - 0.998001);
        const double expected = p[0] - 0.01 * mHat / (std::sqrt(vHat) + 1e-7);
        adam.apply(p, g, 0.01f);
        QVERIFY2(std::abs(p[0] - expected) < 1e-6, qPrintable(QString::number(p[0] - expected)));
        QCOMPARE(adam.iterations(), std::int64_t{2});
        QCOMPARE(adam.slotNames().size(), std::size_t{2});
    }

    void sgdFusedIntoBackwardLeavesTheSameParameters_data() {
        // The first layer's step inside its weight-gradient product where this CPU has a packed
        // kernel (a batch up to 256 rows); the small layers', and the first's past 256 rows, as
        // the product into the gradient and a pass over it.
        QTest::addColumn<std::int64_t>("batch");
        QTest::newRow("45 rows") << std::int64_t{45};
        QTest::newRow("300 rows") << std::int64_t{300};
    }
    void sgdFusedIntoBackwardLeavesTheSameParameters() {
        // Three steps of a 3-layer model (odd widths, a batch not a multiple of the tiles): backward
        // applying SGD's step as each gradient is finished leaves the parameters that backward then
        // Sgd's pass leave, bit for bit, and reports the same gradient norm up to its summation order.
        QFETCH(std::int64_t, batch);
        ModelConfig config;
        config.layers = {{"dense", 37, Activation::Relu, ""}, {"dense", 19, Activation::Tanh, ""}, {"dense", 10, Activation::Linear, ""}};
        const std::int64_t features = 53;
        Model unfused(config, features), fused(config, features);
        fused.planStep({.plainSgd = true, .gradientStraightToUpdate = true});
        QVERIFY(fused.stepPlan().fusesSgd && !unfused.stepPlan().fusesSgd);
        unfused.initialize(InitKind::GlorotUniform, 3);
        fused.initialize(InitKind::GlorotUniform, 3);
        Sgd sgd(0.0f, false, unfused.store().totalSize());
        std::vector<double> blockSums(squareSumBlocks(static_cast<std::size_t>(unfused.store().totalSize())));
        ModelContext unfusedContext = unfused.makeContext(), fusedContext = fused.makeContext();
        Tensor input, gradOutput;
        input.resize2d(batch, features);
        gradOutput.resize2d(batch, 10);
        for (int step = 0; step < 3; ++step) {
            const auto x = randomValues(static_cast<std::size_t>(input.size()), 10 + step);
            const auto dy = randomValues(static_cast<std::size_t>(gradOutput.size()), 20 + step);
            std::copy(x.begin(), x.end(), input.data());
            std::copy(dy.begin(), dy.end(), gradOutput.data());
            unfused.forward(input, unfusedContext);
            unfused.zeroGradients();
            unfused.backward(input, gradOutput, unfusedContext);
            const double norm = std::sqrt(sgd.applyMeasuringGradient(unfused.store().values(), unfused.store().grads(), 0.05f, blockSums));
            fused.forward(input, fusedContext);
            fused.zeroGradients();
            FusedSgdStep fusedStep{0.05f, 0.0};
            fused.backward(input, gradOutput, fusedContext, &fusedStep);
            const auto a = unfused.store().values(), b = fused.store().values();
            QVERIFY(std::equal(a.begin(), a.end(), b.begin(), b.end()));
            QVERIFY2(std::abs(std::sqrt(fusedStep.squareSum) - norm) <= 1e-6 * norm,
                     qPrintable(QString("%1 against %2").arg(std::sqrt(fusedStep.squareSum), 0, 'g', 12).arg(norm, 0, 'g', 12)));
        }
    }

    void residualBlocksKeepTheOptimizersPass() {
        ModelConfig config;
        config.layers = {{"dense", 8, Activation::Relu, ""},
                         LayerConfig{"residual", 0, Activation::Linear, "", {{"dense", 8, Activation::Linear, ""}}, 1},
                         {"dense", 3, Activation::Linear, ""}};
        Model model(config, 5);
        model.planStep({.plainSgd = true, .gradientStraightToUpdate = true});
        QVERIFY(!model.stepPlan().fusesSgd);
    }

    void sumOfSquaresIsDefinedBlockByBlock() {
        // Longer than a chunk of the parallel pass's block sums, with a short last block.
        const std::vector<float> values = randomValues(2048 * 1024 * 2 + 1000, 1);
        double expected = 0.0;  // the definition, written out: each block's sum, the blocks in order
        for (std::size_t begin = 0; begin < values.size(); begin += kSquareSumBlock)
            expected += blockSumOfSquares(values.data() + begin, std::min(kSquareSumBlock, values.size() - begin));
        double serialOrder = 0.0;  // one running sum: the same value to rounding, other bits
        for (float v : values) serialOrder += double(v) * v;
        QVERIFY(std::abs(expected - serialOrder) <= 1e-9 * serialOrder);
        for (int threads : {1, 2, 3}) {  // the bits depend on the values alone, not on the team
            omp_set_num_threads(threads);
            QVERIFY2(sameBits(sumOfSquares(values), expected), qPrintable(QString("%1 threads").arg(threads)));
        }
    }

    void theNormReadDuringTheUpdateIsTheNormReadAlone() {
        // Every optimizer, a buffer long enough to be split across the team, on 1 and 2 threads:
        // the same parameters as apply() and the same bits as sumOfSquares(grads).
        const std::size_t n = 200'000 + 17;
        const std::vector<float> start = randomValues(n, 2), grads = randomValues(n, 3);
        std::vector<double> scratch(squareSumBlocks(n));
        const auto makers = {
            +[](std::size_t size) -> std::unique_ptr<Optimizer> { return std::make_unique<Sgd>(0.0f, false, std::int64_t(size)); },
            +[](std::size_t size) -> std::unique_ptr<Optimizer> { return std::make_unique<Sgd>(0.9f, true, std::int64_t(size)); },
            +[](std::size_t size) -> std::unique_ptr<Optimizer> {
                return std::make_unique<Adam>(0.9f, 0.999f, 1e-7f, std::int64_t(size));
            }};
        for (int threads : {1, 2}) {
            omp_set_num_threads(threads);
            for (auto make : makers) {
                auto plain = make(n), measuring = make(n);
                std::vector<float> a = start, b = start;
                for (int step = 0; step < 2; ++step) {
                    plain->apply(a, grads, 0.01f);
                    const double measured = measuring->applyMeasuringGradient(b, grads, 0.01f, scratch);
                    QVERIFY(sameBits(measured, sumOfSquares(grads)));
                }
                QVERIFY(a == b);
            }
        }
        omp_set_num_threads(1);
    }
};

QTEST_APPLESS_MAIN(TestOptimizers)
#include "test_optimizers.moc"
