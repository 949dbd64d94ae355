#pragma once
// Runs distlab-cli as a user would and captures what it printed.
#include <QProcess>
#include <QString>
#include <QStringList>

struct CliResult {
    int exitCode = -1;
    QString out;
    QString err;
    bool finished = false;
};

/// Runs `program` (distlab-cli by default) with `arguments`; a process still running after timeoutMs is killed.
inline CliResult runProgram(const QString& program, const QStringList& arguments, int timeoutMs = 120000,
                            const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(program, arguments);
    CliResult result;
    result.finished = process.waitForFinished(timeoutMs);
    if (!result.finished) process.kill();
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

inline CliResult runCli(const QStringList& arguments, int timeoutMs = 120000) {
    return runProgram(QStringLiteral(DISTLAB_CLI_PATH), arguments, timeoutMs);
}
