// --help, --version and usage errors of distlab-cli (every command) and of the desktop app, as a
// person meets them at a terminal: help on stdout with exit 0, errors on stderr with the usage and exit 2.
#include <QtTest>

#include "cli_runner.hpp"

namespace {
struct CommandHelp {
    const char* command;
    QStringList options;  ///< every option the command's --help must list
};

const CommandHelp kCommands[] = {
    {"train",
     {"CONFIG", "--steps", "--init-weights", "--save-weights", "--checkpoint", "--checkpoint-every", "--resume", "--metrics", "--trace",
      "--set", "--fault", "--keep-going-on-nan", "--quiet"}},
    {"bench", {"CONFIG", "--seconds", "--warmup-steps", "--set", "--fma-probe"}},
    {"varlab", {"SCRIPT"}},
    {"validate", {"CONFIG"}},
    {"devices", {}},
    {"collectives",
     {"--backend", "--algorithm", "--replicas", "--min-bytes", "--max-bytes", "--iters", "--warmup-iters", "--op", "--memcpy", "--json"}},
    {"compare", {"STUDY", "--csv", "--jsonl", "--predict", "--quiet"}},
    {"export-pytorch", {"CONFIG", "OUT.py", "--steps", "--set"}},
    {"export-tensorflow", {"CONFIG", "OUT.py", "--set"}},
};
}  // namespace

class TestCliHelp : public QObject {
    Q_OBJECT

private slots:
    void programHelpListsEveryCommand() {
        for (const char* flag : {"--help", "-h"}) {
            const CliResult r = runCli({QString::fromLatin1(flag)});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith(QStringLiteral("distlab-cli: ")), qPrintable(r.out));
            for (const CommandHelp& command : kCommands) QVERIFY2(r.out.contains(QString::fromLatin1(command.command)), command.command);
            QVERIFY(r.out.contains(QStringLiteral("Exit codes")));
            QVERIFY(r.err.isEmpty());
        }
    }

    void everyCommandHasHelp() {
        for (const CommandHelp& command : kCommands) {
            const QString name = QString::fromLatin1(command.command);
            const CliResult r = runCli({name, QStringLiteral("--help")});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.contains(QStringLiteral("Usage: distlab-cli ") + name), qPrintable(r.out));
            for (const QString& option : command.options) QVERIFY2(r.out.contains(option), qPrintable(name + " lacks " + option));
        }
    }

    void version() {
        for (const QStringList& arguments : {QStringList{"--version"}, QStringList{"train", "--version"}}) {
            const CliResult r = runCli(arguments);
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(r.out.trimmed(), QStringLiteral("distlab-cli " DISTLAB_VERSION));
        }
    }

    void usageErrors_data() {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << "error: A subcommand is required";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "error: unknown command \"frobnicate\"";
        QTest::newRow("unknown option") << QStringList{"train", "run.json", "--fast"}
                                        << "error: train: The following argument was not expected: --fast";
        QTest::newRow("missing config") << QStringList{"bench"} << "error: bench: CONFIG is required";
        QTest::newRow("bad count") << QStringList{"train", "run.json", "--steps", "minus-one"}
                                   << "error: train: --steps: expected an integer in [0, 1000000000000] (got \"minus-one\")";
        QTest::newRow("missing value") << QStringList{"train", "run.json", "--steps"} << "error: train: --steps: 1 required N missing";
        QTest::newRow("bad fault") << QStringList{"train", "run.json", "--fault", "explode:1@2"}
                                   << "error: train: --fault: expected kill-worker";
        QTest::newRow("faster than full speed") << QStringList{"train", "run.json", "--fault", "slow-worker:0=5@0"}
                                                << "error: train: --fault: slow-worker SPEED must be in [0.1, 1.0]";
        // 1e10 s overflowed the nanosecond budget and crashed; a day is the most a measurement takes.
        QTest::newRow("huge seconds") << QStringList{"bench", "run.json", "--seconds", "1e10"}
                                      << "error: bench: --seconds: expected a number > 0 and <= 86400";
        QTest::newRow("no probe threads") << QStringList{"bench", "run.json", "--fma-probe", "0"}
                                          << "error: bench: --fma-probe: expected an integer in [1, 1024] (got \"0\")";
        QTest::newRow("extra argument") << QStringList{"validate", "a.json", "b.json"}
                                        << "error: validate: The following argument was not expected: b.json";
        QTest::newRow("devices takes none") << QStringList{"devices", "--all"}
                                            << "error: devices: The following argument was not expected: --all";
    }

    void usageErrors() {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const CliResult r = runCli(arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(message), qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("Usage: distlab-cli")), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

#ifdef DISTLAB_GUI_PATH
    // The app answers --help, --version and a bad option before it needs a display.
    void appHelpWithoutDisplay() {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) environment.remove(QString::fromLatin1(name));
        const QString app = QStringLiteral(DISTLAB_GUI_PATH);
        const CliResult help = runProgram(app, {QStringLiteral("--help")}, 30000, environment);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.out.startsWith(QStringLiteral("Usage: distlab [options] [CONFIG]")), qPrintable(help.out + help.err));
        for (const char* option : {"--autostart", "--screenshot", "--screenshot-after-ms", "--quit-after-ms", "--report", "--version"})
            QVERIFY2(help.out.contains(QString::fromLatin1(option)), option);
        QVERIFY(!help.out.contains(QStringLiteral("platform")));  // Qt's own options are accepted, not advertised
        const CliResult version = runProgram(app, {QStringLiteral("--version")}, 30000, environment);
        QCOMPARE(version.exitCode, 0);
        QCOMPARE(version.out.trimmed(), QStringLiteral("distlab " DISTLAB_VERSION));
        const CliResult bad = runProgram(app, {QStringLiteral("--fast")}, 30000, environment);
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.startsWith(QStringLiteral("error: Unknown option 'fast'.")), qPrintable(bad.err));
        QVERIFY(bad.err.contains(QStringLiteral("Usage: distlab")));
    }
#endif
};

QTEST_GUILESS_MAIN(TestCliHelp)
#include "test_cli_help.moc"
