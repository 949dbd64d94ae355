#pragma once
// The app's command line (docs/interfaces.md), parsed by QCommandLineParser:
//   distlab [CONFIG] [--autostart] [--screenshot FILE.png] [--screenshot-after-ms T] [--quit-after-ms T]
//           [--report FILE.json] [--compare FILE.distlab-run] [--lesson FILE.lesson.json] [--help] [--version]
// so a run can be opened, started and photographed with no person present. It is parsed before
// the QApplication exists, so --help, --version and a usage error need no display.
#include <QString>
#include <QStringList>

#include <distlab/core/error.hpp>

namespace distlab::ui {

struct LaunchOptions {
    QString config;          ///< empty: the built-in example run
    bool autostart = false;  ///< play as soon as the run has loaded
    QString screenshot;      ///< save a PNG of the window here
    int screenshotAfterMs = 3000;
    int quitAfterMs = -1;  ///< < 0: run until closed
    QString report;        ///< write a self-measurement JSON here when quitting (needs quitAfterMs)
    QString compare;       ///< a saved run to draw beside the run's curves
    QString lesson;        ///< a lesson to open in the Lesson dock
    bool help = false;     ///< print launchHelpText() and exit
    bool version = false;  ///< print the version and exit
};

/// Parses the arguments (arguments[0] is the program). Errors name the flag and the value.
/// Qt's own options (-platform, -style, ...) are accepted and left to the QApplication.
Result<LaunchOptions> parseLaunchOptions(const QStringList& arguments);

/// The usage and option list that --help prints.
QString launchHelpText();

/// Creates the QApplication and the window, applies the options and runs the event loop.
/// Returns the exit code as distlab-cli's: 0; 2 for a bad command line, config or data file; 3 when
/// training failed; 1 if the screenshot could not be written. Errors are also printed on stderr.
int runApp(int argc, char** argv);

}  // namespace distlab::ui
