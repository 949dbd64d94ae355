// Finite-difference gradient checks in double for the dense layer, every activation and both
// losses, plus a check that the float engine path matches the double kernels, and that a model's
// backward, where a layer applies the derivative of the ReLU before it, gives the gradients of
// each layer's own passes bit for bit.
#include <QtTest>

#include <cmath>
#include <vector>

#include "distlab/core/rng.hpp"
#include "distlab/model/loss.hpp"
#include "distlab/model/model.hpp"
#include "model/dense_kernels.hpp"
#include "tensor/parallel_ranges.hpp"

using namespace distlab;

namespace {

std::vector<double> randomVector(Rng& rng, std::size_t n, double scale = 1.0) {
    std::vector<double> v(n);
    for (auto& x : v) x = rng.normal() * scale;
    return v;
}

// The loss of a two-layer network: dense(act) -> dense(linear) -> loss, all in double.
struct TinyNet {
    std::int64_t batch = 5, in = 4, hidden = 6, out = 3;
    Activation act = Activation::Tanh;
    LossKind loss = LossKind::SoftmaxCrossEntropy;
    std::vector<double> x, w1, b1, w2, b2, target;
    std::vector<std::int32_t> labels;

    double forward(std::vector<double>* dw1 = nullptr, std::vector<double>* db1 = nullptr, std::vector<double>* dw2 = nullptr,
                   std::vector<double>* db2 = nullptr, std::vector<double>* dx = nullptr) const {
        std::vector<double> z1(batch * hidden), a1(batch * hidden), z2(batch * out), dz2(batch * out);
        kernels::denseForward(x.data(), w1.data(), b1.data(), z1.data(), batch, in, hidden);
        kernels::activate(act, z1.data(), a1.data(), batch * hidden);
        kernels::denseForward(a1.data(), w2.data(), b2.data(), z2.data(), batch, hidden, out);
        const double scale = 1.0 / static_cast<double>(batch);
        double total = loss == LossKind::SoftmaxCrossEntropy
                           ? kernels::softmaxCrossEntropy<double>(z2.data(), labels.data(), dz2.data(), batch, out, scale, nullptr)
                           : kernels::meanSquaredError<double>(z2.data(), target.data(), dz2.data(), batch, out, scale);
        if (dw1 != nullptr) {
            std::vector<double> da1(batch * hidden), dz1(batch * hidden);
            dw2->assign(w2.size(), 0.0);
            db2->assign(b2.size(), 0.0);
            dw1->assign(w1.size(), 0.0);
            db1->assign(b1.size(), 0.0);
            dx->assign(x.size(), 0.0);
            kernels::denseBackward(a1.data(), w2.data(), dz2.data(), dw2->data(), db2->data(), da1.data(), batch, hidden, out);
            kernels::activationBackward(act, z1.data(), a1.data(), da1.data(), dz1.data(), batch * hidden);
            kernels::denseBackward(x.data(), w1.data(), dz1.data(), dw1->data(), db1->data(), dx->data(), batch, in, hidden);
        }
        return total * scale;
    }
};

TinyNet makeNet(Activation act, LossKind loss, std::uint64_t seed) {
    TinyNet net;
    net.act = act;
    net.loss = loss;
    Rng rng(seed);
    net.x = randomVector(rng, net.batch * net.in);
    net.w1 = randomVector(rng, net.in * net.hidden, 0.7);
    net.b1 = randomVector(rng, net.hidden, 0.3);
    net.w2 = randomVector(rng, net.hidden * net.out, 0.7);
    net.b2 = randomVector(rng, net.out, 0.3);
    net.target = randomVector(rng, net.batch * net.out);
    for (std::int64_t i = 0; i < net.batch; ++i) net.labels.push_back(static_cast<std::int32_t>(rng.below(net.out)));
    if (act == Activation::Relu)  // keep pre-activations away from the kink, where the derivative jumps
        for (auto& b : net.b1) b += (b >= 0 ? 0.05 : -0.05);
    return net;
}

// Compares an analytic gradient with central differences over every element of `param`.
void checkParameter(TinyNet& net, std::vector<double>& param, const std::vector<double>& analytic, const char* what) {
    const double h = 1e-6;
    double worst = 0.0;
    for (std::size_t i = 0; i < param.size(); ++i) {
        const double saved = param[i];
        param[i] = saved + h;
        const double plus = net.forward();
        param[i] = saved - h;
        const double minus = net.forward();
        param[i] = saved;
        const double numeric = (plus - minus) / (2 * h);
        const double error = std::abs(numeric - analytic[i]) / std::max(1e-6, std::abs(numeric) + std::abs(analytic[i]));
        worst = std::max(worst, error);
    }
    if (worst > 1e-6) QFAIL(qPrintable(QString("%1: worst relative error %2").arg(what).arg(worst)));
}

}  // namespace

class TestGradients : public QObject {
    Q_OBJECT
private slots:
    void denseAndActivations_data() {
        QTest::addColumn<int>("activation");
        QTest::addColumn<int>("loss");
        for (auto act : {Activation::Linear, Activation::Relu, Activation::Tanh, Activation::Sigmoid, Activation::Gelu})
            for (auto loss : {LossKind::SoftmaxCrossEntropy, LossKind::MeanSquaredError})
                QTest::newRow(qPrintable(QString("%1/%2").arg(configName(act)).arg(configName(loss))))
                    << static_cast<int>(act) << static_cast<int>(loss);
    }

    void denseAndActivations() {
        QFETCH(int, activation);
        QFETCH(int, loss);
        TinyNet net = makeNet(static_cast<Activation>(activation), static_cast<LossKind>(loss), 42 + activation * 7 + loss);
        std::vector<double> dw1, db1, dw2, db2, dx;
        net.forward(&dw1, &db1, &dw2, &db2, &dx);
        checkParameter(net, net.w1, dw1, "kernel 1");
        checkParameter(net, net.b1, db1, "bias 1");
        checkParameter(net, net.w2, dw2, "kernel 2");
        checkParameter(net, net.b2, db2, "bias 2");
        checkParameter(net, net.x, dx, "input");
    }

    void softmaxCrossEntropyKnownValue() {
        // logits [0, ln 3] with label 1: p = [1/4, 3/4], loss = -ln(3/4).
        const double logits[2] = {0.0, std::log(3.0)};
        const std::int32_t label = 1;
        double grad[2];
        std::int64_t correct = 0;
        const double loss = kernels::softmaxCrossEntropy<double>(logits, &label, grad, 1, 2, 1.0, &correct);
        QCOMPARE(loss, -std::log(0.75));
        QVERIFY(std::abs(grad[0] - 0.25) < 1e-15);
        QVERIFY(std::abs(grad[1] + 0.25) < 1e-15);
        QCOMPARE(correct, std::int64_t{1});
    }

    void meanSquaredErrorKnownValue() {
        // per example: mean over outputs of (p - t)^2 = ((1)^2 + (2)^2) / 2 = 2.5
        const double pred[2] = {1.0, 3.0}, target[2] = {0.0, 1.0};
        double grad[2];
        QCOMPARE(kernels::meanSquaredError<double>(pred, target, grad, 1, 2, 1.0), 2.5);
        QCOMPARE(grad[0], 1.0);
        QCOMPARE(grad[1], 2.0);
    }

    void floatModelMatchesDoubleKernels() {
        // The float engine path (Model, DenseLayer, LossFunction) against the double kernels.
        ModelConfig config;
        config.layers = {{"dense", 6, Activation::Gelu, ""}, {"dense", 3, Activation::Linear, "head"}};
        Model model(config, 4);
        model.initialize(InitKind::GlorotUniform, 7);
        QCOMPARE(model.store().infos()[2].name, std::string("head/kernel"));
        QCOMPARE(model.store().infos()[0].name, std::string("dense_0/kernel"));
        TinyNet net = makeNet(Activation::Gelu, LossKind::SoftmaxCrossEntropy, 9);
        auto copy = [&](std::vector<double>& to, int index) {
            const auto& info = model.store().infos()[static_cast<std::size_t>(index)];
            to.assign(model.store().value(index), model.store().value(index) + info.size);
        };
        copy(net.w1, 0);
        copy(net.b1, 1);
        copy(net.w2, 2);
        copy(net.b2, 3);
        Tensor input({net.batch, net.in}, std::vector<float>(net.x.begin(), net.x.end()));
        BatchTargets targets;
        targets.labels = net.labels;
        Tensor grad;
        ModelContext context = model.makeContext();
        const LossStats stats =
            LossFunction(LossKind::SoftmaxCrossEntropy).evaluate(model.forward(input, context), targets, 1.0f / net.batch, grad);
        model.zeroGradients();
        model.backward(input, grad, context);
        std::vector<double> dw1, db1, dw2, db2, dx;
        const double expectedLoss = net.forward(&dw1, &db1, &dw2, &db2, &dx);
        QVERIFY(std::abs(stats.sum / net.batch - expectedLoss) < 1e-5);
        const std::vector<double>* expected[4] = {&dw1, &db1, &dw2, &db2};
        for (int p = 0; p < 4; ++p)
            for (std::size_t i = 0; i < expected[p]->size(); ++i)
                QVERIFY2(std::abs(model.store().grad(p)[i] - (*expected[p])[i]) < 1e-5, qPrintable(QString("param %1").arg(p)));
    }

    void reluDerivativeAppliedByTheNextLayerGivesTheSameGradients() {
        // Model::backward lets a dense layer apply the derivative of the ReLU layer before it as it
        // writes its input gradient (on the packed kernel, in the product's write-back), and the
        // ReLU layer then skips its own pass; each layer's backward run alone, unmasked, must give
        // the same gradients bit for bit. Layers wide enough for the packed kernel, and a small
        // one (OpenBLAS and a pass where the CPU has it; the team's second thread included).
        ModelConfig config;
        config.layers = {{"dense", 64, Activation::Relu, ""},
                         {"dense", 48, Activation::Relu, ""},
                         {"dense", 4, Activation::Relu, ""},
                         {"dense", 10, Activation::Linear, ""}};
        const std::int64_t batch = 50, features = 40;
        Model model(config, features);
        model.initialize(InitKind::HeNormal, 11);
        Rng rng(13);
        std::vector<float> x(static_cast<std::size_t>(batch * features));
        for (float& v : x) v = static_cast<float>(rng.normal());
        Tensor input({batch, features}, x);
        BatchTargets targets;
        for (std::int64_t i = 0; i < batch; ++i) targets.labels.push_back(static_cast<std::int32_t>(rng.below(10)));
        const LossFunction loss(LossKind::SoftmaxCrossEntropy);
        for (int team : {1, 2}) {
            const ScopedTeamSize scope(team);
            ModelContext context = model.makeContext();
            Tensor grad;
            loss.evaluate(model.forward(input, context), targets, 1.0f / batch, grad);
            model.zeroGradients();
            model.backward(input, grad, context);
            QVERIFY(model.stepPlan().layers[1].maskInputGradient && model.stepPlan().layers[0].gradOutputIsPreActivation);
            const std::vector<float> fused(model.store().grads().begin(), model.store().grads().end());
            ModelContext alone = model.makeContext();
            loss.evaluate(model.forward(input, alone), targets, 1.0f / batch, grad);
            const Tensor* gradient = &grad;
            for (std::size_t i = model.layers().size(); i-- > 0;) {
                alone.layers[i]->overwriteGradients = true;
                gradient = &model.layers()[i]->backward(i == 0 ? input : alone.layers[i - 1]->output, *gradient, i > 0, *alone.layers[i]);
            }
            const std::vector<float> separate(model.store().grads().begin(), model.store().grads().end());
            QVERIFY2(fused == separate, qPrintable(QString("team %1").arg(team)));
        }
    }

    void initializersFollowTheirDistributions() {
        ModelConfig config;
        config.layers = {{"dense", 200, Activation::Relu, ""}};
        Model glorot(config, 300);
        glorot.initialize(InitKind::GlorotUniform, 1);
        const double limit = std::sqrt(6.0 / 500.0);
        double maxAbs = 0, sumSq = 0;
        for (int i = 0; i < 300 * 200; ++i) {
            maxAbs = std::max(maxAbs, std::abs(double(glorot.store().value(0)[i])));
            sumSq += double(glorot.store().value(0)[i]) * glorot.store().value(0)[i];
        }
        QVERIFY(maxAbs <= limit);
        QVERIFY(std::abs(std::sqrt(sumSq / 60000) - limit / std::sqrt(3.0)) < 0.01 * limit);
        Model he(config, 300);
        he.initialize(InitKind::HeNormal, 1);
        sumSq = 0;
        for (int i = 0; i < 300 * 200; ++i) sumSq += double(he.store().value(0)[i]) * he.store().value(0)[i];
        QVERIFY(std::abs(std::sqrt(sumSq / 60000) - std::sqrt(2.0 / 300)) < 0.02 * std::sqrt(2.0 / 300));
        Model zeros(config, 300);
        zeros.initialize(InitKind::Zeros, 1);
        for (float v : zeros.store().values()) QCOMPARE(v, 0.0f);
        // Same seed, same values; another seed, other values.
        Model again(config, 300);
        again.initialize(InitKind::GlorotUniform, 1);
        QVERIFY(std::equal(again.store().values().begin(), again.store().values().end(), glorot.store().values().begin()));
        again.initialize(InitKind::GlorotUniform, 2);
        QVERIFY(!std::equal(again.store().values().begin(), again.store().values().end(), glorot.store().values().begin()));
    }
};

QTEST_APPLESS_MAIN(TestGradients)
#include "test_gradients.moc"
