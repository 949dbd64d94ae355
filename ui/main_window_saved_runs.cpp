// MainWindow: saved runs (File ▸ Save run, Open saved run, Compare with saved run). A saved run is
// the run's checkpoint with its curves and metrics (ui/saved_run_files.hpp): opened, it shows its
// curves and goes on training from where it was saved; compared, its curves are drawn dashed beside
// the live run's in the Learning view.
#include "main_window.hpp"

#include <QAction>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QStatusBar>

#include <distlab/formats/saved_run.hpp>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "panels/run_setup_panel.hpp"
#include "saved_run_files.hpp"
#include "views/learning_view.hpp"

namespace distlab::ui {

void MainWindow::buildSavedRunActions() {
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
    connect(m_saveRun, &QAction::triggered, this, &MainWindow::saveRunAsked);
    connect(m_openSavedRun, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(this, tr("Open saved run"), savedRunFilter());
        if (!path.isEmpty()) openSavedRun(path);
    });
    connect(m_compareSaved, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(this, tr("Compare with saved run"), savedRunFilter());
        if (!path.isEmpty()) compareWithSavedRun(path);
    });
    connect(m_clearComparison, &QAction::triggered, this, &MainWindow::clearComparison);
    connect(m_controller, &SessionController::resumeFinished, this, [this](bool ok, const QString& message) {
        if (!m_openingSavedRun) return;
        m_openingSavedRun = false;
        if (!ok) showError(tr("Could not open the saved run"), message);
        else m_savedAtStep = m_controller->stepsDone();  // what it resumed from is on disk
        updateStatus();
    });
}

void MainWindow::saveRun(const QString& path) {
    const SessionState state = m_controller->state();
    if (!m_controller->hasRun() || m_controller->stepsDone() <= 0 ||
        (state != SessionState::Paused && state != SessionState::Finished)) {
        showError(tr("Could not save the run"), tr("Pause a run that has trained at least one step to save it."));
        emit sessionFileDone(false);
        return;
    }
    m_controller->catchUp();  // every step done is in the history before it is written beside the weights
    const RunRecord record = savedRunRecord(m_controller->history(), m_controller->config(), path);
    runFileTask(
        tr("Saving the run…"),
        [record, file = QFile::encodeName(path).toStdString()](Trainer& trainer) { return distlab::saveRun(trainer, record, file); },
        [this, path, steps = m_controller->stepsDone()](const Status& status) {
            if (!status) {
                showError(tr("Could not save the run"), QString::fromStdString(status.error().message));
                return;
            }
            m_savedAtStep = steps;  // a paused run: the steps it had when the task was posted
            showSaved(tr("the run"), path);
        });
}

void MainWindow::saveRunAsked() {
    if (!m_controller->hasRun() || m_controller->stepsDone() <= 0) {
        emit sessionFileDone(false);
        return;
    }
    // A run is saved paused, at a step's end: pause it first. The empty task runs after the pause,
    // so the run is paused when it answers (and the save dialog opens).
    if (m_controller->state() == SessionState::Running) m_controller->pause();
    m_controller->runBetweenSteps([](Trainer&) {}, this, [this](bool) {
        const QString suffix = QString::fromLatin1(kSavedRunSuffix);
        const QString path = m_prompts.savePath ? m_prompts.savePath(this, tr("Save run"), savedRunFilter(), suffix, runFileName(suffix)) : QString();
        if (path.isEmpty()) emit sessionFileDone(false);  // cancelled
        else saveRun(path);
    });
}

bool MainWindow::saveRunBeforeLosingIt() {
    bool saved = false;
    bool ended = false;
    QEventLoop loop;
    const QMetaObject::Connection connection = connect(this, &MainWindow::sessionFileDone, &loop, [&](bool ok) {
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

bool MainWindow::openSavedRun(const QString& path) {
    auto saved = openSavedRunFile(path);
    if (!saved) {
        showError(tr("Could not open the saved run"),
                  tr("%1\n\nThe current run is unchanged.").arg(QString::fromStdString(saved.error().message)));
        return false;
    }
    if (!confirmDiscard(tr("open %1").arg(QFileInfo(path).fileName()))) return false;
    showInSetup(saved->config);
    m_currentFile.clear();  // Save run config asks where: the saved run is not a config file
    m_openingSavedRun = true;
    m_controller->openSavedRun(saved->config, QFile::encodeName(path).toStdString(), saved->history);
    statusBar()->showMessage(tr("Opened the saved run \"%1\" at update %2: Play goes on training from there")
                                 .arg(saved->label, QLocale().toString(saved->step)),
                             10000);
    return true;
}

bool MainWindow::compareWithSavedRun(const QString& path) {
    auto saved = openSavedRunFile(path);
    if (!saved) {
        showError(tr("Could not compare with the saved run"), QString::fromStdString(saved.error().message));
        return false;
    }
    auto reference = std::make_unique<RunHistory>(static_cast<int>(saved->config.strategy.replicaCount()));
    reference->restore(saved->history);
    m_learning->setReference(reference.get(), tr("%1 (saved)").arg(saved->label));
    m_reference = std::move(reference);  // after the view has let go of the one before
    m_clearComparison->setEnabled(true);
    statusBar()->showMessage(tr("Comparing with the saved run \"%1\": its curves are dashed in the Learning tab").arg(saved->label),
                             10000);
    return true;
}

void MainWindow::clearComparison() {
    m_learning->setReference(nullptr, {});
    m_reference.reset();
    m_clearComparison->setEnabled(false);
}

}  // namespace distlab::ui
