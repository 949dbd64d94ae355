#pragma once
// Starts the tasks of a parameter-server run in processes (a chief, workers, parameter servers) as
// distlab-worker processes, each with TF_CONFIG naming its task, as a user would.
#include <map>

#include "cluster_runner.hpp"

/// The addresses of every task: TF_CONFIG's "cluster" for ParameterServerStrategy.
struct PsCluster {
    QStringList chief, worker, ps;

    /// One chief, `workers` workers and `servers` parameter servers on free loopback ports.
    static PsCluster onLoopback(int workers, int servers) {
        PsCluster cluster;
        cluster.chief = loopbackWorkers(1);
        cluster.worker = loopbackWorkers(workers);
        cluster.ps = loopbackWorkers(servers);
        return cluster;
    }
    /// Task names in start order: the workers and servers first, the chief last (any order works).
    QStringList tasks() const {
        QStringList names;
        for (int i = 0; i < worker.size(); ++i) names << QStringLiteral("worker:%1").arg(i);
        for (int i = 0; i < ps.size(); ++i) names << QStringLiteral("ps:%1").arg(i);
        names << QStringLiteral("chief:0");
        return names;
    }
    /// {"cluster": {...}, "task": {"type": T, "index": I}} for task "T:I".
    QString tfConfig(const QString& task) const {
        const auto list = [](const QStringList& addresses) { return "[\"" + addresses.join("\", \"") + "\"]"; };
        return QStringLiteral(R"({"cluster": {"chief": %1, "worker": %2, "ps": %3}, "task": {"type": "%4", "index": %5}})")
            .arg(list(chief), list(worker), list(ps), task.section(':', 0, 0), task.section(':', 1));
    }
    QProcessEnvironment environment(const QString& task, const QString& token = QStringLiteral("ps-token")) const {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("TF_CONFIG"), tfConfig(task));
        environment.insert(QStringLiteral("DISTLAB_CLUSTER_TOKEN"), token);
        environment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
        return environment;
    }
};

/// Every task of `cluster` with `arguments`, plus `extra[name]` for the task of that name.
using PsTasks = std::map<QString, std::unique_ptr<TaskProcess>>;
inline PsTasks startPsCluster(const PsCluster& cluster, const QStringList& arguments, const std::map<QString, QStringList>& extra = {}) {
    PsTasks tasks;
    for (const QString& name : cluster.tasks()) {
        QStringList own = arguments;
        if (const auto found = extra.find(name); found != extra.end()) own << found->second;
        tasks[name] = std::make_unique<TaskProcess>(QStringLiteral(DISTLAB_WORKER_PATH), own, cluster.environment(name));
    }
    return tasks;
}

inline std::map<QString, CliResult> finishPsCluster(PsTasks& tasks, int timeoutMs = 120000) {
    std::map<QString, CliResult> results;
    for (auto& [name, task] : tasks) results[name] = task->finish(timeoutMs);
    return results;
}
