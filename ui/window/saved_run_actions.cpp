#include "window/saved_run_actions.hpp"

#include <QAction>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QStatusBar>

#include <distlab/formats/saved_run.hpp>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "count_text.hpp"
#include "file_dialogs.hpp"
#include "main_window.hpp"
#include "saved_run_files.hpp"
#include "user_prompts.hpp"
#include "views/learning_view.hpp"
#include "window/file_actions.hpp"
#include "window/run_control.hpp"
#include "window/session_file_tasks.hpp"

namespace distlab::ui {

SavedRunActions::SavedRunActions(MainWindow& window, SessionFileTasks& tasks) : QObject(&window), m_window(window), m_tasks(tasks) {
    m_saveRun = new QAction(tr("Save r&un…"), this);
    m_saveRun->setObjectName(QStringLiteral("saveRunAction"));
    m_saveRun->setToolTip(tr("Save the run with its weights, optimizer state, curves and metrics, to reopen or compare later"));
    m_openSavedRun = new QAction(tr("Open saved ru&n…"), this);
    m_openSavedRun->setObjectName(QStringLiteral("openSavedRunAction"));
    m_openSavedRun->setToolTip(tr("Open a saved run: its curves, and Play goes on training from where it was saved"));
    m_compareSaved = new QAction(tr("Compare with saved run…"), this);
    m_compareSaved->setObjectName(QStringLiteral("compareSavedAction"));
    m_compareSaved->setToolTip(tr("Draw a saved run's loss and accuracy dashed beside the current run's (Learning tab)"));
    m_clearComparison = new QAction(tr("Stop comparing"), this);
    m_clearComparison->setEnabled(false);
    connect(m_saveRun, &QAction::triggered, this, &SavedRunActions::saveRunAsked);
    connect(m_openSavedRun, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(&m_window, tr("Open saved run"), savedRunFilter());
        if (!path.isEmpty()) openSavedRun(path);
    });
    connect(m_compareSaved, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(&m_window, tr("Compare with saved run"), savedRunFilter());
        if (!path.isEmpty()) compareWithSavedRun(path);
    });
    connect(m_clearComparison, &QAction::triggered, this, &SavedRunActions::clearComparison);
    SessionController& controller = window.controller();
    connect(&controller, &SessionController::resumeFinished, this, [this](bool ok, const QString& message) {
        if (!m_openingSavedRun) return;
        m_openingSavedRun = false;
        if (!ok)
            m_window.showError(tr("Could not open the saved run"), message);
        else
            m_savedAtStep = m_window.controller().stepsDone();  // what it resumed from is on disk
        m_window.runControl().updateStatus();
    });
    // A new run: nothing of it is saved (a saved run's restore sets it once resumed).
    connect(&controller, &SessionController::runReplaced, this, [this] { m_savedAtStep = 0; });
    connect(&controller, &SessionController::stateChanged, this, &SavedRunActions::updateActions);
    connect(&tasks, &SessionFileTasks::busyChanged, this, &SavedRunActions::updateActions);
    updateActions();
}

SavedRunActions::~SavedRunActions() = default;

void SavedRunActions::updateActions() {
    const SessionController& controller = m_window.controller();
    const SessionState state = controller.state();
    const bool idle = state == SessionState::Paused || state == SessionState::Finished;
    // A cluster's weights and optimizer state live in its task processes, where its coordinator's
    // --checkpoint backs them up; the app holds no trainer to save them from.
    const bool cluster = SessionController::isClusterRun(controller.config());
    // One file task at a time from the menus.
    m_saveRun->setEnabled(controller.hasRun() && state != SessionState::Loading && idle && !m_tasks.busy() && !cluster);
    m_saveRun->setToolTip(cluster ? tr("A cluster's weights and optimizer state live in its processes: its coordinator task backs "
                                       "them up (--checkpoint)")
                          : idle  ? tr("Save the run with its weights, optimizer state, curves and metrics, to reopen or compare later")
                                  : tr("Pause the run to save it"));
}

QString SavedRunActions::trainedSteps(std::int64_t steps) { return countText(steps, tr("trained step"), tr("trained steps")); }

bool SavedRunActions::runHasUnsavedSteps() const {
    const SessionController& controller = m_window.controller();
    // A cluster's run is its tasks' (their backups): the app has nothing of it to save, so it asks nothing.
    if (SessionController::isClusterRun(controller.config())) return false;
    return controller.hasRun() && controller.stepsDone() > m_savedAtStep;
}

bool SavedRunActions::confirmDiscard(const QString& what) {
    if (!runHasUnsavedSteps()) return true;  // nothing trained, or all of it saved: nothing to lose
    const SessionController& controller = m_window.controller();
    return allowLosingWork(m_window.prompts(), &m_window, tr("Save the current run?"),
                           tr("To %1, the current run \"%2\" is discarded: its %3, curves and weights are lost "
                              "unless you save it first (a saved run reopens where it stopped).")
                               .arg(what, QString::fromStdString(controller.config().name), trainedSteps(controller.stepsDone())),
                           [this] { return saveRunBeforeLosingIt(); });
}

void SavedRunActions::saveRun(const QString& path) {
    SessionController& controller = m_window.controller();
    const SessionState state = controller.state();
    if (!controller.hasRun() || controller.stepsDone() <= 0 || (state != SessionState::Paused && state != SessionState::Finished)) {
        m_window.showError(tr("Could not save the run"), tr("Pause a run that has trained at least one step to save it."));
        emit m_tasks.finished(false);
        return;
    }
    controller.catchUp();  // every step done is in the history before it is written beside the weights
    const RunRecord record = savedRunRecord(controller.history(), controller.config(), path);
    m_tasks.run(
        tr("Saving the run…"),
        [record, file = QFile::encodeName(path).toStdString()](Trainer& trainer) { return distlab::saveRun(trainer, record, file); },
        [this, path, steps = controller.stepsDone()](const Status& status) {
            if (!status) {
                m_window.showError(tr("Could not save the run"), QString::fromStdString(status.error().message));
                return;
            }
            m_savedAtStep = steps;  // a paused run: the steps it had when the task was posted
            showSaved(m_window, tr("the run"), path);
        });
}

void SavedRunActions::saveRunAsked() {
    SessionController& controller = m_window.controller();
    if (!controller.hasRun() || controller.stepsDone() <= 0) {
        emit m_tasks.finished(false);
        return;
    }
    // A run is saved paused, at a step's end: pause it first. The empty task runs after the pause,
    // so the run is paused when it answers (and the save dialog opens).
    if (controller.state() == SessionState::Running) controller.pause();
    controller.runBetweenSteps([](Trainer&) {}, this,
                               [this](bool) {
                                   const QString suffix = QString::fromLatin1(kSavedRunSuffix);
                                   const UserPrompts& prompts = m_window.prompts();
                                   const QString path = prompts.savePath ? prompts.savePath(&m_window, tr("Save run"), savedRunFilter(),
                                                                                            suffix, m_window.runFileName(suffix))
                                                                         : QString();
                                   if (path.isEmpty())
                                       emit m_tasks.finished(false);  // cancelled
                                   else
                                       saveRun(path);
                               });
}

bool SavedRunActions::saveRunBeforeLosingIt() {
    bool saved = false;
    bool ended = false;
    QEventLoop loop;
    const QMetaObject::Connection connection = connect(&m_tasks, &SessionFileTasks::finished, &loop, [&](bool ok) {
        saved = ok;
        ended = true;
        loop.quit();
    });
    saveRunAsked();
    // As a modal dialog does: the window goes on drawing and ticking, and takes no input meanwhile.
    if (!ended) loop.exec(QEventLoop::ExcludeUserInputEvents);
    disconnect(connection);
    return saved;
}

bool SavedRunActions::openSavedRun(const QString& path) {
    auto saved = openSavedRunFile(path);
    if (!saved) {
        m_window.showError(tr("Could not open the saved run"),
                           tr("%1\n\nThe current run is unchanged.").arg(QString::fromStdString(saved.error().message)));
        return false;
    }
    if (!confirmDiscard(tr("open %1").arg(QFileInfo(path).fileName()))) return false;
    m_window.runControl().showInSetup(saved->config);
    m_window.files().forgetCurrentFile();  // Save run config asks where: the saved run is not a config file
    m_openingSavedRun = true;
    m_window.controller().openSavedRun(saved->config, QFile::encodeName(path).toStdString(), saved->history);
    m_window.statusBar()->showMessage(
        tr("Opened the saved run \"%1\" at update %2: Play goes on training from there").arg(saved->label, QLocale().toString(saved->step)),
        10000);
    return true;
}

bool SavedRunActions::compareWithSavedRun(const QString& path) {
    auto saved = openSavedRunFile(path);
    if (!saved) {
        m_window.showError(tr("Could not compare with the saved run"), QString::fromStdString(saved.error().message));
        return false;
    }
    auto reference = std::make_unique<RunHistory>(static_cast<int>(saved->config.strategy.replicaCount()));
    reference->restore(saved->history);
    m_window.learningView().setReference(reference.get(), tr("%1 (saved)").arg(saved->label));
    m_reference = std::move(reference);  // after the view has let go of the one before
    m_clearComparison->setEnabled(true);
    m_window.statusBar()->showMessage(
        tr("Comparing with the saved run \"%1\": its curves are dashed in the Learning tab").arg(saved->label), 10000);
    return true;
}

void SavedRunActions::clearComparison() {
    m_window.learningView().setReference(nullptr, {});
    m_reference.reset();
    m_clearComparison->setEnabled(false);
}

}  // namespace distlab::ui
