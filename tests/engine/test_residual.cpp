// Residual blocks and the gradient aggregation method: add_n and tree give bit-identical
// gradients; add_n holds more bytes at once, tree issues more adds; the block's gradients are
// checked in double as the dense layer's are (test_gradients.cpp): a double reference of the
// model passes central differences on every parameter, and the float engine's gradients equal the
// reference's on every parameter.
#include <QtTest>

#include <cmath>
#include <numeric>

#include "distlab/model/model.hpp"
#include "model/dense_kernels.hpp"
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
    const LossStats loss = LossFunction(LossKind::SoftmaxCrossEntropy).evaluate(model.forward(input, context), targets, 1.0f / 16, grad);
    model.zeroGradients();
    model.backward(input, grad, context);
    return {{model.store().grads().begin(), model.store().grads().end()}, Model::aggregationStats(context), loss.sum / 16};
}
/// residualModel(method, branches) in double, written from the block's definition
/// y = h + f_1(h) + ... + f_b(h) (docs/semantics.md §7) with the dense kernels in double:
/// dense(5 -> 8, tanh) = h; each branch dense(8 -> 12, tanh), dense(12 -> 8, linear); then
/// dense(8 -> 3, linear) and softmax cross-entropy, the mean over the batch. `params` are in the
/// parameter store's order: dense_0 kernel and bias, each branch's two kernels and biases, the head's.
struct ResidualNet {
    std::int64_t batch = 0, in = 5, width = 8, hidden = 12, classes = 3, branches = 0;
    std::vector<double> x;
    std::vector<std::int32_t> labels;
    std::vector<std::vector<double>> params;

    std::vector<std::int64_t> sizes() const {
        std::vector<std::int64_t> out{in * width, width};
        for (std::int64_t j = 0; j < branches; ++j) out.insert(out.end(), {width * hidden, hidden, hidden * width, width});
        out.insert(out.end(), {width * classes, classes});
        return out;
    }

    /// The loss; with `grads`, the gradient of every parameter (the chain rule by hand: the skip
    /// passes dy to h unchanged, each branch adds its own input gradient to it).
    double loss(std::vector<std::vector<double>>* grads = nullptr) const {
        using namespace kernels;
        const std::int64_t B = batch;
        std::vector<double> z0(B * width), h(B * width), y(B * width), logits(B * classes), dlogits(B * classes);
        denseForward(x.data(), params[0].data(), params[1].data(), z0.data(), B, in, width);
        activate(Activation::Tanh, z0.data(), h.data(), B * width);
        y = h;
        std::vector<std::vector<double>> z1(branches), a1(branches);
        for (std::int64_t j = 0; j < branches; ++j) {
            const auto& w1 = params[2 + 4 * j];
            const auto& b1 = params[3 + 4 * j];
            const auto& w2 = params[4 + 4 * j];
            const auto& b2 = params[5 + 4 * j];
            z1[j].resize(B * hidden);
            a1[j].resize(B * hidden);
            std::vector<double> out(B * width);
            denseForward(h.data(), w1.data(), b1.data(), z1[j].data(), B, width, hidden);
            activate(Activation::Tanh, z1[j].data(), a1[j].data(), B * hidden);
            denseForward(a1[j].data(), w2.data(), b2.data(), out.data(), B, hidden, width);
            for (std::int64_t i = 0; i < B * width; ++i) y[i] += out[i];
        }
        const std::size_t head = params.size() - 2;
        denseForward(y.data(), params[head].data(), params[head + 1].data(), logits.data(), B, width, classes);
        const double scale = 1.0 / static_cast<double>(B);
        const double total = softmaxCrossEntropy<double>(logits.data(), labels.data(), dlogits.data(), B, classes, scale, nullptr);
        if (grads == nullptr) return total * scale;
        grads->assign(params.size(), {});
        for (std::size_t p = 0; p < params.size(); ++p) (*grads)[p].assign(params[p].size(), 0.0);
        std::vector<double> dy(B * width), dh(B * width);
        denseBackward(y.data(), params[head].data(), dlogits.data(), (*grads)[head].data(), (*grads)[head + 1].data(), dy.data(), B, width,
                      classes);
        dh = dy;  // the skip connection's term
        for (std::int64_t j = 0; j < branches; ++j) {
            std::vector<double> da1(B * hidden), dz1(B * hidden), dhj(B * width);
            denseBackward(a1[j].data(), params[4 + 4 * j].data(), dy.data(), (*grads)[4 + 4 * j].data(), (*grads)[5 + 4 * j].data(),
                          da1.data(), B, hidden, width);
            activationBackward(Activation::Tanh, z1[j].data(), a1[j].data(), da1.data(), dz1.data(), B * hidden);
            denseBackward(h.data(), params[2 + 4 * j].data(), dz1.data(), (*grads)[2 + 4 * j].data(), (*grads)[3 + 4 * j].data(),
                          dhj.data(), B, width, hidden);
            for (std::int64_t i = 0; i < B * width; ++i) dh[i] += dhj[i];  // the branch's term
        }
        std::vector<double> dz0(B * width);
        activationBackward(Activation::Tanh, z0.data(), h.data(), dh.data(), dz0.data(), B * width);
        denseBackward(x.data(), params[0].data(), dz0.data(), (*grads)[0].data(), (*grads)[1].data(), static_cast<double*>(nullptr), B, in,
                      width);
        return total * scale;
    }
};

/// The double reference of `model`'s block on the 16 examples gradientsOf trains on, with the
/// model's own parameters.
ResidualNet referenceOf(const Model& model, std::int64_t branches, const DataSplit& data) {
    ResidualNet net;
    net.branches = branches;
    net.batch = 16;
    std::vector<std::int64_t> indices(16);
    std::iota(indices.begin(), indices.end(), 0);
    Tensor scratch;
    BatchTargets targets;
    const ConstTensorView input = gatherBatch(data.train, indices, scratch, targets);
    net.x.assign(input.values().begin(), input.values().end());
    net.labels = targets.labels;
    const std::vector<std::int64_t> sizes = net.sizes();
    if (model.store().infos().size() != sizes.size())
        qFatal("the store has %zu parameters, the reference %zu", model.store().infos().size(), sizes.size());
    for (std::size_t p = 0; p < sizes.size(); ++p) {
        const auto& info = model.store().infos()[p];
        if (info.size != sizes[p])
            qFatal("parameter %zu (%s) has %lld values, the reference %lld", p, info.name.c_str(), static_cast<long long>(info.size),
                   static_cast<long long>(sizes[p]));
        const float* values = model.store().value(static_cast<int>(p));
        net.params.emplace_back(values, values + info.size);
    }
    return net;
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

    void finiteDifferences_data() {
        QTest::addColumn<int>("branches");
        QTest::newRow("1 branch") << 1;
        QTest::newRow("3 branches") << 3;
    }

    // The double reference against central differences, every parameter, as the dense layer's check.
    void finiteDifferences() {
        QFETCH(int, branches);
        const DataSplit data = makeClassificationData(32, 5, 3, 1);
        Model model(residualModel(AggregationMethod::Tree, branches), 5);
        model.initialize(InitKind::GlorotUniform, 3);
        ResidualNet net = referenceOf(model, branches, data);
        std::vector<std::vector<double>> analytic;
        net.loss(&analytic);
        const double h = 1e-6;
        std::int64_t checked = 0;
        for (std::size_t p = 0; p < net.params.size(); ++p) {
            double worst = 0.0;
            for (std::size_t i = 0; i < net.params[p].size(); ++i) {
                const double saved = net.params[p][i];
                net.params[p][i] = saved + h;
                const double plus = net.loss();
                net.params[p][i] = saved - h;
                const double minus = net.loss();
                net.params[p][i] = saved;
                const double numeric = (plus - minus) / (2 * h);
                worst = std::max(worst, std::abs(numeric - analytic[p][i]) / std::max(1e-6, std::abs(numeric) + std::abs(analytic[p][i])));
                ++checked;
            }
            QVERIFY2(
                worst <= 1e-6,
                qPrintable(QString("%1: worst relative error %2").arg(QString::fromStdString(model.store().infos()[p].name)).arg(worst)));
        }
        QCOMPARE(checked, model.store().totalSize());
    }

    // The float engine (ResidualLayer, add_n and tree) against the double reference, every parameter.
    void engineMatchesTheDoubleReference_data() {
        QTest::addColumn<int>("method");
        QTest::addColumn<int>("branches");
        for (int branches : {1, 3}) {
            QTest::addRow("add_n, %d", branches) << static_cast<int>(AggregationMethod::AddN) << branches;
            QTest::addRow("tree, %d", branches) << static_cast<int>(AggregationMethod::Tree) << branches;
        }
    }

    void engineMatchesTheDoubleReference() {
        QFETCH(int, method);
        QFETCH(int, branches);
        const DataSplit data = makeClassificationData(32, 5, 3, 1);
        const ModelConfig config = residualModel(static_cast<AggregationMethod>(method), branches);
        const Gradients engine = gradientsOf(config, data);
        Model model(config, 5);
        model.initialize(InitKind::GlorotUniform, 3);  // the parameters gradientsOf starts from
        const ResidualNet net = referenceOf(model, branches, data);
        std::vector<std::vector<double>> expected;
        const double loss = net.loss(&expected);
        QVERIFY2(std::abs(engine.loss - loss) < 1e-5, qPrintable(QString("loss %1, reference %2").arg(engine.loss).arg(loss)));
        std::int64_t checked = 0;
        for (std::size_t p = 0; p < expected.size(); ++p) {
            const std::int64_t offset = model.store().infos()[p].offset;
            for (std::size_t i = 0; i < expected[p].size(); ++i, ++checked) {
                const double got = engine.values[static_cast<std::size_t>(offset) + i];
                QVERIFY2(std::abs(got - expected[p][i]) < 1e-5, qPrintable(QString("%1[%2]: engine %3, reference %4")
                                                                               .arg(QString::fromStdString(model.store().infos()[p].name))
                                                                               .arg(i)
                                                                               .arg(got)
                                                                               .arg(expected[p][i])));
            }
        }
        QCOMPARE(checked, static_cast<std::int64_t>(engine.values.size()));
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
