// TF_CONFIG as TensorFlow writes it, task names, the workers' ranks, and a multi-worker run
// config written and read back.
#include <QtTest>

#include "distlab/config/cluster_config.hpp"
#include "distlab/config/run_config_json.hpp"
#include "run_config_fixtures.hpp"

using namespace distlab;
using namespace distlab::testing;

class TestClusterConfig : public QObject {
    Q_OBJECT
private slots:
    void theSeedsExampleReadsAsWritten() {
        // The example of TensorFlow's multi-worker guide, as the issue quotes it.
        const auto config = parseTfConfig(
            R"({"cluster": {"worker": ["localhost:12345", "localhost:12346"]}, "task": {"type": "worker", "index": 0}})", "TF_CONFIG");
        QVERIFY2(config, config ? "" : config.error().message.c_str());
        QCOMPARE(config->cluster.worker, (std::vector<std::string>{"localhost:12345", "localhost:12346"}));
        QVERIFY(config->cluster.chief.empty());
        QVERIFY(config->task.has_value());
        QCOMPARE(config->task->name(), std::string("worker:0"));
        QCOMPARE(config->cluster.workerCount(), 2);
        QCOMPARE(coordinatorTask(config->cluster).name(), std::string("worker:0"));
    }

    void aChiefIsWorkerZeroOfTheCollective() {
        const auto config = parseTfConfig(
            R"({"cluster": {"chief": ["host-a:2222"], "worker": ["host-b:2222", "[::1]:2223"]}, "task": {"type": "worker", "index": 1}})",
            "TF_CONFIG");
        QVERIFY(config);
        const ClusterSpec& cluster = config->cluster;
        QCOMPARE(cluster.workerCount(), 3);
        QCOMPARE(coordinatorTask(cluster).name(), std::string("chief:0"));
        QCOMPARE(workerRank(cluster, TaskId{TaskId::Type::Chief, 0}), 0);
        QCOMPARE(workerRank(cluster, *config->task), 2);
        QCOMPARE(taskOfWorkerRank(cluster, 2).name(), std::string("worker:1"));
        QCOMPARE(taskOfWorkerRank(cluster, 0).name(), std::string("chief:0"));
        const auto address = taskAddress(cluster, *config->task);
        QVERIFY(address);
        QCOMPARE(address->host, std::string("::1"));
        QCOMPARE(address->port, 2223);
        const auto missing = taskAddress(cluster, TaskId{TaskId::Type::Worker, 5});
        QVERIFY(!missing);
        QCOMPARE(missing.error().message, std::string("task worker:5 is not in the cluster (it has 2 worker tasks)"));
    }

    void aParameterServerRunRanksEveryTask() {
        // TensorFlow's ParameterServerStrategy cluster: the chief, two workers, two servers; ranks 0 | 1 2 | 3 4.
        const auto config = parseTfConfig(
            R"({"cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3"], "ps": ["h:4", "h:5"]}, "task": {"type": "ps", "index": 1}})",
            "TF_CONFIG");
        QVERIFY(config);
        const ClusterSpec& cluster = config->cluster;
        QCOMPARE(allTasksCount(cluster), 5);
        QCOMPARE(allTasksRank(cluster, TaskId{TaskId::Type::Chief, 0}), 0);
        QCOMPARE(allTasksRank(cluster, TaskId{TaskId::Type::Worker, 0}), 1);
        QCOMPARE(allTasksRank(cluster, TaskId{TaskId::Type::Worker, 1}), 2);
        QCOMPARE(allTasksRank(cluster, TaskId{TaskId::Type::Ps, 0}), 3);
        QCOMPARE(allTasksRank(cluster, *config->task), 4);
    }

    void badTfConfigsNameTheField() {
        const std::pair<const char*, const char*> cases[] = {
            {R"({"task": {"type": "worker", "index": 0}})",
             "TF_CONFIG: cluster: required key is missing (TF_CONFIG names the cluster's tasks)"},
            {R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "evaluator", "index": 0}})",
             R"(TF_CONFIG: task.type: "evaluator" tasks are not run by DistLab (it runs chief, worker and ps tasks))"},
            {R"({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker"}})", "TF_CONFIG: task.index: required key is missing"},
            {R"({"cluster": {"workers": ["a:1"]}})", R"(TF_CONFIG: cluster.workers: unknown key (did you mean "worker"?))"},
            {R"({"cluster": {"worker": ["a b:1"]}})",
             R"(TF_CONFIG: cluster.worker[0]: the host may hold letters, digits, '.', '-' and '_' (got "a b:1"))"},
            {"{",
             "TF_CONFIG: byte 2 (line 1, column 2): syntax error: while parsing object key - unexpected end of input; expected string "
             "literal"},
        };
        for (const auto& [text, message] : cases) {
            const auto config = parseTfConfig(text, "TF_CONFIG");
            QVERIFY2(!config, text);
            QCOMPARE(config.error().message, std::string(message));
        }
    }

    void taskNames() {
        QCOMPARE(parseTaskName("chief:0", "--task")->name(), std::string("chief:0"));
        QCOMPARE(parseTaskName("ps:3", "--task")->index, 3);
        for (const char* bad : {"worker", "worker:", "worker:-1", "boss:1", "worker:1x"}) {
            const auto task = parseTaskName(bad, "--task");
            QVERIFY2(!task, bad);
            QCOMPARE(task.error().message, std::string("--task: must be TYPE:INDEX, e.g. worker:1 (got \"") + bad + "\")");
        }
    }

    void aMultiWorkerConfigRoundTrips() {
        const auto config = parseRunConfig(
            minimalWith(
                R"("strategy": {"type": "multi_worker_mirrored", "local_replicas": 2, "communication": "ring", "timeout_seconds": 12.5, "bytes_per_pack": 4096},
                           "cluster": {"worker": ["localhost:12345", "localhost:12346"]}, "data": {"global_batch_size": 8})"),
            "run.json");
        QVERIFY2(config, config ? "" : config.error().message.c_str());
        QCOMPARE(config->strategy.replicaCount(), 2);
        QCOMPARE(config->globalReplicaCount(), 4);
        QVERIFY(config->strategy.communication == CollectiveImplementation::Ring);
        QCOMPARE(config->strategy.timeoutSeconds, 12.5);
        QCOMPARE(config->strategy.devices, (std::vector<DeviceName>{cpu(0), cpu(1)}));
        const auto again = parseRunConfig(runConfigToJson(*config), "again.json");
        QVERIFY2(again, again ? "" : again.error().message.c_str());
        QVERIFY(*again == withUnusedKeysReset(*config));
        QCOMPARE(again->cluster.worker.size(), std::size_t{2});
        // Without a cluster it is one worker: the local replicas are every replica.
        const auto alone = parseRunConfig(
            minimalWith(R"("strategy": {"type": "multi_worker_mirrored", "local_replicas": 3}, "data": {"global_batch_size": 6})"),
            "run.json");
        QVERIFY(alone);
        QCOMPARE(alone->globalReplicaCount(), 3);
        QVERIFY(alone->cluster.empty());
    }
};

QTEST_APPLESS_MAIN(TestClusterConfig)
#include "test_cluster_config.moc"
