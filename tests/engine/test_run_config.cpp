// Run config: the spec's example, defaults, round trip, overrides and one test per kind of bad input.
#include <distlab/io/run_config_json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <cstdint>
#include <string>

using namespace distlab;

namespace {

// The example of docs/interfaces.md §1.1, verbatim.
const char* const kSpecExample = R"({
  "name": "fashion-mirrored-4",
  "seed": 1234,
  "model": {
    "layers": [
      {"type": "dense", "units": 256, "activation": "relu"},
      {"type": "dense", "units": 128, "activation": "relu", "name": "hidden"},
      {"type": "dense", "units": 10}
    ],
    "loss": "softmax_cross_entropy",
    "init": "glorot_uniform"
  },
  "data": {
    "source": "csv",
    "path": "train.csv",
    "test_path": "test.csv",
    "label_column": -1,
    "shuffle": true,
    "global_batch_size": 256
  },
  "optimizer": {"type": "sgd", "learning_rate": 0.01, "momentum": 0.0},
  "strategy": {
    "type": "mirrored",
    "devices": ["cpu:0", "cpu:1", "cpu:2", "cpu:3"],
    "cross_device_ops": "ring",
    "num_packs": 1,
    "gradient_accumulation_steps": 1
  },
  "precision": "float32",
  "steps": 1000
}
)";

QString q(const std::string& text) { return QString::fromStdString(text); }

QString errorOf(const Result<RunConfig>& result) {
    return result.ok() ? QStringLiteral("<parsed without error>") : q(result.error().message);
}

// A valid config with one extra "section" text spliced in at the top level.
std::string minimalWith(const std::string& extra) {
    return R"({"model": {"layers": [{"units": 4}, {"units": 2}]})" + (extra.empty() ? "" : ", " + extra) + "}";
}

DeviceName cpu(int index) { return DeviceName{DeviceName::Kind::Cpu, index}; }

}  // namespace

class TestRunConfig : public QObject {
    Q_OBJECT

private slots:
    void specExampleParses() {
        const Result<RunConfig> result = parseRunConfig(kSpecExample, "run.json");
        QVERIFY2(result.ok(), qPrintable(errorOf(result)));
        const RunConfig& c = *result;
        QCOMPARE(q(c.name), QStringLiteral("fashion-mirrored-4"));
        QCOMPARE(c.seed, std::uint64_t{1234});
        QCOMPARE(c.model.layers.size(), std::size_t{3});
        QCOMPARE(q(c.model.layers[0].type), QStringLiteral("dense"));
        QCOMPARE(c.model.layers[0].units, std::int64_t{256});
        QVERIFY(c.model.layers[0].activation == Activation::Relu);
        QVERIFY(c.model.layers[0].name.empty());
        QCOMPARE(c.model.layers[1].units, std::int64_t{128});
        QCOMPARE(q(c.model.layers[1].name), QStringLiteral("hidden"));
        QCOMPARE(c.model.layers[2].units, std::int64_t{10});
        QVERIFY(c.model.layers[2].activation == Activation::Linear);
        QVERIFY(c.model.loss == LossKind::SoftmaxCrossEntropy);
        QVERIFY(c.model.init == InitKind::GlorotUniform);
        QVERIFY(c.data.source == DataSource::Csv);
        QCOMPARE(q(c.data.path), QStringLiteral("train.csv"));
        QCOMPARE(q(c.data.testPath), QStringLiteral("test.csv"));
        QCOMPARE(c.data.labelColumn, std::int64_t{-1});
        QCOMPARE(c.data.shuffle, true);
        QCOMPARE(c.data.globalBatchSize, std::int64_t{256});
        QVERIFY(c.optimizer.type == OptimizerKind::Sgd);
        QCOMPARE(c.optimizer.learningRate, 0.01);
        QCOMPARE(c.optimizer.momentum, 0.0);
        QVERIFY(c.strategy.type == StrategyKind::Mirrored);
        QVERIFY((c.strategy.devices == std::vector<DeviceName>{cpu(0), cpu(1), cpu(2), cpu(3)}));
        QCOMPARE(c.strategy.replicaCount(), std::int64_t{4});
        QVERIFY(c.strategy.crossDeviceOps == CrossDeviceOps::Ring);
        QCOMPARE(c.strategy.numPacks, std::int64_t{1});
        QCOMPARE(c.strategy.gradientAccumulationSteps, std::int64_t{1});
        QVERIFY(c.precision == Precision::Float32);
        QCOMPARE(c.steps, std::int64_t{1000});
        QCOMPARE(c.threads, std::int64_t{0});
        QCOMPARE(c.evalEvery, std::int64_t{0});
        QVERIFY(c.baseDirectory.empty());
    }

    void defaultsApply() {
        const Result<RunConfig> result = parseRunConfig(minimalWith(""), "run.json");
        QVERIFY2(result.ok(), qPrintable(errorOf(result)));
        RunConfig expected;
        expected.model.layers = {LayerConfig{"dense", 4, Activation::Linear, ""},
                                 LayerConfig{"dense", 2, Activation::Linear, ""}};
        expected.strategy.devices = {cpu(0)};
        QVERIFY(*result == expected);
        QCOMPARE(q(result->name), QStringLiteral("run"));
        QCOMPARE(result->steps, std::int64_t{1000});
        QCOMPARE(result->data.globalBatchSize, std::int64_t{32});
        QVERIFY(result->data.source == DataSource::Synthetic);
        QCOMPARE(result->optimizer.learningRate, 0.01);
        QCOMPARE(result->optimizer.epsilon, 1e-7);
        QVERIFY(result->strategy.type == StrategyKind::OneDevice);

        // mirrored without devices or replicas also runs on cpu:0.
        const Result<RunConfig> mirrored = parseRunConfig(minimalWith(R"("strategy": {"type": "mirrored"})"), "run.json");
        QVERIFY2(mirrored.ok(), qPrintable(errorOf(mirrored)));
        QVERIFY(mirrored->strategy.devices == std::vector<DeviceName>{cpu(0)});
    }

    void replicasShorthandAndGpuDevices() {
        const Result<RunConfig> replicas =
            parseRunConfig(minimalWith(R"("strategy": {"type": "mirrored", "replicas": 3}, "data": {"global_batch_size": 33})"),
                           "run.json");
        QVERIFY2(replicas.ok(), qPrintable(errorOf(replicas)));
        QVERIFY((replicas->strategy.devices == std::vector<DeviceName>{cpu(0), cpu(1), cpu(2)}));

        const Result<RunConfig> gpus = parseRunConfig(
            minimalWith(R"("strategy": {"type": "mirrored", "devices": ["gpu:0", "gpu:12", "gpu:3"]}, "data": {"global_batch_size": 3})"),
            "run.json");
        QVERIFY2(gpus.ok(), qPrintable(errorOf(gpus)));
        QVERIFY((gpus->strategy.devices ==
                 std::vector<DeviceName>{{DeviceName::Kind::Gpu, 0}, {DeviceName::Kind::Gpu, 12}, {DeviceName::Kind::Gpu, 3}}));
        QVERIFY(gpus->strategy.usesGpus());
        QCOMPARE(gpus->strategy.gpu, GpuCarving{});  // one logical GPU per physical GPU, no limit
    }

    void gpuCarvingParsesAndIsWrittenOnlyForGpus() {
        const Result<RunConfig> carved = parseRunConfig(
            minimalWith(R"("strategy": {"type": "mirrored", "devices": ["gpu:0", "gpu:1", "gpu:2", "gpu:3"],
                         "gpu": {"logical_per_physical": 4, "memory_limit_mb": 2048}}, "data": {"global_batch_size": 8})"),
            "run.json");
        QVERIFY2(carved.ok(), qPrintable(errorOf(carved)));
        QCOMPARE(carved->strategy.gpu.logicalPerPhysical, std::int64_t{4});
        QCOMPARE(carved->strategy.gpu.memoryLimitMb, std::int64_t{2048});
        const std::string written = runConfigToJson(*carved);
        QVERIFY(written.find(R"("logical_per_physical": 4)") != std::string::npos);
        const Result<RunConfig> again = parseRunConfig(written, "again.json");
        QVERIFY2(again.ok(), qPrintable(errorOf(again)));
        QVERIFY(*again == *carved);

        // On cpu:K devices the carving is read but not used, so it is not written.
        const Result<RunConfig> cpus = parseRunConfig(
            minimalWith(R"("strategy": {"type": "mirrored", "replicas": 2, "gpu": {"logical_per_physical": 2}}, "data": {"global_batch_size": 8})"),
            "run.json");
        QVERIFY2(cpus.ok(), qPrintable(errorOf(cpus)));
        QVERIFY(runConfigToJson(*cpus).find("\"gpu\"") == std::string::npos);
        QCOMPARE(withUnusedKeysReset(*cpus).strategy.gpu, GpuCarving{});
    }

    void residualAndParameterServerRoundTrip() {
        const std::string text = R"({"model": {"layers": [{"units": 8, "activation": "tanh"},
            {"type": "residual", "branches": 2, "layers": [{"units": 4, "activation": "relu"}, {"units": 8}]}, {"units": 2}],
            "aggregation_method": "tree"},
          "strategy": {"type": "parameter_server", "workers": 3, "parameter_servers": 2, "mode": "sync",
            "worker_speed": [1.0, 0.5], "gradients_to_aggregate": 2, "partitioner": {"type": "min_size", "max_shards": 4}}})";
        const Result<RunConfig> parsed = parseRunConfig(text, "run.json");
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
        QCOMPARE(parsed->model.layers[1].layers.size(), std::size_t{2});
        QCOMPARE(parsed->model.layers[1].branches, std::int64_t{2});
        QCOMPARE(parsed->model.aggregationMethod, AggregationMethod::Tree);
        QCOMPARE(parsed->strategy.workers, std::int64_t{3});
        QCOMPARE(parsed->strategy.mode, ParameterServerMode::Sync);
        QCOMPARE(parsed->strategy.partitioner.kind, PartitionerConfig::Kind::MinSize);
        QCOMPARE(parsed->strategy.replicaCount(), std::int64_t{3});
        const Result<RunConfig> again = parseRunConfig(runConfigToJson(*parsed), "again.json");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QVERIFY(*again == *parsed);
    }

    void roundTrip() {
        const Result<RunConfig> example = parseRunConfig(kSpecExample, "run.json");
        QVERIFY(example.ok());
        const std::string written = runConfigToJson(*example);
        const Result<RunConfig> reread = parseRunConfig(written, "saved.json");
        QVERIFY2(reread.ok(), qPrintable(errorOf(reread)));
        QVERIFY(*reread == *example);
        QCOMPARE(q(runConfigToJson(*reread)), q(written));  // stable text

        // Every non-default value we can set, through both optimizers.
        const std::string rich = R"({
          "name": "rich", "seed": 18446744073709551615, "steps": 0, "threads": 3, "eval_every": 25,
          "model": {"layers": [{"units": 7, "activation": "gelu", "name": "a"}, {"units": 3, "activation": "tanh"},
                               {"units": 1, "activation": "sigmoid"}], "loss": "mse", "init": "he_normal"},
          "data": {"source": "synthetic", "kind": "regression_gauss", "samples": 999, "noise": 0.123456789012345,
                   "train_fraction": 0.75, "features": 5, "classes": 4, "outputs": 1, "shuffle": false,
                   "label_column": 2, "images": "i.gz", "labels": "l.gz", "test_images": "ti", "test_labels": "tl",
                   "global_batch_size": 24},
          "optimizer": {"type": "adam", "learning_rate": 3e-4, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-9},
          "strategy": {"type": "mirrored", "devices": ["gpu:1", "gpu:0"], "cross_device_ops": "hierarchical_copy",
                       "num_packs": 2, "gradient_accumulation_steps": 3},
          "precision": "float32"
        })";
        const Result<RunConfig> first = parseRunConfig(rich, "rich.json");
        QVERIFY2(first.ok(), qPrintable(errorOf(first)));
        QCOMPARE(first->seed, std::uint64_t{18446744073709551615ull});
        QCOMPARE(first->data.noise, 0.123456789012345);
        const Result<RunConfig> second = parseRunConfig(runConfigToJson(*first), "rich.json");
        QVERIFY2(second.ok(), qPrintable(errorOf(second)));
        // The same run: the idx, csv and random keys a synthetic run does not read are not written.
        QVERIFY(*second == withUnusedKeysReset(*first));
        QVERIFY(second->data.kind == first->data.kind && second->data.noise == first->data.noise);
        QCOMPARE(second->data.labelColumn, std::int64_t{-1});
        QCOMPARE(q(runConfigToJson(*second)), q(runConfigToJson(*first)));

        RunConfig sgd = *first;
        sgd.optimizer = OptimizerConfig{OptimizerKind::Sgd, 0.5, 0.9, true};
        const Result<RunConfig> third = parseRunConfig(runConfigToJson(sgd), "sgd.json");
        QVERIFY2(third.ok(), qPrintable(errorOf(third)));
        QVERIFY(third->optimizer == sgd.optimizer);
    }

    void writtenConfigHoldsOnlyWhatTheRunUses() {
        // A parameter-server run on synthetic data whose in-memory config still holds CSV and
        // mirrored values (as the app keeps them when the source or strategy changes).
        RunConfig config;
        config.name = "ps";
        LayerConfig out;
        out.units = 2;
        config.model.layers = {out};
        config.data.path = "old.csv";
        config.data.labelColumn = 3;
        config.data.images = "i.gz";
        config.data.features = 7;
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.devices = {cpu(0), cpu(1)};
        config.strategy.numPacks = 4;
        config.strategy.workers = 3;
        config.strategy.partitioner.kind = PartitionerConfig::Kind::Fixed;
        config.strategy.partitioner.numShards = 2;
        config.strategy.partitioner.maxShardBytes = 4096;
        const std::string text = runConfigToJson(config);
        for (const char* unused : {"\"path\"", "\"test_path\"", "\"label_column\"", "\"images\"", "\"labels\"",
                                   "\"features\"", "\"classes\"", "\"outputs\"", "\"devices\"", "\"num_packs\"",
                                   "\"gradient_accumulation_steps\"", "\"cross_device_ops\"", "\"gradients_to_aggregate\"",
                                   "\"max_shard_bytes\"", "\"min_shard_bytes\""}) {
            QVERIFY2(text.find(unused) == std::string::npos, (std::string(unused) + " in\n" + text).c_str());
        }
        for (const char* used : {"\"kind\"", "\"samples\"", "\"workers\"", "\"num_shards\"", "\"global_batch_size\""}) {
            QVERIFY2(text.find(used) != std::string::npos, used);
        }
        const Result<RunConfig> reread = parseRunConfig(text, "ps.json");
        QVERIFY2(reread.ok(), qPrintable(errorOf(reread)));
        QVERIFY(*reread == withUnusedKeysReset(config));
        QCOMPARE(reread->strategy.workers, std::int64_t{3});
        QCOMPARE(reread->strategy.partitioner.numShards, std::int64_t{2});
        QCOMPARE(q(runConfigToJson(*reread)), q(text));  // saving again changes nothing

        // CSV writes its own keys (test_path only when given); one device has nothing to reduce.
        RunConfig csv = config;
        csv.strategy = StrategyConfig{};
        csv.strategy.numPacks = 3;
        csv.data.source = DataSource::Csv;
        const std::string csvText = runConfigToJson(csv);
        QVERIFY(csvText.find("\"path\": \"old.csv\"") != std::string::npos);
        QVERIFY(csvText.find("\"label_column\": 3") != std::string::npos);
        for (const char* unused : {"\"test_path\"", "\"kind\"", "\"noise\"", "\"samples\"", "\"images\"", "\"num_packs\"",
                                   "\"cross_device_ops\"", "\"workers\""}) {
            QVERIFY2(csvText.find(unused) == std::string::npos, (std::string(unused) + " in\n" + csvText).c_str());
        }
        QVERIFY(csvText.find("\"devices\"") != std::string::npos);
        const Result<RunConfig> csvBack = parseRunConfig(csvText, "csv.json");
        QVERIFY2(csvBack.ok(), qPrintable(errorOf(csvBack)));
        QVERIFY(*csvBack == withUnusedKeysReset(csv));
        QCOMPARE(q(csvBack->data.path), q("old.csv"));
    }

    void writerKeyOrderAndIndent() {
        const Result<RunConfig> example = parseRunConfig(kSpecExample, "run.json");
        QVERIFY(example.ok());
        const std::string text = runConfigToJson(*example);
        QVERIFY(text.starts_with("{\n  \"name\": \"fashion-mirrored-4\",\n  \"seed\": 1234,\n  \"model\": {\n    \"layers\": ["));
        std::size_t last = 0;
        for (const char* key : {"\"name\"", "\"seed\"", "\"model\"", "\"data\"", "\"optimizer\"", "\"strategy\"",
                                "\"precision\"", "\"steps\"", "\"threads\"", "\"eval_every\""}) {
            const std::size_t at = text.find(std::string("\n  ") + key);
            QVERIFY2(at != std::string::npos && at >= last, key);
            last = at;
        }
        QVERIFY(text.find(R"("devices": [
      "cpu:0",
      "cpu:1",)") != std::string::npos);
        QVERIFY(text.find("\"beta1\"") == std::string::npos);  // sgd writes only its own keys
        QVERIFY(text.find("\"name\": \"hidden\"") != std::string::npos);
    }

    void overrides() {
        const Result<std::string> text = applyOverrides(
            kSpecExample,
            {"optimizer.learning_rate=0.1", "strategy.replicas=2", "model.layers[1].units=64", "name=sweep 1",
             "model.layers[3]={\"units\": 5, \"activation\": \"relu\"}", "data.shuffle=false", "eval_every=10"},
            "run.json");
        QVERIFY2(text.ok(), text.ok() ? "" : text.error().message.c_str());
        const Result<RunConfig> c = parseRunConfig(*text, "run.json");
        QVERIFY2(c.ok(), qPrintable(errorOf(c)));
        QCOMPARE(c->optimizer.learningRate, 0.1);
        QVERIFY((c->strategy.devices == std::vector<DeviceName>{cpu(0), cpu(1)}));  // replicas replaced devices
        QCOMPARE(c->model.layers[1].units, std::int64_t{64});
        QCOMPARE(q(c->model.layers[1].name), QStringLiteral("hidden"));  // siblings untouched
        QCOMPARE(q(c->name), QStringLiteral("sweep 1"));                 // not JSON: taken as a string
        QCOMPARE(c->model.layers.size(), std::size_t{4});
        QCOMPARE(c->model.layers[3].units, std::int64_t{5});
        QCOMPARE(c->data.shuffle, false);
        QCOMPARE(c->evalEvery, std::int64_t{10});

        // Creating a missing object, and devices replacing replicas.
        const Result<std::string> created =
            applyOverrides(minimalWith(R"("strategy": {"type": "mirrored", "replicas": 4})"),
                           {"optimizer.momentum=0.5", "strategy.devices=[\"cpu:7\"]"}, "run.json");
        QVERIFY(created.ok());
        const Result<RunConfig> c2 = parseRunConfig(*created, "run.json");
        QVERIFY2(c2.ok(), qPrintable(errorOf(c2)));
        QCOMPARE(c2->optimizer.momentum, 0.5);
        QVERIFY(c2->strategy.devices == std::vector<DeviceName>{cpu(7)});

        // No overrides: the text is untouched, byte for byte.
        QCOMPARE(q(*applyOverrides("{ \"x\" :1 }", {}, "run.json")), QStringLiteral("{ \"x\" :1 }"));

        // A typo in an override surfaces as an unknown key at its path.
        const Result<std::string> typo = applyOverrides(kSpecExample, {"optimizer.learnin_rate=0.1"}, "run.json");
        QVERIFY(typo.ok());
        QCOMPARE(errorOf(parseRunConfig(*typo, "run.json")),
                 QStringLiteral("run.json: optimizer.learnin_rate: unknown key (did you mean \"learning_rate\"?)"));
    }

    void badOverrides_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no equals") << "steps" << R"(run.json: --set "steps": expected key.path=value)";
        QTest::newRow("empty key") << "=3" << R"(run.json: --set "=3": expected key.path=value)";
        QTest::newRow("bad index") << "model.layers[x].units=3" << R"(run.json: --set "model.layers[x].units=3": expected)";
        QTest::newRow("through a number") << "steps.x=1" << R"(run.json: --set "steps.x=1": steps is a number, not an object)";
        QTest::newRow("past the end")
            << "model.layers[9].units=1" << R"(run.json: --set "model.layers[9].units=1": model.layers has 3 elements; index 9 is past the end)";
        QTest::newRow("index an object") << "model[0]=1" << R"(run.json: --set "model[0]=1": model is an object, not an array)";
    }

    void badOverrides() {
        QFETCH(QString, setting);
        QFETCH(QString, expected);
        const Result<std::string> result = applyOverrides(kSpecExample, {setting.toStdString()}, "run.json");
        QVERIFY(!result.ok());
        QVERIFY2(q(result.error().message).startsWith(expected), result.error().message.c_str());
    }

    void malformedJson() {
        // Line 3 is `  "seed": x`; the x is the 11th character of the line and byte 28 of the text.
        const std::string text = "{\n  \"steps\": 10,\n  \"seed\": x\n}\n";
        const QString message = errorOf(parseRunConfig(text, "run.json"));
        QVERIFY2(message.startsWith(QStringLiteral("run.json: byte 28 (line 3, column 11): syntax error: ")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("invalid literal")), qPrintable(message));

        // A stray character on the first line.
        QVERIFY(errorOf(parseRunConfig("{]", "a.json")).startsWith(QStringLiteral("a.json: byte 2 (line 1, column 2): syntax error")));
        QVERIFY(errorOf(parseRunConfig("", "a.json")).startsWith(QStringLiteral("a.json: byte 1 (line 1, column 1): syntax error")));
    }

    // A pasted blob as a key was echoed whole (10 MiB on one line): the message names it, shortened.
    void hugeUnknownKeyIsShortened() {
        const std::string key(10u << 20, 'k');
        const QString message = errorOf(parseRunConfig("{\"" + key + "\": 1}", "big.json"));
        QVERIFY2(message.startsWith(QStringLiteral("big.json: kkkk")), qPrintable(message.left(200)));
        QVERIFY2(message.contains(QStringLiteral("...(10485760 characters): unknown key")), qPrintable(message.left(400)));
        QVERIFY2(message.size() < 1000, qPrintable(QString::number(message.size())));
    }

    void truncatedJson() {
        const std::string full = kSpecExample;
        const std::string cut = full.substr(0, full.find("\"optimizer\"") + 5);  // inside the key string
        const QString message = errorOf(parseRunConfig(cut, "run.json"));
        QVERIFY2(message.startsWith(QStringLiteral("run.json: byte %1 (line 21, column 8): syntax error").arg(cut.size() + 1)),
                 qPrintable(message));

        // Every prefix of a valid file is an error, never a crash or a hang.
        const std::size_t end = full.rfind('}');
        for (std::size_t length = 0; length <= end; ++length) {
            const Result<RunConfig> result = parseRunConfig(full.substr(0, length), "run.json");
            QVERIFY2(!result.ok(), qPrintable(QStringLiteral("prefix of %1 bytes parsed").arg(length)));
            QVERIFY(result.error().message.starts_with("run.json: byte "));
        }
    }

    void badInput_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const std::string& text, const char* expected) {
            QTest::newRow(name) << q(text) << QString::fromUtf8(expected);
        };
        row("unknown top-level key", minimalWith(R"("stepz": 5)"), R"(run.json: stepz: unknown key (did you mean "steps"?))");
        row("unknown key far from any", minimalWith(R"("colour": 5)"),
            "run.json: colour: unknown key (expected one of: name, seed, model, data, optimizer, strategy, precision, "
            "steps, threads, eval_every)");
        row("unknown nested key", minimalWith(R"("optimizer": {"learnin_rate": 0.1})"),
            R"(run.json: optimizer.learnin_rate: unknown key (did you mean "learning_rate"?))");
        row("unknown key in a layer", R"({"model": {"layers": [{"units": 4}, {"units": 2, "activaton": "relu"}]}})",
            R"(run.json: model.layers[1].activaton: unknown key (did you mean "activation"?))");
        row("wrong type number", minimalWith(R"("optimizer": {"learning_rate": "0.1"})"),
            "run.json: optimizer.learning_rate: must be a number (got a string)");
        row("wrong type object", minimalWith(R"("data": [])"), "run.json: data: must be an object (got an array)");
        row("wrong type bool", minimalWith(R"("data": {"shuffle": 1})"), "run.json: data.shuffle: must be true or false (got a number)");
        row("fractional integer", minimalWith(R"("steps": 2.5)"), "run.json: steps: must be an integer (got 2.5)");
        row("negative seed", minimalWith(R"("seed": -1)"), "run.json: seed: must be a non-negative integer (got -1)");
        row("zero units", R"({"model": {"layers": [{"units": 4}, {"units": 0}]}})",
            "run.json: model.layers[1].units: must be an integer in [1, 1048576] (got 0)");
        row("missing units", R"({"model": {"layers": [{"type": "dense"}]}})",
            "run.json: model.layers[0].units: required key is missing (a dense layer needs units >= 1)");
        row("no layers", R"({"model": {"layers": []}})", "run.json: model.layers: must list at least one layer");
        row("no model", R"({"steps": 3})", "run.json: model: required key is missing (the model needs at least one layer)");
        row("not an object", "[1, 2]", "run.json: top level: must be an object (got an array)");
        row("unknown activation", R"({"model": {"layers": [{"units": 4, "activation": "rellu"}]}})",
            R"(run.json: model.layers[0].activation: unknown value "rellu" (did you mean "relu"?); expected one of: linear, relu, tanh, sigmoid, gelu)");
        row("layer not yet available", R"({"model": {"layers": [{"type": "conv2d", "filters": 4}]}})",
            R"(run.json: model.layers[0].type: "conv2d" is not available yet in this version (available: dense, residual))");
        row("duplicate layer name", R"({"model": {"layers": [{"units": 4, "name": "h"}, {"units": 2, "name": "h"}]}})",
            R"(run.json: model.layers[1].name: "h" is already the name of model.layers[0])");
        row("name collides with a default", R"({"model": {"layers": [{"units": 4, "name": "dense_1"}, {"units": 2}]}})",
            R"(run.json: model.layers[1]: its default name "dense_1" is already the name of model.layers[0])");
        row("batch not dividing", minimalWith(R"("strategy": {"type": "mirrored", "replicas": 4}, "data": {"global_batch_size": 30})"),
            "run.json: data.global_batch_size: 30 does not divide among 4 replicas x 1 accumulation steps");
        row("batch not dividing with accumulation",
            minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "cpu:1"], "gradient_accumulation_steps": 3}, "data": {"global_batch_size": 8})"),
            "run.json: data.global_batch_size: 8 does not divide among 2 replicas x 3 accumulation steps");
        row("duplicate device", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "cpu:1", "cpu:1"]})"),
            R"(run.json: strategy.devices[2]: "cpu:1" is listed twice (also at strategy.devices[1]))");
        row("bad device string", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "gpu0"]})"),
            R"(run.json: strategy.devices[1]: "gpu0" is not a device name (expected "cpu:K" or "gpu:K", K >= 0))");
        row("negative device index", minimalWith(R"("strategy": {"devices": ["cpu:-1"]})"),
            R"(run.json: strategy.devices[0]: "cpu:-1" is not a device name (expected "cpu:K" or "gpu:K", K >= 0))");
        row("device not a string", minimalWith(R"("strategy": {"devices": [0]})"),
            "run.json: strategy.devices[0]: must be a string (got a number)");
        row("strategy not yet available", minimalWith(R"("strategy": {"type": "pipeline"})"),
            R"(run.json: strategy.type: "pipeline" is not available yet in this version (available: one_device, mirrored, central_storage, parameter_server))");
        row("residual without layers", std::string(R"({"model": {"layers": [{"type": "residual"}]}})"),
            R"(run.json: model.layers[0].layers: required key is missing (a residual block needs its inner layers))");
        row("parameter-server key on mirrored", minimalWith(R"("strategy": {"type": "mirrored", "workers": 2})"),
            R"(run.json: strategy.workers: unknown key (expected one of: type, devices, replicas, cross_device_ops, num_packs, bytes_per_pack, gradient_accumulation_steps, gpu))");
        row("too many worker speeds", minimalWith(R"("strategy": {"type": "parameter_server", "workers": 1, "worker_speed": [1, 0.5]})"),
            R"(run.json: strategy.worker_speed: 2 speeds for 1 workers)");
        row("worker speed out of range", minimalWith(R"("strategy": {"type": "parameter_server", "worker_speed": [0.05]})"),
            R"(run.json: strategy.worker_speed[0]: must be in [0.1, 1.0] (1 = full speed, 0.5 = twice as slow))");
        row("bad partitioner", minimalWith(R"("strategy": {"type": "parameter_server", "partitioner": {"type": "even"}})"),
            R"(run.json: strategy.partitioner.type: unknown value "even"; expected one of: fixed, min_size, max_size)");
        row("precision not yet available", minimalWith(R"("precision": "mixed_float16")"),
            R"(run.json: precision: "mixed_float16" is not available yet in this version (available: float32))");
        row("cpu and gpu devices mixed", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["gpu:0", "gpu:1", "cpu:0"]}, "data": {"global_batch_size": 3})"),
            R"(run.json: strategy.devices[2]: "cpu:0" mixes device kinds with "gpu:0" at strategy.devices[0]: list only cpu:K or only gpu:K devices (a step would wait for the slowest kind, and no reduction joins host and GPU memory))");
        row("gpu carving not an object", minimalWith(R"("strategy": {"devices": ["gpu:0"], "gpu": 4})"),
            "run.json: strategy.gpu: must be an object (got a number)");
        row("gpu carving unknown key", minimalWith(R"("strategy": {"devices": ["gpu:0"], "gpu": {"memory_limit": 4}})"),
            R"(run.json: strategy.gpu.memory_limit: unknown key (did you mean "memory_limit_mb"?))");
        row("too many logical gpus", minimalWith(R"("strategy": {"devices": ["gpu:0"], "gpu": {"logical_per_physical": 9}})"),
            "run.json: strategy.gpu.logical_per_physical: must be an integer in [1, 8] (got 9)");
        row("no logical gpus", minimalWith(R"("strategy": {"devices": ["gpu:0"], "gpu": {"logical_per_physical": 0}})"),
            "run.json: strategy.gpu.logical_per_physical: must be an integer in [1, 8] (got 0)");
        row("negative gpu memory limit", minimalWith(R"("strategy": {"devices": ["gpu:0"], "gpu": {"memory_limit_mb": -1}})"),
            "run.json: strategy.gpu.memory_limit_mb: must be an integer in [0, 1048576] (got -1)");
        row("devices and replicas", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0"], "replicas": 2})"),
            "run.json: strategy.replicas: give either strategy.devices or strategy.replicas, not both");
        row("one_device with two devices", minimalWith(R"("strategy": {"devices": ["cpu:0", "cpu:1"]})"),
            "run.json: strategy.devices: one_device runs on exactly one device (got 2)");
        row("one_device with replicas", minimalWith(R"("strategy": {"replicas": 2})"),
            "run.json: strategy.replicas: one_device runs on exactly one device (got 2)");
        row("zero replicas", minimalWith(R"("strategy": {"type": "mirrored", "replicas": 0})"),
            "run.json: strategy.replicas: must be an integer in [1, 1024] (got 0)");
        row("bad cross device ops", minimalWith(R"("strategy": {"cross_device_ops": "Ring"})"),
            R"(run.json: strategy.cross_device_ops: unknown value "Ring" (did you mean "ring"?); expected one of: reduction_to_one_device, hierarchical_copy, ring, nccl, tree)");
        row("zero packs", minimalWith(R"("strategy": {"num_packs": 0})"), "run.json: strategy.num_packs: must be an integer >= 1 (got 0)");
        row("momentum with adam", minimalWith(R"("optimizer": {"type": "adam", "momentum": 0.9})"),
            R"(run.json: optimizer.momentum: only used by sgd (optimizer.type is "adam"))");
        row("beta1 with sgd", minimalWith(R"("optimizer": {"beta1": 0.9})"),
            R"(run.json: optimizer.beta1: only used by adam (optimizer.type is "sgd"))");
        row("zero learning rate", minimalWith(R"("optimizer": {"learning_rate": 0})"),
            "run.json: optimizer.learning_rate: must be > 0 (got 0.0)");
        row("momentum one", minimalWith(R"("optimizer": {"momentum": 1.0})"),
            "run.json: optimizer.momentum: must be in [0, 1) (got 1.0)");
        row("csv without path", minimalWith(R"("data": {"source": "csv"})"), R"(run.json: data.path: required when data.source is "csv")");
        row("idx without labels", minimalWith(R"("data": {"source": "idx", "images": "a.gz"})"),
            R"(run.json: data.labels: required when data.source is "idx")");
        row("noise above one", minimalWith(R"("data": {"noise": 1.5})"), "run.json: data.noise: must be in [0, 1] (got 1.5)");
        row("zero train fraction", minimalWith(R"("data": {"train_fraction": 0.0})"),
            "run.json: data.train_fraction: must be in (0, 1] (got 0.0)");
        row("zero samples", minimalWith(R"("data": {"samples": 0})"), "run.json: data.samples: must be an integer >= 1 (got 0)");
        row("negative steps", minimalWith(R"("steps": -1)"), "run.json: steps: must be an integer >= 0 (got -1)");
        row("negative eval_every", minimalWith(R"("eval_every": -5)"), "run.json: eval_every: must be an integer >= 0 (got -5)");
        row("duplicate json key", R"({"model": {"layers": [{"units": 4, "units": 5}]}})",
            "run.json: model.layers[0].units: key appears twice in the same object");
        row("too deep", std::string(200, '[') + std::string(200, ']'),
            "run.json: [0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
            "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 64 levels");
        row("number too large", R"({"steps": 1e400})", "run.json: byte 15 (line 1, column 15): number overflow parsing '1e400'");
    }

    void badInput() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(errorOf(parseRunConfig(text.toStdString(), "run.json")), expected);
    }

    void garbageNeverCrashes() {
        // Deterministic byte mutations of the example: each must parse or fail with a file-named message.
        std::string base = kSpecExample;
        std::uint64_t state = 12345;
        const auto next = [&state] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<std::size_t>(state >> 33);
        };
        int failures = 0;
        for (int round = 0; round < 3000; ++round) {
            std::string text = base;
            for (int edit = 0; edit < 1 + round % 3; ++edit) text[next() % text.size()] = static_cast<char>(next() % 256);
            const Result<RunConfig> result = parseRunConfig(text, "run.json");
            if (!result.ok()) {
                ++failures;
                QVERIFY2(result.error().message.starts_with("run.json: "), result.error().message.c_str());
            }
        }
        QVERIFY(failures > 1000);
    }

    void loadFromFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("run.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(kSpecExample);
        file.close();
        const Result<RunConfig> loaded = loadRunConfig(path.toStdString());
        QVERIFY2(loaded.ok(), qPrintable(errorOf(loaded)));
        QCOMPARE(q(loaded->baseDirectory), QDir(dir.path()).absolutePath());
        QCOMPARE(loaded->model.layers.size(), std::size_t{3});

        const std::string missing = dir.filePath(QStringLiteral("nope.json")).toStdString();
        QCOMPARE(errorOf(loadRunConfig(missing)), q("config: cannot read \"" + missing + "\": No such file or directory"));
        QCOMPARE(errorOf(loadRunConfig(dir.path().toStdString(), {}, "CONFIG")),
                 q("CONFIG: cannot read \"" + dir.path().toStdString() + "\": it is a directory, not a regular file"));

        QFile bad(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"steps\": }");
        bad.close();
        QVERIFY(errorOf(loadRunConfig(bad.fileName().toStdString())).startsWith(bad.fileName() + ": byte 11 (line 1, column 11)"));
    }

    void enumSpellings() {
        QCOMPARE(configName(Activation::Relu), "relu");
        QCOMPARE(configName(Activation::Linear), "linear");
        QCOMPARE(configName(Activation::Gelu), "gelu");
        QCOMPARE(configName(LossKind::SoftmaxCrossEntropy), "softmax_cross_entropy");
        QCOMPARE(configName(LossKind::MeanSquaredError), "mse");
        QCOMPARE(configName(InitKind::GlorotUniform), "glorot_uniform");
        QCOMPARE(configName(InitKind::HeNormal), "he_normal");
        QCOMPARE(configName(DataSource::FashionMnist), "fashion_mnist");
        QCOMPARE(configName(SyntheticKind::RegressionPlane), "regression_plane");
        QCOMPARE(configName(OptimizerKind::Sgd), "sgd");
        QCOMPARE(configName(StrategyKind::OneDevice), "one_device");
        QCOMPARE(configName(StrategyKind::MultiWorkerMirrored), "multi_worker_mirrored");
        QCOMPARE(configName(CrossDeviceOps::ReductionToOneDevice), "reduction_to_one_device");
        QCOMPARE(configName(CrossDeviceOps::HierarchicalCopy), "hierarchical_copy");
        QCOMPARE(configName(CrossDeviceOps::Ring), "ring");
        QCOMPARE(configName(CrossDeviceOps::Nccl), "nccl");
        QCOMPARE(configName(Precision::MixedFloat16), "mixed_float16");
        QCOMPARE(configName(Precision::MixedBfloat16), "mixed_bfloat16");

        StrategyKind strategy{};
        QVERIFY(fromString("pipeline", strategy));
        QVERIFY(strategy == StrategyKind::Pipeline);
        QVERIFY(!fromString("Pipeline", strategy));
        DeviceName device;
        QVERIFY(parseDeviceName("gpu:3", device));
        QVERIFY((device == DeviceName{DeviceName::Kind::Gpu, 3}));
        for (const char* bad : {"gpu:", "cpu:1x", "cpu: 1", "CPU:0", "tpu:0", "cpu:+1", "cpu:99999999999"}) {
            QVERIFY2(!parseDeviceName(bad, device), bad);
        }
    }

    void validateStruct() {
        RunConfig config;  // as the GUI would build it: devices left empty means cpu:0
        config.model.layers = {LayerConfig{"dense", 3, Activation::Relu, ""}};
        QVERIFY(validateRunConfig(config, "gui").ok());
        config.optimizer.learningRate = std::numeric_limits<double>::infinity();
        QCOMPARE(q(validateRunConfig(config, "gui").error().message), QStringLiteral("gui: optimizer.learning_rate: must be > 0 (got inf)"));
        config.optimizer.learningRate = 0.1;
        config.strategy.type = StrategyKind::Mirrored;
        config.strategy.devices = {cpu(0), cpu(1), cpu(2)};
        QCOMPARE(q(validateRunConfig(config, "gui").error().message),
                 QStringLiteral("gui: data.global_batch_size: 32 does not divide among 3 replicas x 1 accumulation steps"));
    }
};

QTEST_APPLESS_MAIN(TestRunConfig)
#include "test_run_config.moc"
