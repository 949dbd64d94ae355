// Residual blocks and the gradient aggregation method: add_n and tree give bit-identical
// gradients; add_n holds more bytes at once, tree issues more adds; the block's gradients pass a
// finite-difference check.
#include <QtTest>

#include <numeric>

#include "distlab/model/model.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {
ModelConfig residualModel(AggregationMethod method, std::int64_t branches) {
    ModelConfig config;
    LayerConfig block;
    block.type = "residual";
    block.branches = branches;
    block.layers = {{"dense", 12, Activation::Tanh, ""}, {"dense", 8, Activation::Linear, ""}};
    config.layers = {{"dense", 8, Activation::Tanh, ""}, block, {"dense", 3, Activation::Linear, ""}};
    config.aggregationMethod = method;
    return config;
}

struct Gradients {
    std::vector<float> values;
    GradientAggregationStats stats;
    double loss = 0;
};

Gradients gradientsOf(const ModelConfig& config, const DataSplit& data, std::span<const float> parameters = {}) {
    Model model(config, 5);
    model.initialize(InitKind::GlorotUniform, 3);
    if (!parameters.empty()) std::copy(parameters.begin(), parameters.end(), model.store().values().begin());
    std::vector<std::int64_t> indices(16);
    std::iota(indices.begin(), indices.end(), 0);
    Tensor scratch, grad;
    BatchTargets targets;
    const ConstTensorView input = gatherBatch(data.train, indices, scratch, targets);
    ModelContext context = model.makeContext();
    const LossStats loss =
        LossFunction(LossKind::SoftmaxCrossEntropy).evaluate(model.forward(input, context), targets, 1.0f / 16, grad);
    model.zeroGradients();
    model.backward(input, grad, context);
    return {{model.store().grads().begin(), model.store().grads().end()}, Model::aggregationStats(context), loss.sum / 16};
}
}  // namespace

class TestResidual : public QObject {
    Q_OBJECT
private slots:
    void namesFollowTheBlock() {
        Model model(residualModel(AggregationMethod::AddN, 2), 5);
        std::vector<std::string> names;
        for (const auto& info : model.store().infos()) names.push_back(info.name);
        QVERIFY(std::find(names.begin(), names.end(), "residual_1/branch_1/dense_0/kernel") != names.end());
        Model single(residualModel(AggregationMethod::AddN, 1), 5);
        QCOMPARE(single.store().infos()[2].name, std::string("residual_1/dense_0/kernel"));
    }

    void microBatchesInFlight() {
        // Two micro-batches between forward and backward at once (as a pipeline schedule holds
        // them), each in its own context, give the gradients of running them one after the other.
        const DataSplit data = makeClassificationData(32, 5, 3, 1);
        Model model(residualModel(AggregationMethod::AddN, 2), 5);
        model.initialize(InitKind::GlorotUniform, 3);
        const LossFunction loss(LossKind::SoftmaxCrossEntropy);
        Tensor scratch[2], grads[2];
        ConstTensorView inputs[2];
        BatchTargets targets[2];
        for (int m = 0; m < 2; ++m) {
            std::vector<std::int64_t> indices(8);
            std::iota(indices.begin(), indices.end(), 8 * m);
            inputs[m] = gatherBatch(data.train, indices, scratch[m], targets[m]);
        }
        // One after the other, through one context.
        ModelContext sequential = model.makeContext();
        model.zeroGradients();
        for (int m = 0; m < 2; ++m) {
            loss.evaluate(model.forward(inputs[m], sequential), targets[m], 1.0f / 16, grads[m]);
            model.backward(inputs[m], grads[m], sequential);
        }
        const std::vector<float> expected(model.store().grads().begin(), model.store().grads().end());
        // Both forwards first, then the backwards in reverse order (1F1B's cool-down).
        ModelContext contexts[2] = {model.makeContext(), model.makeContext()};
        model.zeroGradients();
        for (int m = 0; m < 2; ++m) loss.evaluate(model.forward(inputs[m], contexts[m]), targets[m], 1.0f / 16, grads[m]);
        for (int m = 1; m >= 0; --m) model.backward(inputs[m], grads[m], contexts[m]);
        const auto actual = model.store().grads();
        double largest = 0.0;
        for (std::size_t i = 0; i < expected.size(); ++i) largest = std::max(largest, double(std::abs(actual[i] - expected[i])));
        QVERIFY2(largest <= 1e-6, qPrintable(QString("largest difference %1").arg(largest)));  // float summation order only
        QVERIFY(std::any_of(expected.begin(), expected.end(), [](float g) { return g != 0.0f; }));
    }

    void outputShapes() {
        Model model(residualModel(AggregationMethod::Tree, 2), 5);
        QCOMPARE(model.layerWidths(), (std::vector<std::int64_t>{8, 8, 3}));
        QCOMPARE(model.layers()[0]->outputShape({4, 7, 5}), (Shape{4, 7, 8}));
        QCOMPARE(model.layers()[1]->outputShape({4, 8}), (Shape{4, 8}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, model.layers()[0]->outputShape({4, 6}));
    }

    void addNAndTreeAgree_data() {
        QTest::addColumn<int>("branches");
        QTest::newRow("1 branch") << 1;
        QTest::newRow("3 branches") << 3;
    }

    void addNAndTreeAgree() {
        QFETCH(int, branches);
        const DataSplit data = makeClassificationData(32, 5, 3, 1);
        const Gradients addN = gradientsOf(residualModel(AggregationMethod::AddN, branches), data);
        const Gradients tree = gradientsOf(residualModel(AggregationMethod::Tree, branches), data);
        QVERIFY(addN.values == tree.values);  // bit-identical
        const std::int64_t termBytes = 16 * 8 * 4;
        QCOMPARE(addN.stats.peakBytes, (branches + 2) * termBytes);  // every term and the sum
        QCOMPARE(tree.stats.peakBytes, 2 * termBytes);               // the running sum and one term
        QCOMPARE(addN.stats.addOps, std::int64_t{1});
        QCOMPARE(tree.stats.addOps, std::int64_t(branches));
    }

    void finiteDifferences() {
        // Central differences of the float model in double steps: a coarse but independent check
        // that the skip connection and every branch reach the gradient.
        const DataSplit data = makeClassificationData(32, 5, 3, 1);
        const ModelConfig config = residualModel(AggregationMethod::Tree, 2);
        const Gradients base = gradientsOf(config, data);
        Model model(config, 5);
        model.initialize(InitKind::GlorotUniform, 3);
        std::vector<float> parameters(model.store().values().begin(), model.store().values().end());
        int checked = 0;
        for (std::size_t i = 0; i < parameters.size(); i += 37) {
            const float saved = parameters[i];
            const float h = 1e-2f;
            parameters[i] = saved + h;
            const double plus = gradientsOf(config, data, parameters).loss;
            parameters[i] = saved - h;
            const double minus = gradientsOf(config, data, parameters).loss;
            parameters[i] = saved;
            const double numeric = (plus - minus) / (2.0 * h);
            QVERIFY2(std::abs(numeric - base.values[i]) <= 2e-3 + 2e-2 * std::abs(numeric),
                     qPrintable(QString("parameter %1: numeric %2, analytic %3").arg(i).arg(numeric).arg(base.values[i])));
            ++checked;
        }
        QVERIFY(checked > 10);
    }

    void mismatchedBlockIsAnError() {
        ModelConfig config = residualModel(AggregationMethod::AddN, 1);
        config.layers[1].layers[1].units = 7;
        const auto status = Model::check(config, 5);
        QVERIFY(!status.ok());
        QVERIFY2(status.error().message.find("end with 7 units but its input has 8") != std::string::npos, status.error().message.c_str());
    }

    void mirroredResidualEqualsOneDevice() {
        const DataSplit data = makeClassificationData(240, 5, 3, 3);
        RunConfig single = smallConfig(1, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        single.model = residualModel(AggregationMethod::Tree, 2);
        RunConfig mirrored = smallConfig(4, CrossDeviceOps::Ring, OptimizerKind::Sgd, 0.0, 1);
        mirrored.model = single.model;
        MirroredTrainer a(single, data), b(mirrored, data);
        for (int i = 0; i < 30; ++i) a.step(), b.step();
        QVERIFY(relativeError(b.replicaModel(3).store().values(), a.replicaModel(0).store().values()) <= 1e-5);
    }
};

QTEST_APPLESS_MAIN(TestResidual)
#include "test_residual.moc"
