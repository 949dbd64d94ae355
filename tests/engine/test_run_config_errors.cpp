// Run configs that are not right: syntax errors named by byte, line and column, every bad value
// named by its JSON path, and mutated bytes that never crash the reader.
#include <distlab/config/run_config_json.hpp>

#include <QtTest>

#include <cstdint>
#include <string>

#include "run_config_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestRunConfigErrors : public QObject {
    Q_OBJECT

private slots:
    void malformedJson() {
        // Line 3 is `  "seed": x`; the x is the 11th character of the line and byte 28 of the text.
        const std::string text = "{\n  \"steps\": 10,\n  \"seed\": x\n}\n";
        const QString message = errorOf(parseRunConfig(text, "run.json"));
        QVERIFY2(message.startsWith(QStringLiteral("run.json: byte 28 (line 3, column 11): syntax error: ")), qPrintable(message));
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
            "run.json: colour: unknown key (expected one of: name, seed, model, data, optimizer, strategy, cluster, precision, "
            "clock, steps, threads, eval_every)");
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
            minimalWith(
                R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "cpu:1"], "gradient_accumulation_steps": 3}, "data": {"global_batch_size": 8})"),
            "run.json: data.global_batch_size: 8 does not divide among 2 replicas x 3 accumulation steps");
        row("duplicate device", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "cpu:1", "cpu:1"]})"),
            R"(run.json: strategy.devices[2]: "cpu:1" is listed twice (also at strategy.devices[1]))");
        row("bad device string", minimalWith(R"("strategy": {"type": "mirrored", "devices": ["cpu:0", "gpu0"]})"),
            R"(run.json: strategy.devices[1]: "gpu0" is not a device name (expected "cpu:K" or "gpu:K", K >= 0))");
        row("negative device index", minimalWith(R"("strategy": {"devices": ["cpu:-1"]})"),
            R"(run.json: strategy.devices[0]: "cpu:-1" is not a device name (expected "cpu:K" or "gpu:K", K >= 0))");
        row("device not a string", minimalWith(R"("strategy": {"devices": [0]})"),
            "run.json: strategy.devices[0]: must be a string (got a number)");
        row("pipeline with more stages than layers", minimalWith(R"("strategy": {"type": "pipeline", "stages": 3})"),
            "run.json: model.layers: 2 layers cannot fill 3 pipeline stages (strategy.stages x strategy.virtual_stages): each stage needs "
            "at least one layer");
        row("local replicas out of range", minimalWith(R"("strategy": {"type": "multi_worker_mirrored", "local_replicas": 0})"),
            "run.json: strategy.local_replicas: must be an integer in [1, 1024] (got 0)");
        row("devices on multi_worker_mirrored", minimalWith(R"("strategy": {"type": "multi_worker_mirrored", "replicas": 2})"),
            R"(run.json: strategy.replicas: unknown key (expected one of: type, local_replicas, communication, timeout_seconds, cross_device_ops, num_packs, bytes_per_pack, gradient_accumulation_steps))");
        row("timeout out of range", minimalWith(R"("strategy": {"type": "multi_worker_mirrored", "timeout_seconds": 0})"),
            "run.json: strategy.timeout_seconds: must be in [0.1, 86400] seconds (got 0.0)");
        row("unknown communication", minimalWith(R"("strategy": {"type": "multi_worker_mirrored", "communication": "nccl"})"),
            R"(run.json: strategy.communication: unknown value "nccl"; expected one of: auto, ring)");
        row("batch not dividing among workers",
            minimalWith(
                R"("strategy": {"type": "multi_worker_mirrored", "local_replicas": 2}, "cluster": {"worker": ["localhost:1", "localhost:2", "localhost:3"]}, "data": {"global_batch_size": 8})"),
            "run.json: data.global_batch_size: 8 does not divide among 6 replicas x 1 accumulation steps");
        row("cluster on mirrored", minimalWith(R"("strategy": {"type": "mirrored"}, "cluster": {"worker": ["localhost:1"]})"),
            R"(run.json: cluster: tasks in several processes run multi_worker_mirrored or parameter_server (strategy.type is "mirrored"))");
        // Parameter servers in processes: a chief coordinates, and the strategy counts what the cluster lists.
        const auto psCluster = [](const char* strategy, const char* cluster) {
            return minimalWith(std::string(R"("strategy": {"type": "parameter_server", )") + strategy + R"(}, "cluster": )" + cluster);
        };
        row("parameter servers without a chief", psCluster(R"("workers": 1)", R"({"worker": ["h:1"], "ps": ["h:2"]})"),
            "run.json: cluster.chief: a parameter_server run in processes needs a chief: it coordinates the workers and the servers");
        row("parameter servers without ps", psCluster(R"("workers": 1)", R"({"chief": ["h:9"], "worker": ["h:1"]})"),
            "run.json: cluster.ps: must list at least one parameter server");
        row("parameter servers without workers", psCluster(R"("workers": 1)", R"({"chief": ["h:9"], "ps": ["h:2"]})"),
            "run.json: cluster.worker: must list at least one worker");
        row("workers differ from the cluster",
            psCluster(R"("workers": 3)", R"({"chief": ["h:9"], "worker": ["h:1", "h:3"], "ps": ["h:2"]})"),
            "run.json: strategy.workers: must equal the workers cluster.worker lists (2) (got 3)");
        row("servers differ from the cluster",
            psCluster(R"("workers": 1, "parameter_servers": 2)", R"({"chief": ["h:9"], "worker": ["h:1"], "ps": ["h:2"]})"),
            "run.json: strategy.parameter_servers: must equal the servers cluster.ps lists (1) (got 2)");
        row("more speeds than the cluster's workers",
            psCluster(R"("workers": 1, "worker_speed": [0.5, 1])", R"({"chief": ["h:9"], "worker": ["h:1"], "ps": ["h:2"]})"),
            "run.json: strategy.worker_speed: 2 speeds for 1 workers");
        row("parameter-server timeout out of range",
            psCluster(R"("workers": 1, "timeout_seconds": 0)", R"({"chief": ["h:9"], "worker": ["h:1"], "ps": ["h:2"]})"),
            "run.json: strategy.timeout_seconds: must be in [0.1, 86400] seconds (got 0.0)");
        row("cluster address without port",
            minimalWith(R"("strategy": {"type": "multi_worker_mirrored"}, "cluster": {"worker": ["localhost"]})"),
            R"(run.json: cluster.worker[0]: must be "host:port" (got "localhost"))");
        row("cluster port out of range",
            minimalWith(R"("strategy": {"type": "multi_worker_mirrored"}, "cluster": {"worker": ["localhost:70000"]})"),
            R"(run.json: cluster.worker[0]: the port must be an integer in [1, 65535] (got "localhost:70000"))");
        row("cluster address twice",
            minimalWith(R"("strategy": {"type": "multi_worker_mirrored"}, "cluster": {"chief": ["h:1"], "worker": ["h:2", "h:1"]})"),
            R"(run.json: cluster.worker[1]: "h:1" is listed twice (also at cluster.chief[0]))");
        row("two chiefs", minimalWith(R"("strategy": {"type": "multi_worker_mirrored"}, "cluster": {"chief": ["h:1", "h:2"]})"),
            "run.json: cluster.chief: a cluster has at most one chief (got 2)");
        row("parameter servers under multi_worker_mirrored",
            minimalWith(R"("strategy": {"type": "multi_worker_mirrored"}, "cluster": {"worker": ["h:1"], "ps": ["h:2"]})"),
            "run.json: cluster.ps: multi_worker_mirrored has no parameter servers");
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
        row("cpu and gpu devices mixed",
            minimalWith(R"("strategy": {"type": "mirrored", "devices": ["gpu:0", "gpu:1", "cpu:0"]}, "data": {"global_batch_size": 3})"),
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
        row("momentum one", minimalWith(R"("optimizer": {"momentum": 1.0})"), "run.json: optimizer.momentum: must be in [0, 1) (got 1.0)");
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
            "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 64 "
            "levels");
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
};

QTEST_APPLESS_MAIN(TestRunConfigErrors)
#include "test_run_config_errors.moc"
