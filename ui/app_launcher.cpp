#include "app_launcher.hpp"

#include <distlab/device/device_info.hpp>
#include <distlab/study/study.hpp>

#include <QAction>
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <utility>

#include <distlab/files/atomic_file.hpp>

#include "bench_report.hpp"
#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "run_files.hpp"
#include "lessons/lesson.hpp"
#include "saved_run_files.hpp"
#include "study/equivalence_window.hpp"
#include "study/study_window.hpp"

namespace distlab::ui {

namespace {
Result<int> millisecondsOf(const QString& flag, const QString& value) {
    bool ok = false;
    const int ms = value.toInt(&ok);
    if (!ok || ms < 0) return Error{flag.toStdString() + ": \"" + value.toStdString() + "\" is not a number of milliseconds >= 0"};
    return ms;
}

void printError(const QString& message) { std::fprintf(stderr, "error: %s\n", message.toLocal8Bit().constData()); }

const QCommandLineOption kAutostart(QStringLiteral("autostart"), QStringLiteral("Start training as soon as the run has loaded."));
const QCommandLineOption kScreenshot(QStringLiteral("screenshot"), QStringLiteral("Save a PNG of the window to FILE."),
                                     QStringLiteral("FILE.png"));
const QCommandLineOption kScreenshotAfter(QStringLiteral("screenshot-after-ms"),
                                          QStringLiteral("Take the screenshot T ms after start (default 3000)."), QStringLiteral("T"));
const QCommandLineOption kQuitAfter(QStringLiteral("quit-after-ms"), QStringLiteral("Quit T ms after start."), QStringLiteral("T"));
const QCommandLineOption kReport(QStringLiteral("report"),
                                 QStringLiteral("When quitting (--quit-after-ms), write the app's own throughput and GUI-thread "
                                                "cost as JSON to FILE."),
                                 QStringLiteral("FILE.json"));

const QCommandLineOption kCompare(QStringLiteral("compare"),
                                  QStringLiteral("Draw the saved run in FILE dashed beside the run's curves (Learning tab)."),
                                  QStringLiteral("FILE.distlab-run"));

const QCommandLineOption kLesson(QStringLiteral("lesson"), QStringLiteral("Open the lesson in FILE in the Lesson dock."),
                                 QStringLiteral("FILE.lesson.json"));

/// Qt's own options, handled by the QApplication (-platform offscreen, -style fusion, ...): accepted
/// here so that they are not unknown, and hidden from --help.
QList<QCommandLineOption> qtOptions() {
    QList<QCommandLineOption> options;
    for (const char* name : {"platform", "platformpluginpath", "platformtheme", "plugin", "qwindowgeometry", "qwindowtitle", "qwindowicon",
                             "style", "stylesheet", "display", "session", "widgetcount"}) {
        QCommandLineOption option(QString::fromLatin1(name), QString(), QStringLiteral("value"));
        option.setFlags(QCommandLineOption::HiddenFromHelp);
        options.append(option);
    }
    for (const char* name : {"reverse", "nograb", "dograb", "sync"}) {
        QCommandLineOption option(QString::fromLatin1(name));
        option.setFlags(QCommandLineOption::HiddenFromHelp);
        options.append(option);
    }
    return options;
}

/// Every option the app takes; --help and --version are QCommandLineParser's own.
void defineOptions(QCommandLineParser& parser, QCommandLineOption& help, QCommandLineOption& version) {
    parser.setApplicationDescription(
        QStringLiteral("DistLab: watch distributed neural-network training live. Opens CONFIG (a run config, JSON; a saved run, "
                       ".distlab-run; or a study, .study.json), or a built-in "
                       "example. Exit codes: 0 success; 2 a bad command line, config or data file; 3 training failed; 1 anything else."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);  // Qt's -platform, -style
    help = parser.addHelpOption();
    version = parser.addVersionOption();
    parser.addOptions({kAutostart, kScreenshot, kScreenshotAfter, kQuitAfter, kReport, kCompare, kLesson});
    parser.addOptions(qtOptions());
    parser.addPositionalArgument(QStringLiteral("CONFIG"),
                                 QStringLiteral("Run config (JSON), saved run (.distlab-run) or study (.study.json) to open."),
                                 QStringLiteral("[CONFIG]"));
}
}  // namespace

Result<LaunchOptions> parseLaunchOptions(const QStringList& arguments) {
    QCommandLineParser parser;
    QCommandLineOption help(QStringLiteral("help")), version(QStringLiteral("version"));
    defineOptions(parser, help, version);
    if (!parser.parse(arguments)) return Error{parser.errorText().toStdString()};
    LaunchOptions options;
    options.help = parser.isSet(help) || parser.isSet(QStringLiteral("help-all"));
    options.version = parser.isSet(version);
    options.autostart = parser.isSet(kAutostart);
    options.screenshot = parser.value(kScreenshot);
    options.report = parser.value(kReport);
    options.compare = parser.value(kCompare);
    options.lesson = parser.value(kLesson);
    for (const auto& [option, target] :
         {std::pair{&kScreenshotAfter, &options.screenshotAfterMs}, std::pair{&kQuitAfter, &options.quitAfterMs}}) {
        if (!parser.isSet(*option)) continue;
        auto ms = millisecondsOf(QStringLiteral("--") + option->names().constFirst(), parser.value(*option));
        if (!ms) return ms.error();
        *target = *ms;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return Error{"more than one config given: " + positional[0].toStdString() + ", " + positional[1].toStdString()};
    if (!positional.isEmpty()) options.config = positional.front();
    return options;
}

QString launchHelpText() {
    QCommandLineParser parser;
    QCommandLineOption help(QStringLiteral("help")), version(QStringLiteral("version"));
    defineOptions(parser, help, version);
    // Without a QApplication (none exists yet) Qt cannot name the program in the usage line.
    QString text = parser.helpText();
    const qsizetype endOfUsage = text.indexOf(QLatin1Char('\n'));
    return QStringLiteral("Usage: distlab [options] [CONFIG]") + text.mid(endOfUsage);
}

int runApp(int argc, char** argv) {
    QCoreApplication::setOrganizationName(QStringLiteral("DistLab"));
    QCoreApplication::setApplicationName(QStringLiteral("distlab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DISTLAB_VERSION));
    QStringList arguments;
    for (int i = 0; i < argc; ++i) arguments.append(QString::fromLocal8Bit(argv[i]));
    auto options = parseLaunchOptions(arguments);
    if (!options) {
        printError(QString::fromStdString(options.error().message));
        std::fputs(qPrintable(launchHelpText()), stderr);
        return 2;
    }
    if (options->help || options->version) {
        std::fputs(qPrintable(options->help ? launchHelpText() : QStringLiteral("distlab " DISTLAB_VERSION "\n")), stdout);
        return 0;
    }
    // Files written at the end are checked now, not found unwritable after the whole run.
    for (const auto& [option, path] : {std::pair{"--screenshot", options->screenshot}, std::pair{"--report", options->report}}) {
        if (path.isEmpty()) continue;
        if (Status writable = checkOutputPath(option, QFile::encodeName(path).toStdString()); !writable) {
            printError(QString::fromStdString(writable.error().message));
            return 2;
        }
    }
    loadOpenBlas();  // before QApplication starts threads: the load sets an environment variable
    QApplication app(argc, argv);
    QApplication::setApplicationDisplayName(QStringLiteral("DistLab"));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.distlab.DistLab"));  // Wayland: window <-> desktop entry and icon
    MainWindow window;
    if (!options->report.isEmpty()) window.noLimitAction()->setChecked(true);  // --report measures full throughput
    window.show();  // first: a status message shown while the window is hidden would not hide the status line
    if (options->config.isEmpty()) {
        window.startRun(MainWindow::defaultConfig(), options->autostart);
    } else if (options->config.endsWith(QStringLiteral(".study.json"))) {
        auto study = loadStudy(QFile::encodeName(options->config).toStdString(), "STUDY");
        if (!study) {
            printError(QString::fromStdString(study.error().message));
            return 2;
        }
        window.startRun(MainWindow::defaultConfig(), false);
        window.openStudy(options->config);  // an equivalence study goes to the equivalence window
        if (options->autostart) {
            if (study->spec.equivalence)
                window.equivalenceWindow()->runAction()->trigger();
            else
                window.studyWindow()->run();
        }
    } else if (options->config.endsWith(QStringLiteral(".") + QString::fromLatin1(kSavedRunSuffix))) {
        auto saved = openSavedRunFile(options->config);
        if (!saved) {
            printError(QString::fromStdString(saved.error().message));
            return 2;
        }
        window.openSavedRun(options->config);
        if (options->autostart) window.controller().play();  // after the restore, which is queued first
    } else {
        auto config = openRunConfigFile(options->config);
        if (!config) {
            printError(QString::fromStdString(config.error().message));
            return 2;
        }
        window.openConfig(options->config, options->autostart);
    }
    if (!options->compare.isEmpty()) {
        if (auto saved = openSavedRunFile(options->compare); !saved) {
            printError(QString::fromStdString(saved.error().message));
            return 2;
        }
        window.compareWithSavedRun(options->compare);
    }
    if (!options->lesson.isEmpty()) {
        if (auto lesson = loadLesson(options->lesson); !lesson) {
            printError(QString::fromStdString(lesson.error().message));
            return 2;
        }
        window.openLesson(options->lesson);
    }
    int exitCode = 0;
    // A run that cannot load (e.g. a bad data file) is also reported on stderr, for unattended use.
    QObject::connect(&window.controller(), &SessionController::runRejected, &window, [&exitCode](const QString& message) {
        printError(message);
        exitCode = 2;
    });
    QObject::connect(&window.controller(), &SessionController::runFailed, &window, [&exitCode](const QString& message) {
        printError(message);
        exitCode = 3;
    });
    if (!options->screenshot.isEmpty()) {
        QTimer::singleShot(options->screenshotAfterMs, &window, [&window, &exitCode, path = options->screenshot] {
            // A study opened from the command line is what the picture is of.
            QWidget* shown = &window;
            if (window.studyWindow() != nullptr) shown = window.studyWindow();
            if (window.equivalenceWindow() != nullptr) shown = window.equivalenceWindow();
            if (Status saved = saveWidgetPng(shown, path); !saved) {
                printError(QString::fromStdString(saved.error().message));
                exitCode = 1;
            }
        });
    }
    std::unique_ptr<BenchReport> report;
    if (!options->report.isEmpty()) report = std::make_unique<BenchReport>(window.controller(), options->report, /*warmupMs=*/2000);
    if (options->quitAfterMs >= 0)
        QTimer::singleShot(options->quitAfterMs, &window, [&window, &report, &exitCode] {
            if (report && !report->write()) exitCode = 1;  // measured before the run stops
            window.closeWithoutAsking();                   // unattended: nobody is there to answer "save first?"
        });
    const int result = app.exec();
    return result != 0 ? result : exitCode;
}

}  // namespace distlab::ui
