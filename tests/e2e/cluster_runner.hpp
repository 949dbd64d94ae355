#pragma once
// Starts the tasks of a multi-worker run as processes of distlab-worker, each with its TF_CONFIG
// and the run's token, as a user (or the app) would, and collects what each printed.
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "cli_runner.hpp"

/// A TCP port nobody listens on now (the kernel's pick for port 0, released again).
inline int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
}

/// Listens on 127.0.0.1:port (a squatter on a task's port); the socket, or -1. The caller closes it.
inline int listenOn(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 4) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// A connection to 127.0.0.1:port, or -1. The caller closes it.
inline int connectTo(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// {"cluster": {"worker": [addresses]}, "task": {"type": "worker", "index": i}}
inline QString tfConfig(const QStringList& workers, int index) {
    return QStringLiteral(R"({"cluster": {"worker": ["%1"]}, "task": {"type": "worker", "index": %2}})")
        .arg(workers.join(QStringLiteral("\", \"")))
        .arg(index);
}

/// `count` loopback addresses on free ports.
inline QStringList loopbackWorkers(int count) {
    QStringList workers;
    for (int i = 0; i < count; ++i) workers << QStringLiteral("localhost:%1").arg(freePort());
    return workers;
}

/// One task's process: started with its own environment, read when it ends.
class TaskProcess {
public:
    TaskProcess(const QString& program, const QStringList& arguments, const QProcessEnvironment& environment) {
        m_process.setProcessEnvironment(environment);
        m_process.start(program, arguments);
    }
    qint64 pid() const { return m_process.processId(); }
    /// Sends `signal` to the task's process; false (and nothing sent) unless it is still running.
    /// Never kill(0, ...): that would signal this test's whole process group.
    bool signal(int signal) {
        const qint64 id = m_process.processId();
        if (id <= 0 || m_process.state() != QProcess::Running) return false;
        return ::kill(static_cast<pid_t>(id), signal) == 0;
    }
    QProcess& process() { return m_process; }
    /// Waits up to timeoutMs; a task still running then is killed (and reported unfinished).
    CliResult finish(int timeoutMs) {
        CliResult result;
        result.finished = m_process.waitForFinished(timeoutMs);
        if (!result.finished) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
        result.exitCode = m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
        result.out = QString::fromUtf8(m_process.readAllStandardOutput());
        result.err = QString::fromUtf8(m_process.readAllStandardError());
        return result;
    }

private:
    QProcess m_process;
};

/// The environment of task `index`: TF_CONFIG and the token.
inline QProcessEnvironment taskEnvironment(const QStringList& workers, int index, const QString& token) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("TF_CONFIG"), tfConfig(workers, index));
    environment.insert(QStringLiteral("DISTLAB_CLUSTER_TOKEN"), token);
    environment.insert(QStringLiteral("OMP_NUM_THREADS"), QStringLiteral("1"));
    return environment;
}

/// Starts every worker of `workers` with the same arguments, plus `extra[i]` for task i.
inline std::vector<std::unique_ptr<TaskProcess>> startCluster(const QStringList& workers, const QStringList& arguments,
                                                              const std::vector<QStringList>& extra = {},
                                                              const QString& token = QStringLiteral("test-token")) {
    std::vector<std::unique_ptr<TaskProcess>> tasks;
    for (int i = 0; i < workers.size(); ++i) {
        QStringList own = arguments;
        if (static_cast<std::size_t>(i) < extra.size()) own << extra[static_cast<std::size_t>(i)];
        tasks.push_back(std::make_unique<TaskProcess>(QStringLiteral(DISTLAB_WORKER_PATH), own, taskEnvironment(workers, i, token)));
    }
    return tasks;
}

inline std::vector<CliResult> finishAll(std::vector<std::unique_ptr<TaskProcess>>& tasks, int timeoutMs = 120000) {
    std::vector<CliResult> results;
    for (auto& task : tasks) results.push_back(task->finish(timeoutMs));
    return results;
}
