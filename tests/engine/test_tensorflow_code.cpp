// The TensorFlow code of a run (docs/interfaces.md §3.10): for every example config and the made-up
// configs of tests/golden/tensorflow/configs (every strategy, every cross_device_ops, add_n and tree,
// accumulation, SGD with momentum and Adam, every data source), plus configs the reader refuses but
// the generator still covers (mixed precision, multi-worker mirrored, model parallel), the code is
// byte for byte the golden file tests/golden/tensorflow/<name>.tf.py and compiles with
// `python3 -m py_compile` (skipped without python3). TensorFlow itself is not installed here.
//
// Updating the goldens after a deliberate change: run the test with DISTLAB_UPDATE_GOLDEN=1, e.g.
//   DISTLAB_UPDATE_GOLDEN=1 build/ci/tests/engine/test_tensorflow_code
// and review `git diff tests/golden/tensorflow` before committing.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "distlab/config/run_config_json.hpp"
#include "distlab/exports/tensorflow_code.hpp"

namespace {

const QString kGoldenDir = QStringLiteral(DISTLAB_GOLDEN_DIR "/tensorflow");

QByteArray readFile(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

distlab::RunConfig parsed(const QString& path) {
    // parseRunConfig, not loadRunConfig: data paths stay as written (relative), so the goldens do not
    // depend on where the source tree is.
    auto config = distlab::parseRunConfig(readFile(path).toStdString(), path.toStdString());
    if (!config) qFatal("%s", config.error().message.c_str());
    return *config;
}

/// Configs the reader refuses (not available yet) whose TensorFlow code still says what TensorFlow does.
std::vector<std::pair<QString, distlab::RunConfig>> unreadableConfigs() {
    const distlab::RunConfig base = parsed(kGoldenDir + "/configs/mirrored-reduction-to-one-device-add-n.json");
    distlab::RunConfig mixed = base;
    mixed.name = "made-up-mixed-float16";
    mixed.precision = distlab::Precision::MixedFloat16;
    distlab::RunConfig bfloat = base;
    bfloat.name = "made-up-mixed-bfloat16";
    bfloat.precision = distlab::Precision::MixedBfloat16;
    distlab::RunConfig multiWorker = base;
    multiWorker.name = "made-up-multi-worker-nccl";
    multiWorker.strategy.type = distlab::StrategyKind::MultiWorkerMirrored;
    multiWorker.strategy.crossDeviceOps = distlab::CrossDeviceOps::Nccl;
    distlab::RunConfig modelParallel = base;
    modelParallel.name = "made-up-model-parallel";
    modelParallel.strategy.type = distlab::StrategyKind::ModelParallel;
    return {{mixed.name.c_str(), mixed},
            {bfloat.name.c_str(), bfloat},
            {multiWorker.name.c_str(), multiWorker},
            {modelParallel.name.c_str(), modelParallel}};
}

/// Every config the goldens cover, by golden name.
std::vector<std::pair<QString, distlab::RunConfig>> allConfigs() {
    std::vector<std::pair<QString, distlab::RunConfig>> out;
    const QDir examples(QStringLiteral(DISTLAB_EXAMPLES_DIR));
    for (const QString& name : examples.entryList({"*.json"}, QDir::Files, QDir::Name))
        if (!name.endsWith(".study.json")) out.emplace_back(QFileInfo(name).completeBaseName(), parsed(examples.filePath(name)));
    const QDir madeUp(kGoldenDir + "/configs");
    for (const QString& name : madeUp.entryList({"*.json"}, QDir::Files, QDir::Name))
        out.emplace_back(QFileInfo(name).completeBaseName(), parsed(madeUp.filePath(name)));
    for (auto& entry : unreadableConfigs()) out.push_back(std::move(entry));
    return out;
}

QByteArray codeOf(const distlab::RunConfig& config) { return QByteArray::fromStdString(distlab::tensorFlowCode(config)); }

}  // namespace

class TestTensorFlowCode : public QObject {
    Q_OBJECT

private slots:
    void matchesGolden_data() {
        QTest::addColumn<QString>("golden");
        QTest::addColumn<QByteArray>("code");
        for (const auto& [name, config] : allConfigs())
            QTest::newRow(qPrintable(name)) << kGoldenDir + "/" + name + ".tf.py" << codeOf(config);
    }

    void matchesGolden() {
        QFETCH(QString, golden);
        QFETCH(QByteArray, code);
        if (qEnvironmentVariableIsSet("DISTLAB_UPDATE_GOLDEN")) {
            QFile file(golden);
            QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
            QCOMPARE(file.write(code), code.size());
            return;
        }
        const QByteArray expected = readFile(golden);
        QVERIFY2(!expected.isEmpty(), qPrintable(golden + " is missing (DISTLAB_UPDATE_GOLDEN=1 writes it)"));
        if (code != expected) {
            const QList<QByteArray> got = code.split('\n'), want = expected.split('\n');
            qsizetype line = 0;
            while (line < got.size() && line < want.size() && got[line] == want[line]) ++line;
            QFAIL(qPrintable(QString("%1 differs from line %2:\n  golden: %3\n  now:    %4\n(DISTLAB_UPDATE_GOLDEN=1 "
                                     "rewrites the goldens)")
                                 .arg(golden)
                                 .arg(line + 1)
                                 .arg(QString::fromUtf8(line < want.size() ? want[line] : "<end>"),
                                      QString::fromUtf8(line < got.size() ? got[line] : "<end>"))));
        }
    }

    void compilesAsPython() {
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty()) QSKIP("python3 is not installed (Debian package python3)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList files;
        for (const auto& [name, config] : allConfigs()) {
            QFile file(dir.filePath(name + ".tf.py"));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(codeOf(config));
            files << file.fileName();
        }
        QProcess process;
        process.start(python, QStringList{"-m", "py_compile"} + files);
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    }

    // What each knob turns into, so a broken mapping fails here with its name, not only as a golden diff.
    void mapsEachSetting_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("ring") << "mirrored-ring-accumulation"
                              << QStringList{"MultiWorkerMirroredStrategy(communication_options=options)",
                                             "CommunicationImplementation.RING",
                                             "bytes_per_pack=65536",
                                             "tf.split(x, ACCUMULATION_STEPS)",
                                             "ACCUMULATION_STEPS = 4",
                                             "\"TF_CONFIG\" not in os.environ"};
        QTest::newRow("reduction_to_one_device")
            << "mirrored-reduction-to-one-device-add-n"
            << QStringList{"ReductionToOneDevice(reduce_to_device=DEVICES[0], accumulation_fn=tf.math.add_n)",
                           "num_packs 3: ReductionToOneDevice", "tf.GradientTape()", "momentum=0.5, nesterov=False",
                           "tf.keras.layers.Add(name=\"residual_1\")"};
        QTest::newRow("tree") << "mirrored-tree-accumulation"
                              << QStringList{"accumulation_fn=binary_tree_sum",
                                             "def binary_tree_sum(values):", "beta_1=0.8, beta_2=0.99, epsilon=1e-06", "mean_squared_error",
                                             "INITIALIZER = \"he_normal\""};
        QTest::newRow("hierarchical_copy, aggregation tree")
            << "mirrored-hierarchical-residual"
            << QStringList{"HierarchicalCopyAllReduce(num_packs=2)", "tf.AggregationMethod.EXPERIMENTAL_TREE", "nesterov=True",
                           "\"residual_1.branch_1.dense_1\": \"residual_1/branch_1/dense_1\""};
        QTest::newRow("nccl on gpus") << "mirrored-nccl-gpus"
                                      << QStringList{"NcclAllReduce(num_packs=1)",
                                                     "DEVICES = [\"/gpu:0\", \"/gpu:1\", \"/gpu:2\", \"/gpu:3\"]",
                                                     "LogicalDeviceConfiguration(memory_limit=1024)] * 2"};
        QTest::newRow("central_storage") << "central-storage-csv"
                                         << QStringList{
                                                "CentralStorageStrategy(\n        compute_devices=DEVICES, parameter_device=DEVICES[0])",
                                                "SEED = 1942892530",
                                                "set_intra_op_parallelism_threads(2)",
                                                "LABEL_COLUMN = 0",
                                                "data.shuffle is false",
                                                "eval_every 50"};
        QTest::newRow("parameter servers, sync")
            << "parameter-server-sync-idx"
            << QStringList{"ParameterServerStrategy(",     "SyncReplicasOptimizer(optimizer, replicas_to_aggregate=2,",
                           "total_num_replicas=3)",        "MinSizePartitioner(\n            min_shard_bytes=1024, max_shards=4)",
                           "ClusterCoordinator(strategy)", "replicas_per_worker 2",
                           "def read_idx(path):"};
        QTest::newRow("parameter servers, async")
            << "circle-parameter-server-4"
            << QStringList{"FixedShardsPartitioner(num_shards=2)", "mode async", "worker_speed [1.0, 1.0, 1.0, 0.5]",
                           "coordinator.schedule(train_step", "--set 'strategy={\\\"type\\\":\\\"one_device\\\"}'"};
        QTest::newRow("on_read and on_write variables")
            << "spiral-mirrored-4"
            << QStringList{"synchronization=tf.VariableSynchronization.ON_READ, aggregation=tf.VariableAggregation.SUM",
                           "synchronization=tf.VariableSynchronization.ON_WRITE, aggregation=tf.VariableAggregation.SUM",
                           "ONLY_FIRST_REPLICA", "experimental_distribute_dataset"};
        QTest::newRow("one device") << "circle-one-device"
                                    << QStringList{"OneDeviceStrategy(DEVICES[0])", "learning_rate=0.03",
                                                   "Under one device a variable is plain"};
        QTest::newRow("fashion-mnist") << "fashion-mnist-mirrored-4"
                                       << QStringList{"tf.keras.datasets.fashion_mnist.load_data()", "set_logical_device_configuration(cpu",
                                                      "momentum=0.9"};
        QTest::newRow("mixed_float16") << "made-up-mixed-float16"
                                       << QStringList{"set_global_policy(\"mixed_float16\")", "LossScaleOptimizer(optimizer)",
                                                      "get_scaled_loss", "get_unscaled_gradients", "dtype=\"float32\""};
    }

    void mapsEachSetting() {
        QFETCH(QString, config);
        QFETCH(QStringList, expected);
        for (const auto& [name, value] : allConfigs()) {
            if (name != config) continue;
            const QString code = QString::fromUtf8(codeOf(value));
            for (const QString& text : expected) QVERIFY2(code.contains(text), qPrintable(config + ": no " + text));
            return;
        }
        QFAIL(qPrintable("no config " + config));
    }

    // A name cannot end a comment or a string and become code: it enters only as a quoted literal.
    void namesStayLiterals() {
        distlab::RunConfig config = parsed(kGoldenDir + "/configs/mirrored-reduction-to-one-device-add-n.json");
        config.name = "evil\"\nimport os; os.system('x')  #";
        const std::string code = distlab::tensorFlowCode(config);
        QVERIFY(code.find("\nimport os; os.system") == std::string::npos);
        QVERIFY(code.find("NAME = \"evil\\\"\\nimport os; os.system('x')  #\"") != std::string::npos);
        QCOMPARE(distlab::tensorFlowCodeFileName(config), std::string("evil__import_os__os.system__x_____.tf.py"));
    }

    // The code depends on the config alone: another process (distlab-cli export-tensorflow, its own
    // reading of the file, its own heap and clock) writes the same bytes as this one, for every
    // config file the goldens cover.
    void anotherProcessWritesTheSameCode() {
        QStringList files;
        const QDir examples(QStringLiteral(DISTLAB_EXAMPLES_DIR));
        for (const QString& name : examples.entryList({"*.json"}, QDir::Files, QDir::Name))
            if (!name.endsWith(".study.json")) files << examples.filePath(name);
        const QDir madeUp(kGoldenDir + "/configs");
        for (const QString& name : madeUp.entryList({"*.json"}, QDir::Files, QDir::Name)) files << madeUp.filePath(name);
        QVERIFY(files.size() > 10);
        for (const QString& file : files) {
            QProcess cli;
            cli.start(QStringLiteral(DISTLAB_CLI_PATH), {QStringLiteral("export-tensorflow"), file});
            QVERIFY2(cli.waitForFinished(60000), qPrintable(file));
            QVERIFY2(cli.exitCode() == 0, qPrintable(file + ": " + cli.readAllStandardError()));
            // Read as the CLI reads it (loadRunConfig: data paths resolved against the file's folder).
            auto config = distlab::loadRunConfig(file.toStdString());
            QVERIFY2(config.ok(), qPrintable(file));
            QCOMPARE(cli.readAllStandardOutput(), codeOf(*config));
        }
    }
};

QTEST_GUILESS_MAIN(TestTensorFlowCode)
#include "test_tensorflow_code.moc"
