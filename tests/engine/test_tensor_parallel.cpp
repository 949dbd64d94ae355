// Tensor parallelism (Megatron-style column- and row-parallel pairs) against one device: tp = 2
// and 4, alone and in dp x tp meshes, Adam and momentum SGD, end 50 steps with one device's weights
// (relative error <= 1e-5; only the order of a few sums differs). The roles of the layers, the
// all-reduces each device runs (where Megatron puts them, then across the copies) with their
// bytes, and the config's refusals naming their field.
#include <QtTest>

#include <algorithm>
#include <utility>

#include "distlab/config/run_config_json.hpp"
#include "distlab/config/tensor_parallel_plan.hpp"
#include "trainer_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

namespace {

LayerConfig dense(std::int64_t units, Activation activation) { return LayerConfig{"dense", units, activation, ""}; }

/// Two pairs and a last layer left whole: 5 features -> 16 -> 12 -> 8 -> 8 -> 3.
RunConfig baseConfig(OptimizerKind optimizer) {
    RunConfig config = smallConfig(1, CrossDeviceOps::Ring, optimizer, optimizer == OptimizerKind::Sgd ? 0.9 : 0.0, 1);
    config.model.layers = {dense(16, Activation::Tanh), dense(12, Activation::Relu), dense(8, Activation::Tanh), dense(8, Activation::Relu),
                           dense(3, Activation::Linear)};
    config.threads = 2;
    return config;
}

RunConfig tensorParallelConfig(OptimizerKind optimizer, std::int64_t tp, std::int64_t dp = 1) {
    RunConfig config = baseConfig(optimizer);
    config.strategy = StrategyConfig{};
    config.strategy.type = StrategyKind::TensorParallel;
    config.strategy.tensorParallel = tp;
    config.strategy.dataParallel = dp;
    config.strategy.crossDeviceOps = CrossDeviceOps::Ring;
    for (int d = 0; d < tp * dp; ++d) config.strategy.devices.push_back({DeviceName::Kind::Cpu, d});
    return config;
}

std::unique_ptr<Trainer> makeTrainer(const RunConfig& config) {
    const Status valid = validateRunConfig(config, "test.json");
    if (!valid) qFatal("%s", valid.error().message.c_str());
    return Trainer::create(config, makeClassificationData(96, 5, 3, 7));
}

std::string refusal(const std::string& strategy, const std::string& layers) {
    const Result<RunConfig> parsed =
        parseRunConfig(R"({"model":{"layers":)" + layers + R"(},"data":{"global_batch_size":24},"strategy":)" + strategy + "}", "run.json");
    return parsed ? std::string("accepted") : parsed.error().message;
}

}  // namespace

class TestTensorParallel : public QObject {
    Q_OBJECT

private slots:
    void everySplitEndsWithOneDevicesWeights_data() {
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("dp");
        QTest::addColumn<int>("optimizer");
        for (const auto optimizer : {OptimizerKind::Adam, OptimizerKind::Sgd})
            for (const auto& [tp, dp] : {std::pair{2, 1}, std::pair{4, 1}, std::pair{2, 2}, std::pair{2, 3}})
                QTest::addRow("tp=%d dp=%d, %s", tp, dp, optimizer == OptimizerKind::Adam ? "adam" : "momentum sgd")
                    << tp << dp << static_cast<int>(optimizer);
    }
    void everySplitEndsWithOneDevicesWeights() {
        QFETCH(int, tp);
        QFETCH(int, dp);
        QFETCH(int, optimizer);
        const auto kind = static_cast<OptimizerKind>(optimizer);
        auto split = makeTrainer(tensorParallelConfig(kind, tp, dp));
        auto one = makeTrainer(baseConfig(kind));
        for (int s = 0; s < 50; ++s) {
            const double splitLoss = split->step().loss;
            QVERIFY2(std::abs(splitLoss - one->step().loss) <= 1e-5 * std::max(1.0, std::abs(splitLoss)), qPrintable(QString::number(s)));
        }
        const double error = relativeError(valuesOf(*split), valuesOf(*one));
        QVERIFY2(error <= 1e-5, qPrintable(QString::number(error)));
        // Every data-parallel copy ends with the same variables.
        for (int copy = 1; copy < dp; ++copy) {
            const std::span<const float> first = split->replicaModel(0).store().values();
            const std::span<const float> other = split->replicaModel(copy * tp).store().values();
            QVERIFY(std::equal(first.begin(), first.end(), other.begin(), other.end()));
        }
    }

    void eachDeviceSumsItsShareOfTheGradientAcrossTheCopies() {
        // dp = 2, tp = 2 on the 5 -> 16 -> 12 -> 8 -> 8 -> 3 model: rank 0 owns 5 x 8 + 8 columns of
        // layer 0, 8 x 12 rows of layer 1 and its bias of 12, 12 x 4 + 4 of layer 2, 4 x 8 rows of
        // layer 3 and its bias of 8, and the whole last layer (8 x 3 + 3): 275 values; rank 1 the
        // same without the biases and the last layer: 228. A ring between 2 copies sends all of them.
        auto trainer = makeTrainer(tensorParallelConfig(OptimizerKind::Adam, 2, 2));
        const StepReport& report = trainer->step();
        QCOMPARE(report.replicas.size(), std::size_t{4});
        const std::vector<std::int64_t> owned = {275, 228};
        for (std::size_t lane = 0; lane < report.replicas.size(); ++lane) {
            std::vector<std::int64_t> sent;
            for (const Span& span : report.replicas[lane].spans)
                if (span.kind == SpanKind::AllReduce) sent.push_back(span.bytes);
            // The copy's three tensor-parallel all-reduces of its 12 samples, then the copies' one.
            QCOMPARE(sent, (std::vector<std::int64_t>{12 * 12 * 4, 12 * 8 * 4, 12 * 12 * 4, owned[lane % 2] * 4}));
            QCOMPARE(report.replicas[lane].examples, std::int64_t{12});
        }
    }

    void pairsAreColumnThenRowAndALoneLayerIsWhole() {
        const auto plan = planTensorParallel(baseConfig(OptimizerKind::Adam).model, 5, 4);
        QVERIFY(plan);
        const std::vector<TensorParallelRole> roles = {TensorParallelRole::Column, TensorParallelRole::Row, TensorParallelRole::Column,
                                                       TensorParallelRole::Row, TensorParallelRole::Replicated};
        QCOMPARE(plan->size(), roles.size());
        for (std::size_t i = 0; i < roles.size(); ++i) QCOMPARE((*plan)[i].role, roles[i]);
        QCOMPARE((*plan)[2].inputs, std::int64_t{12});
        QCOMPARE(std::string(roleName(TensorParallelRole::Row)), std::string("row"));
    }

    void eachDeviceAllReducesWhereMegatronDoes() {
        // Forward: the two row layers' partial products ([24, 12] and [24, 8]); backward: the second
        // column layer's input gradient ([24, 12]); the first layer's input needs none. A ring
        // all-reduce of B bytes over n devices sends 2 (n - 1) / n B from each.
        for (const int tp : {2, 4}) {
            auto trainer = makeTrainer(tensorParallelConfig(OptimizerKind::Adam, tp));
            const StepReport& report = trainer->step();
            QCOMPARE(static_cast<int>(report.replicas.size()), tp);
            const std::vector<std::int64_t> buffers = {24 * 12 * 4, 24 * 8 * 4, 24 * 12 * 4};
            for (const ReplicaStepStats& lane : report.replicas) {
                std::vector<std::int64_t> sent;
                for (const Span& span : lane.spans)
                    if (span.kind == SpanKind::AllReduce) sent.push_back(span.bytes);
                QCOMPARE(sent.size(), buffers.size());
                for (std::size_t i = 0; i < buffers.size(); ++i) QCOMPARE(sent[i], buffers[i] * 2 * (tp - 1) / tp);
                QCOMPARE(lane.examples, std::int64_t{24});  // every device computes the whole batch
            }
        }
    }

    void theConfigRoundTrips() {
        const RunConfig config = tensorParallelConfig(OptimizerKind::Sgd, 4);
        QVERIFY(validateRunConfig(config, "test.json"));
        const Result<RunConfig> back = parseRunConfig(runConfigToJson(config), "back.json");
        QVERIFY2(back, back ? "" : back.error().message.c_str());
        QVERIFY(*back == withUnusedKeysReset(config));
        QCOMPARE(back->strategy.devices.size(), std::size_t{4});
    }

    void unsplittableModelsAreRefusedNamingTheirField_data() {
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("layers");
        QTest::addColumn<QString>("expected");
        const QString pair = R"([{"type":"dense","units":8},{"type":"dense","units":3}])";
        QTest::addRow("columns that do not divide")
            << R"({"type":"tensor_parallel","tensor_parallel":3})" << pair
            << "model.layers[0].units: 8 output columns do not split among tensor_parallel 3 devices";
        QTest::addRow("a residual block") << R"({"type":"tensor_parallel"})"
                                          << R"([{"type":"residual","layers":[{"type":"dense","units":2}]},{"type":"dense","units":3}])"
                                          << "model.layers[0]: tensor parallelism splits dense layers; a residual layer is not split";
        QTest::addRow("copies that do not divide the batch") << R"({"type":"tensor_parallel","data_parallel":5})" << pair
                                                             << "data.global_batch_size: 24 does not divide among data_parallel 5 copies";
        QTest::addRow("too many devices") << R"({"type":"tensor_parallel","tensor_parallel":64,"data_parallel":32})" << pair
                                          << "strategy.data_parallel: must be an integer in [1, 16]";
        QTest::addRow("no device") << R"({"type":"tensor_parallel","tensor_parallel":0})" << pair
                                   << "strategy.tensor_parallel: must be an integer in [1, 64] (got 0)";
        QTest::addRow("a key of another strategy")
            << R"({"type":"tensor_parallel","stages":2})" << pair << "strategy.stages: unknown key (expected one of: type, tensor_parallel";
    }
    void unsplittableModelsAreRefusedNamingTheirField() {
        QFETCH(QString, strategy);
        QFETCH(QString, layers);
        QFETCH(QString, expected);
        const QString message = QString::fromStdString(refusal(strategy.toStdString(), layers.toStdString()));
        QVERIFY2(message.contains(QStringLiteral("run.json")) && message.contains(expected), qPrintable(message));
    }
};

QTEST_GUILESS_MAIN(TestTensorParallel)
#include "test_tensor_parallel.moc"
