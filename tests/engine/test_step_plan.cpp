// The step plan (model/step_plan.hpp): where a model's backward fuses SGD's step and folds a
// ReLU's derivative into the next layer's input gradient, from the layers' declared capabilities
// and what the strategy and optimizer do after backward; and that each strategy plans its
// replicas' steps so (a lone replica with plain SGD fuses; Adam, momentum, several replicas or
// accumulation do not). That fused steps give the numbers of unfused ones is checked beside the
// kernels: test_optimizers (SGD's step, bit for bit) and test_gradients (the ReLU folds).
#include <QtTest>

#include <vector>

#include "distlab/model/model.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;

namespace {

constexpr StepUpdate kLonePlainSgd{.plainSgd = true, .gradientStraightToUpdate = true};

LayerConfig residualBlock(std::int64_t width) {
    return LayerConfig{"residual", 0, Activation::Linear, "", {{"dense", width, Activation::Relu, ""}}, 1};
}

/// Each layer's fusions, as "m" (maskInputGradient) and "p" (gradOutputIsPreActivation), "-" for none.
QStringList fusionsOf(const StepPlan& plan) {
    QStringList out;
    for (const LayerFusions& layer : plan.layers)
        out << (QString(layer.maskInputGradient ? "m" : "") + (layer.gradOutputIsPreActivation ? "p" : "")).leftJustified(1, '-');
    return out;
}

}  // namespace

class TestStepPlan : public QObject {
    Q_OBJECT
private slots:
    void aReluBeforeADenseLayerFolds() {
        // relu → relu → tanh → linear: the first two ReLUs' derivatives go to the layer after
        // each; tanh's is the tanh layer's own pass; the first layer has no ReLU before it.
        ModelConfig config;
        config.layers = {{"dense", 12, Activation::Relu, ""},
                         {"dense", 10, Activation::Relu, ""},
                         {"dense", 8, Activation::Tanh, ""},
                         {"dense", 3, Activation::Linear, ""}};
        const Model model(config, 5);
        QCOMPARE(fusionsOf(model.stepPlan()), (QStringList{"p", "mp", "m", "-"}));
    }

    void nothingFoldsAcrossALayerWithoutFusedKernels() {
        // A residual block is no FusingLayer: a ReLU before it keeps its own pass, and nothing
        // after it takes its output as a ReLU's, though its last inner layer is one.
        ModelConfig config;
        config.layers = {{"dense", 6, Activation::Relu, ""}, residualBlock(6), {"dense", 3, Activation::Relu, ""}};
        const Model model(config, 4);
        QCOMPARE(fusionsOf(model.stepPlan()), (QStringList{"-", "-", "-"}));
    }

    void sgdFusesOnlyForThePlainStepOfOneGradient() {
        ModelConfig config;
        config.layers = {{"dense", 12, Activation::Relu, ""}, {"dense", 3, Activation::Linear, ""}};
        Model model(config, 5);
        QVERIFY(!model.stepPlan().fusesSgd);  // as built: nothing known of the update
        model.planStep(kLonePlainSgd);
        QVERIFY(model.stepPlan().fusesSgd);
        QCOMPARE(fusionsOf(model.stepPlan()), (QStringList{"p", "m"}));  // the folds stay
        model.planStep({.plainSgd = false, .gradientStraightToUpdate = true});
        QVERIFY(!model.stepPlan().fusesSgd);
        model.planStep({.plainSgd = true, .gradientStraightToUpdate = false});
        QVERIFY(!model.stepPlan().fusesSgd);

        // Where one layer cannot apply the step, no layer does: the optimizer's pass covers all.
        config.layers.insert(config.layers.begin() + 1, residualBlock(12));
        Model residual(config, 5);
        residual.planStep(kLonePlainSgd);
        QVERIFY(!residual.stepPlan().fusesSgd);
    }

    void backwardRefusesAnSgdStepThePlanDoesNotHave() {
        ModelConfig config;
        config.layers = {{"dense", 3, Activation::Linear, ""}};
        Model model(config, 2);
        ModelContext context = model.makeContext();
        const Tensor input({4, 2}, std::vector<float>(8, 0.5f));
        model.forward(input, context);
        const Tensor grad({4, 3}, std::vector<float>(12, 0.25f));
        FusedSgdStep step{0.1f, 0.0};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, model.backward(input, grad, context, &step));
        model.planStep(kLonePlainSgd);
        model.backward(input, grad, context, &step);
        QVERIFY(step.squareSum > 0.0);
    }

    void strategiesPlanTheirReplicasSteps_data() {
        QTest::addColumn<int>("replicas");
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<int>("accumulation");
        QTest::addColumn<bool>("fuses");
        QTest::newRow("one device, plain SGD") << 1 << int(OptimizerKind::Sgd) << 0.0 << 1 << true;
        QTest::newRow("one device, SGD with momentum") << 1 << int(OptimizerKind::Sgd) << 0.9 << 1 << false;
        QTest::newRow("one device, Adam") << 1 << int(OptimizerKind::Adam) << 0.0 << 1 << false;
        QTest::newRow("mirrored on 2, plain SGD") << 2 << int(OptimizerKind::Sgd) << 0.0 << 1 << false;
        QTest::newRow("accumulating 2, plain SGD") << 1 << int(OptimizerKind::Sgd) << 0.0 << 2 << false;
    }
    void strategiesPlanTheirReplicasSteps() {
        QFETCH(int, replicas);
        QFETCH(int, optimizer);
        QFETCH(double, momentum);
        QFETCH(int, accumulation);
        QFETCH(bool, fuses);
        const RunConfig config = testing::smallConfig(replicas, CrossDeviceOps::Ring, OptimizerKind(optimizer), momentum, accumulation);
        auto trainer = Trainer::create(config, testing::makeClassificationData(48, 4, 3, 5));
        for (int r = 0; r < trainer->replicaCount(); ++r) {
            const StepPlan& plan = trainer->replicaModel(r).stepPlan();
            QCOMPARE(plan.fusesSgd, fuses);
            QCOMPARE(fusionsOf(plan), (QStringList{"-", "p", "m"}));  // tanh → relu → linear, whatever the update
        }
    }
};

QTEST_APPLESS_MAIN(TestStepPlan)
#include "test_step_plan.moc"
