// What distlab-cli and distlab load, and when: neither links a CUDA library (the CUDA backend is a
// module loaded when a GPU is asked for), --version starts in a few megabytes and milliseconds, the
// device report says which OpenBLAS and kernels were chosen (the user's OPENBLAS_CORETYPE winning)
// and why the CUDA backend did not load where it did not.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.hpp"

namespace {

QStringList programs() {
    QStringList list{QStringLiteral(DISTLAB_CLI_PATH)};
#ifdef DISTLAB_GUI_PATH
    list << QStringLiteral(DISTLAB_GUI_PATH);
#endif
    return list;
}

/// `distlab-cli devices` under `environment` (added to this process's), parsed.
QJsonObject devices(const QStringList& environment) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& entry : environment) env.insert(entry.section('=', 0, 0), entry.section('=', 1));
    const CliResult result = runProgram(QStringLiteral(DISTLAB_CLI_PATH), {"devices"}, 120000, env);
    if (result.exitCode != 0) qWarning("devices: %s", qPrintable(result.err));
    return QJsonDocument::fromJson(result.out.toUtf8()).object();
}

struct Usage {
    double cpuSeconds = 0;
    long maxResidentKiB = 0;
    int status = -1;
};

/// Runs `program` with `argument`, its output discarded, and returns that one child's resource use
/// (wait4: not the sum over this test's other children).
Usage usageOf(const QString& program, const char* argument) {
    const QByteArray path = program.toLocal8Bit();
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
        ::execl(path.constData(), path.constData(), argument, static_cast<char*>(nullptr));
        ::_exit(127);
    }
    Usage usage;
    rusage used{};
    if (pid < 0 || ::wait4(pid, &usage.status, 0, &used) != pid) return usage;
    usage.cpuSeconds = static_cast<double>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) +
                       static_cast<double>(used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6;
    usage.maxResidentKiB = used.ru_maxrss;
    return usage;
}

}  // namespace

class TestCliStartup : public QObject {
    Q_OBJECT

private slots:
    // Built with CUDA, the programs linked cudart, cuBLAS, cuBLASLt and NCCL: a package that could
    // not run where they are absent, and 225 MB and 0.35-0.74 s for `--version`.
    void programsLinkNoCudaLibrary() {
        if (QStandardPaths::findExecutable(QStringLiteral("readelf")).isEmpty()) QSKIP("readelf (binutils) is not installed");
        for (const QString& program : programs()) {
            const CliResult result = runProgram(QStringLiteral("readelf"), {"-d", program});
            QVERIFY2(result.finished && result.exitCode == 0, qPrintable("readelf -d " + program + ": " + result.err));
            const QStringList needed = result.out.split('\n').filter(QStringLiteral("(NEEDED)"));
            QVERIFY2(!needed.isEmpty(), qPrintable(program + ": readelf found no NEEDED entry"));
            for (const QString& line : needed)
                QVERIFY2(!line.contains(QRegularExpression(QStringLiteral("\\[lib(cudart|cublas|cublasLt|nccl)\\."))),
                         qPrintable(program + " links " + line.trimmed()));
        }
    }

    void versionStartsSmallAndFast() {
        const Usage usage = usageOf(QStringLiteral(DISTLAB_CLI_PATH), "--version");
        QVERIFY(WIFEXITED(usage.status) && WEXITSTATUS(usage.status) == 0);
        QVERIFY2(usage.maxResidentKiB < 50 * 1024, qPrintable(QStringLiteral("%1 KiB resident").arg(usage.maxResidentKiB)));
        // CPU time rather than wall time: other jobs on a CI machine do not count.
        QVERIFY2(usage.cpuSeconds < 0.1, qPrintable(QStringLiteral("%1 s of CPU").arg(usage.cpuSeconds)));
    }

    void reportNamesOpenBlasAndItsKernels() {
        const QJsonObject report = devices({});
        QCOMPARE(report["cpu_openblas_library"].toString(), QStringLiteral(DISTLAB_OPENBLAS_LIBRARY));
        QVERIFY2(report["cpu_openblas_kernels"].toString() != "none", "OpenBLAS did not load");
        if (!qEnvironmentVariableIsSet("OPENBLAS_CORETYPE"))
            QVERIFY2(!report["cpu_openblas_kernels_chosen_by"].toString().startsWith("OPENBLAS_CORETYPE"),
                     qPrintable(report["cpu_openblas_kernels_chosen_by"].toString()));
    }

    // The engine picks OpenBLAS's kernels from the CPU's instruction sets, but a value the user set
    // wins: Nehalem's (SSE4.2) run on every x86-64 CPU this builds for, and no AVX2 CPU gets them by
    // the engine's choice.
    void theUsersCoreTypeWins() {
#if !defined(__x86_64__)
        QSKIP("OpenBLAS's Nehalem kernels exist on x86-64 only");
#else
        const QJsonObject report = devices({QStringLiteral("OPENBLAS_CORETYPE=Nehalem")});
        QCOMPARE(report["cpu_openblas_kernels"].toString(), QStringLiteral("Nehalem"));
        QVERIFY2(report["cpu_openblas_kernels_chosen_by"].toString().startsWith("OPENBLAS_CORETYPE"),
                 qPrintable(report["cpu_openblas_kernels_chosen_by"].toString()));
#endif
    }

    // Where the CUDA backend cannot load, devices and train say why: the module not found, or the
    // loader's own words for a file that is no module.
    void saysWhyTheGpuBackendDidNotLoad() {
        QTemporaryDir dir;
        const QString missing = dir.filePath("libdistlab-cuda.so");
        QJsonObject report = devices({"DISTLAB_GPU_BACKEND=" + missing});
        QJsonObject backend = report["gpu_backend"].toObject();
        QCOMPARE(backend["loaded"].toBool(), false);
        QVERIFY2(backend["error"].toString().contains(missing) || backend["error"].toString().contains("built without CUDA"),
                 qPrintable(backend["error"].toString()));
        QCOMPARE(report["gpu_unavailable_reason"].toString(), backend["error"].toString());
        QCOMPARE(report["gpu_usable"].toBool(), false);

        QFile notALibrary(missing);
        QVERIFY(notALibrary.open(QIODevice::WriteOnly));
        notALibrary.write("not a shared library\n");
        notALibrary.close();
        report = devices({"DISTLAB_GPU_BACKEND=" + missing});
        backend = report["gpu_backend"].toObject();
        QCOMPARE(backend["loaded"].toBool(), false);
        QCOMPARE(backend["module"].toString(), missing);
        QVERIFY2(backend["error"].toString().contains("could not be loaded: " + missing + ": invalid ELF header") ||
                     backend["error"].toString().contains("could not be loaded: " + missing + ": file too short"),
                 qPrintable(backend["error"].toString()));
    }

    void aGpuRunSaysWhyTheBackendDidNotLoad() {
        QTemporaryDir dir;
        QFile config(dir.filePath("gpu.json"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(R"({"name": "gpu", "model": {"layers": [{"type": "dense", "units": 2}]},
            "data": {"source": "synthetic", "kind": "circle", "samples": 64, "global_batch_size": 8},
            "optimizer": {"type": "sgd", "learning_rate": 0.1},
            "strategy": {"type": "one_device", "devices": ["gpu:0"]}, "steps": 2})");
        config.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("DISTLAB_GPU_BACKEND", dir.filePath("nowhere.so"));
        const CliResult result = runProgram(QStringLiteral(DISTLAB_CLI_PATH), {"train", config.fileName(), "--quiet"}, 120000, env);
        QVERIFY2(result.exitCode != 0, qPrintable(result.out));
        QVERIFY2(result.err.contains(dir.filePath("nowhere.so")) || result.err.contains("built without CUDA"), qPrintable(result.err));
    }
};

QTEST_GUILESS_MAIN(TestCliStartup)
#include "test_cli_startup.moc"
