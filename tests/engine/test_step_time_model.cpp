// The study's step-time model (engine/include/distlab/study/step_time_model.hpp): the alpha-beta
// fit, what a prediction is made of, and the strategies it refuses. It does not assert accuracy:
// timings on a shared machine vary too much for a test; `distlab-cli compare --predict` reports
// the error of each prediction beside the measurement.
#include <distlab/io/run_config_json.hpp>
#include <distlab/study/step_time_model.hpp>

#include <QtTest>

#include <vector>

using namespace distlab;

namespace {

RunConfig configWith(const std::vector<std::string>& overrides) {
    const std::string base = R"({"model": {"layers": [{"units": 16, "activation": "tanh"}, {"units": 2}]},)"
                             R"( "data": {"samples": 400, "global_batch_size": 32}})";
    auto text = applyOverrides(base, overrides, "t.json");
    if (!text) qFatal("%s", text.error().message.c_str());
    auto config = parseRunConfig(*text, "t.json");
    if (!config) qFatal("%s", config.error().message.c_str());
    return *config;
}

}  // namespace

class TestStepTimeModel : public QObject {
    Q_OBJECT

private slots:
    void theFitGoesThroughALine() {
        const std::vector<std::pair<double, double>> points{{1000, 2500}, {2000, 4500}, {4000, 8500}};
        const AlphaBeta fit = fitAlphaBeta(points);
        QCOMPARE(fit.alphaNs, 500.0);
        QCOMPARE(fit.betaNsPerByte, 2.0);
        QCOMPARE(fit.ns(3000), 6500.0);
        // Noise that would give a negative latency or bandwidth cost is clamped.
        const std::vector<std::pair<double, double>> falling{{1000, 900}, {2000, 100}};
        QCOMPARE(fitAlphaBeta(falling).betaNsPerByte, 0.0);
        QCOMPARE(fitAlphaBeta({}).alphaNs, 0.0);
    }

    void aPredictionIsComputeCommunicationAndUpdate() {
        StepTimeModel model(2);
        auto one = model.predict(configWith({}));
        QVERIFY2(one.ok(), one.ok() ? "" : one.error().message.c_str());
        QVERIFY(one->computeMs > 0);
        QCOMPARE(one->communicationMs, 0.0);  // one device reduces nothing
        QCOMPARE(one->stepMs, one->computeMs + one->communicationMs + one->optimizerMs);

        auto mirrored = model.predict(configWith({"strategy.type=mirrored", "strategy.replicas=2"}));
        QVERIFY(mirrored.ok());
        QVERIFY(mirrored->communicationMs > 0);
        QCOMPARE(mirrored->stepMs, mirrored->computeMs + mirrored->communicationMs + mirrored->optimizerMs);

        // Four replicas on two cores take turns: their compute stretches by 2 over one replica's
        // (8 examples and one thread either way: measured once and kept).
        auto four = model.predict(configWith({"strategy.type=mirrored", "strategy.replicas=4"}));
        auto quarter = model.predict(configWith({"data.global_batch_size=8", "threads=1"}));
        QVERIFY(four.ok() && quarter.ok());
        QCOMPARE(four->computeMs, 2.0 * quarter->computeMs);

        // Accumulating k micro-batches costs k of them.
        auto accumulated = model.predict(configWith({"strategy.gradient_accumulation_steps=4"}));
        auto micro = model.predict(configWith({"data.global_batch_size=8"}));
        QVERIFY(accumulated.ok() && micro.ok());
        QCOMPARE(accumulated->computeMs, 4.0 * micro->computeMs);
    }

    void strategiesNotModelledAreSaidSo() {
        StepTimeModel model(2);
        auto servers = model.predict(configWith({"strategy.type=parameter_server"}));
        QVERIFY(!servers.ok());
        QCOMPARE(QString::fromStdString(servers.error().message),
                 QStringLiteral("the step-time model does not cover parameter_server yet"));
    }
};

QTEST_GUILESS_MAIN(TestStepTimeModel)
#include "test_step_time_model.moc"
