#pragma once
// What the window-driving ui tests share: a stand-in for the message boxes that records what the
// window would have shown, when a run counts as loaded, and waiting (in the event loop) for what the
// window asks of the trainer.
#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSize>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTabWidget>
#include <QTest>

#include "bridge/session_controller.hpp"
#include "main_window.hpp"
#include "user_prompts.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace distlab::ui::testing {

/// How long a run may take to load on a loaded CI machine.
inline constexpr int kLoadTimeoutMs = 15000;

/// Records what the window would show in message boxes; answers every yes/no question with
/// `answer`, and "save first?" with `saveChoice` (by default: Discard for a yes, Cancel for a no).
/// A save dialog answers `savePath` (empty: cancelled), and `savePaths` records what it proposed.
struct Recorder {
    QStringList errors;
    QStringList questions;
    bool answer = true;
    std::optional<SaveChoice> saveChoice;
    QString savePath;
    QStringList savePaths;
    UserPrompts prompts() {
        UserPrompts p;
        p.error = [this](QWidget*, const QString& title, const QString& message) { errors.append(title + ": " + message); };
        p.confirm = [this](QWidget*, const QString&, const QString& question) {
            questions.append(question);
            return answer;
        };
        p.saveDiscardCancel = [this](QWidget*, const QString&, const QString& question) {
            questions.append(question);
            return saveChoice.value_or(answer ? SaveChoice::Discard : SaveChoice::Cancel);
        };
        p.savePath = [this](QWidget*, const QString& caption, const QString&, const QString&, const QString& suggested) {
            savePaths.append(caption + ": " + suggested);
            return savePath;
        };
        return p;
    }
};

/// Settings of this test alone, emptied: nothing a person saved reaches the test, and back.
inline void useIsolatedSettings(const QString& application) {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DistLabTest"));
    QCoreApplication::setApplicationName(application);
    QSettings().clear();
}

/// A shown main window of `size` whose message boxes go to `recorder`, loading `config` (paused).
inline std::unique_ptr<MainWindow> openWindow(Recorder& recorder, QSize size, const RunConfig& config) {
    auto window = std::make_unique<MainWindow>();
    window->setPrompts(recorder.prompts());
    window->resize(size);
    window->show();
    // The tests were written for runs at full speed; a window opens at a pace a person can follow.
    if (!window->noLimitAction()->isChecked()) window->noLimitAction()->trigger();
    window->startRun(config, false);
    return window;
}

/// The operating system's own list (/proc, not the app's) of `parent`'s living children whose
/// command line contains `program`; a zombie not yet reaped is not living.
inline std::vector<qint64> childProcesses(qint64 parent, const QByteArray& program) {
    std::vector<qint64> pids;
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(entry)), command(QStringLiteral("/proc/%1/cmdline").arg(entry));
        if (!stat.open(QIODevice::ReadOnly) || !command.open(QIODevice::ReadOnly)) continue;
        // After "(name)": the state, then the parent's pid.
        const QList<QByteArray> fields = stat.readAll().split(')').last().trimmed().split(' ');
        if (fields.size() > 1 && fields[0] != "Z" && fields[1].toLongLong() == parent && command.readAll().contains(program))
            pids.push_back(entry.toLongLong());
    }
    return pids;
}

/// The window has a run that finished loading.
/// Whether the window shows `view`'s tab (a tab a run does not feed is hidden).
inline bool tabShown(MainWindow& window, QWidget* view) { return window.views().isTabVisible(window.views().indexOf(view)); }

inline bool loaded(MainWindow& window) {
    return window.controller().hasRun() && !window.controller().isLoading() && window.controller().state() != SessionState::Loading;
}

/// Runs fn on the window's run's session thread, between two steps, and turns the event loop (the
/// app's own thread never waits for the engine; a test may) until it has run: whether it ran.
inline bool onSessionThread(SessionController& controller, std::function<void(Trainer&)> fn, int timeoutMs = kLoadTimeoutMs) {
    std::optional<bool> ran;
    QObject context;
    controller.runBetweenSteps(std::move(fn), &context, [&ran](bool answer) { ran = answer; });
    (void)QTest::qWaitFor([&] { return ran.has_value(); }, timeoutMs);  // ran says whether it came
    return ran.value_or(false);
}

/// Starts a file action the trainer does (saveWeights, loadWeights, saveRun, saveRunAsked) and turns
/// the event loop until it has ended: its outcome (false too when it did not end in time).
template <typename Action>
bool fileTaskSucceeds(MainWindow& window, Action action, int timeoutMs = kLoadTimeoutMs) {
    std::optional<bool> outcome;
    QObject context;
    QObject::connect(&window, &MainWindow::sessionFileDone, &context, [&outcome](bool ok) { outcome = ok; });
    action();
    (void)QTest::qWaitFor([&] { return outcome.has_value(); }, timeoutMs);  // outcome says whether it came
    return outcome.value_or(false);
}

}  // namespace distlab::ui::testing
