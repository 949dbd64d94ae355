// Run config: the spec's example, defaults, round trip, overrides, files and enums (bad input:
// test_run_config_errors.cpp).
#include <distlab/config/run_config_json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "run_config_fixtures.hpp"

#include <cstdint>
#include <string>

using namespace distlab;
using namespace distlab::testing;

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
        expected.model.layers = {LayerConfig{"dense", 4, Activation::Linear, ""}, LayerConfig{"dense", 2, Activation::Linear, ""}};
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
        const Result<RunConfig> replicas = parseRunConfig(
            minimalWith(R"("strategy": {"type": "mirrored", "replicas": 3}, "data": {"global_batch_size": 33})"), "run.json");
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
        const Result<RunConfig> carved =
            parseRunConfig(minimalWith(R"("strategy": {"type": "mirrored", "devices": ["gpu:0", "gpu:1", "gpu:2", "gpu:3"],
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
            minimalWith(
                R"("strategy": {"type": "mirrored", "replicas": 2, "gpu": {"logical_per_physical": 2}}, "data": {"global_batch_size": 8})"),
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
        for (const char* unused : {"\"path\"", "\"test_path\"", "\"label_column\"", "\"images\"", "\"labels\"", "\"features\"",
                                   "\"classes\"", "\"outputs\"", "\"devices\"", "\"num_packs\"", "\"gradient_accumulation_steps\"",
                                   "\"cross_device_ops\"", "\"gradients_to_aggregate\"", "\"max_shard_bytes\"", "\"min_shard_bytes\""}) {
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
        for (const char* key : {"\"name\"", "\"seed\"", "\"model\"", "\"data\"", "\"optimizer\"", "\"strategy\"", "\"precision\"",
                                "\"steps\"", "\"threads\"", "\"eval_every\""}) {
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
        const Result<std::string> text =
            applyOverrides(kSpecExample,
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
        const Result<std::string> created = applyOverrides(minimalWith(R"("strategy": {"type": "mirrored", "replicas": 4})"),
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
        QTest::newRow("no equals") << "steps"
                                   << R"(run.json: --set "steps": expected key.path=value)";
        QTest::newRow("empty key") << "=3"
                                   << R"(run.json: --set "=3": expected key.path=value)";
        QTest::newRow("bad index") << "model.layers[x].units=3"
                                   << R"(run.json: --set "model.layers[x].units=3": expected)";
        QTest::newRow("through a number") << "steps.x=1"
                                          << R"(run.json: --set "steps.x=1": steps is a number, not an object)";
        QTest::newRow("past the end")
            << "model.layers[9].units=1"
            << R"(run.json: --set "model.layers[9].units=1": model.layers has 3 elements; index 9 is past the end)";
        QTest::newRow("index an object") << "model[0]=1"
                                         << R"(run.json: --set "model[0]=1": model is an object, not an array)";
    }

    void badOverrides() {
        QFETCH(QString, setting);
        QFETCH(QString, expected);
        const Result<std::string> result = applyOverrides(kSpecExample, {setting.toStdString()}, "run.json");
        QVERIFY(!result.ok());
        QVERIFY2(q(result.error().message).startsWith(expected), result.error().message.c_str());
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
        QCOMPARE(q(validateRunConfig(config, "gui").error().message),
                 QStringLiteral("gui: optimizer.learning_rate: must be > 0 (got inf)"));
        config.optimizer.learningRate = 0.1;
        config.strategy.type = StrategyKind::Mirrored;
        config.strategy.devices = {cpu(0), cpu(1), cpu(2)};
        QCOMPARE(q(validateRunConfig(config, "gui").error().message),
                 QStringLiteral("gui: data.global_batch_size: 32 does not divide among 3 replicas x 1 accumulation steps"));
    }
};

QTEST_APPLESS_MAIN(TestRunConfig)
#include "test_run_config.moc"
