// MainWindow: run control, set-up edits and files (the window's layout is in main_window.cpp).
#include "main_window.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QMenu>
#include <QStatusBar>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QTabWidget>
#include <QToolBar>
#include <QLocale>

#include <algorithm>
#include <cmath>

#include <distlab/formats/checkpoint.hpp>
#include <distlab/config/run_config_json.hpp>

#include "bridge/session_controller.hpp"
#include "count_text.hpp"
#include "panels/explanations.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/training_panel.hpp"
#include "file_dialogs.hpp"
#include "recent_files.hpp"
#include "run_files.hpp"
#include "trained_config.hpp"
#include "study/strategy_comparison.hpp"
#include "study/study_window.hpp"

namespace distlab::ui {

namespace {
std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

// Slider positions 0..99 map to 0.5..1000 steps/s on a log scale; 100 means no limit.
constexpr int kNoLimitPosition = 100;
double speedOf(int position) {
    if (position >= kNoLimitPosition) return 0.0;
    return 0.5 * std::pow(2000.0, position / 99.0);
}
int positionOf(double stepsPerSecond) {
    if (stepsPerSecond <= 0.0) return kNoLimitPosition;
    return std::clamp(static_cast<int>(std::lround(99.0 * std::log(stepsPerSecond / 0.5) / std::log(2000.0))), 0, 99);
}

// "1 min 40 s", "2 h 47 min": how long a run takes at a pace.
QString duration(double seconds) {
    if (seconds < 60.0) return MainWindow::tr("%1 s").arg(std::max(1.0, std::round(seconds)));
    const auto total = static_cast<qint64>(std::round(seconds));
    if (total < 3600) return MainWindow::tr("%1 min %2 s").arg(total / 60).arg(total % 60);
    return MainWindow::tr("%1 h %2 min").arg(total / 3600).arg(total / 60 % 60);
}
}  // namespace

void MainWindow::showError(const QString& title, const QString& message) {
    if (m_prompts.error) m_prompts.error(this, title, message);
}

QString MainWindow::trainedSteps(std::int64_t steps) { return countText(steps, tr("trained step"), tr("trained steps")); }

bool MainWindow::runHasUnsavedSteps() const { return m_controller->hasRun() && m_controller->stepsDone() > m_savedAtStep; }

bool MainWindow::confirmDiscard(const QString& what) {
    if (!runHasUnsavedSteps()) return true;  // nothing trained, or all of it saved: nothing to lose
    return allowLosingWork(m_prompts, this, tr("Save the current run?"),
                           tr("To %1, the current run \"%2\" is discarded: its %3, curves and weights are lost "
                              "unless you save it first (a saved run reopens where it stopped).")
                               .arg(what, QString::fromStdString(m_controller->config().name), trainedSteps(m_controller->stepsDone())),
                           [this] { return saveRunBeforeLosingIt(); });
}

void MainWindow::showSaved(const QString& what, const QString& path) { ui::showSaved(*this, what, path); }

void MainWindow::buildExamplesMenu(QMenu* menu) {
    menu->clear();
    const QString applicationDir = QCoreApplication::applicationDirPath();
    const QStringList files = exampleFiles(applicationDir);
    for (const QString& file : files) {
        QAction* action = menu->addAction(QFileInfo(file).completeBaseName(), this, [this, file] { openConfig(file); });
        action->setObjectName(QStringLiteral("example:") + QFileInfo(file).completeBaseName());
        action->setData(file);
        action->setToolTip(QDir::toNativeSeparators(file));
    }
    const QStringList studies = exampleFiles(applicationDir, ExampleKind::Study);
    if (!studies.isEmpty()) menu->addSection(tr("Studies"));
    for (const QString& file : studies) {
        const QString name = QFileInfo(file).fileName().chopped(static_cast<qsizetype>(QStringLiteral(".study.json").size()));
        QAction* action = menu->addAction(name, this, [this, file] { openStudy(file); });
        action->setObjectName(QStringLiteral("study:") + name);
        action->setData(file);
        action->setToolTip(QDir::toNativeSeparators(file));
    }
    if (files.isEmpty() && studies.isEmpty()) {
        QAction* none = menu->addAction(tr("No examples found"));
        none->setEnabled(false);
        none->setToolTip(tr("Looked in %1").arg(exampleFolders(applicationDir).join(QStringLiteral(", "))));
    }
}

void MainWindow::showInSetup(const RunConfig& config) {
    m_applyTimer.stop();
    m_setupEdited = false;
    m_setup->setConfig(config);
    m_setup->setProblem({});
    m_setup->setPendingNote({});
}

void MainWindow::startRun(const RunConfig& config, bool play) {
    showInSetup(config);
    m_controller->restartRun(config, play);
}

void MainWindow::playClicked() {
    applySetupNow();
    if (m_controller->state() == SessionState::Finished && !m_controller->pendingConfig()) {
        // A finished run plays again from the start, as a media player would.
        m_controller->restartRun(m_controller->config(), true);
        return;
    }
    m_controller->play();
}

void MainWindow::resetClicked() {
    if (!confirmDiscard(tr("start again from the seed"))) return;
    m_applyTimer.stop();
    m_setupEdited = false;
    m_setup->setPendingNote({});
    RunConfig config = m_setup->draft(m_controller->config());
    if (!validateRunConfig(config, "set-up")) config = m_controller->config();
    const bool running = m_controller->state() == SessionState::Running;
    m_controller->restartRun(config, running);
}

void MainWindow::onSetupEdited() {
    m_setupEdited = true;
    m_applyTimer.start();
}

void MainWindow::connectSetupEdits() {
    connect(&m_applyTimer, &QTimer::timeout, this, [this] { applySetup(/*ask=*/false); });
    connect(m_setup, &RunSetupPanel::startNewRunRequested, this, &MainWindow::startNewRunWithEdits);
    connect(m_setup, &RunSetupPanel::undoEditsRequested, this, [this] {
        showInSetup(m_controller->config());
        m_controller->cancelPending();
    });
}

void MainWindow::applySetupNow() { applySetup(/*ask=*/true); }

void MainWindow::applySetup(bool ask) {
    // Edits are applied once the typing pauses (the timer), or now for a deliberate action; edits
    // that wait for a new run (the note is shown) are looked at again each time.
    // (A single-shot timer is no longer active when its timeout runs: the flag, not the timer, says
    // whether there are edits; before, edits that waited out the timer were never applied.)
    if (!m_setupEdited && !m_applyTimer.isActive() && !m_setup->hasPendingNote()) return;
    m_applyTimer.stop();
    m_setupEdited = false;
    const RunConfig draft = m_setup->draft(m_controller->config());
    if (Status valid = validateRunConfig(draft, "set-up"); !valid) {
        m_setup->setProblem(QString::fromStdString(valid.error().message));
        m_setup->setPendingNote({});
        return;
    }
    m_setup->setProblem({});
    if (m_controller->hasRun() && draft == m_controller->config()) {
        // Back to what runs: a run still loading for an earlier edit must not replace it.
        m_controller->cancelPending();
        m_setup->setPendingNote({});
        return;
    }
    if (m_controller->applyLive(draft)) {  // a worker's speed or the parameter-server mode
        m_setup->setPendingNote({});
        return;
    }
    const bool running = m_controller->state() == SessionState::Running;
    if (!running && !runHasUnsavedSteps()) {
        // Nothing is training and nothing would be lost: rebuild at once, as TensorFlow Playground
        // does (the panels always show what trains).
        m_setup->setPendingNote({});
        m_controller->loadRun(draft, false);
        return;
    }
    const QString what = QLocale().createSeparatedList(changedParts(m_controller->config(), draft));
    if (!ask) {
        // Trained steps are never thrown away behind the person's back (not even by a wheel turned
        // over a spin box): say what waits, and offer the new run in one click.
        m_setup->setPendingNote(
            (running ? tr("The run goes on with the set-up it started with. ") : tr("The paused run keeps the set-up it trained with. ")) +
            tr("Your edits to %1 need a new run (its %2 would be discarded; File ▸ Save run keeps them): start it here, or "
               "with Play or Step. The learning rate, the speed and the worker speeds apply at once, without a new run.")
                .arg(what, trainedSteps(m_controller->stepsDone())));
        return;
    }
    m_setup->setPendingNote({});
    if (!confirmDiscard(tr("apply your edits to %1").arg(what))) {
        m_setup->setConfig(m_controller->config());  // back to what is running
        return;
    }
    m_controller->loadRun(draft, running);
}

void MainWindow::startNewRunWithEdits() {
    m_applyTimer.stop();
    m_setupEdited = false;
    const RunConfig draft = m_setup->draft(m_controller->config());
    if (Status valid = validateRunConfig(draft, "set-up"); !valid) {
        m_setup->setProblem(QString::fromStdString(valid.error().message));
        return;
    }
    const bool running = m_controller->state() == SessionState::Running;
    if (!confirmDiscard(tr("start a new run with your edits"))) return;  // the note stays: the edits still wait
    m_setup->setPendingNote({});
    m_controller->loadRun(draft, running);  // the current run goes on until the new one has loaded
}

void MainWindow::onStateChanged(SessionState state) {
    const bool loaded = m_controller->hasRun() && state != SessionState::Loading;
    const bool idle = state == SessionState::Paused || state == SessionState::Finished;
    m_play->setEnabled(m_controller->hasRun() && state != SessionState::Running && state != SessionState::Failed);
    m_pause->setEnabled(state == SessionState::Running);
    m_step->setEnabled(state == SessionState::Paused);
    m_reset->setEnabled(m_controller->hasRun());
    const bool fileTaskFree = m_fileTasks == 0;  // one file task at a time from the menus
    m_saveWeights->setEnabled(loaded && idle && fileTaskFree);
    m_saveRun->setEnabled(loaded && idle && fileTaskFree);
    m_saveRun->setToolTip(idle ? tr("Save the run with its weights, optimizer state, curves and metrics, to reopen or compare later")
                               : tr("Pause the run to save it"));
    m_loadWeights->setEnabled(loaded && idle && fileTaskFree);
    m_saveWeights->setToolTip(idle ? QString() : tr("Pause the run to save its weights"));
    updateStatus();
    if (idle) updateTensorFlowCode();  // an "until paused" run's code trains the steps it has now
}

void MainWindow::onRunReplaced() {
    m_savedAtStep = 0;  // a new run: nothing of it is saved (a saved run's restore sets it once resumed)
    if (!m_pendingFile.isEmpty()) {
        m_currentFile = m_pendingFile;
        m_pendingFile.clear();
        m_recent->add(m_currentFile);
    }
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(m_controller->config().optimizer.learningRate);
    updateTitle();
    updateStatus();
    updateSpeedText();
    updatePyTorchExportAction();
    updateTensorFlowCode();
}

void MainWindow::onRunRejected(const QString& message) {
    m_pendingFile.clear();
    m_setup->setConfig(m_controller->config());
    showError(tr("Could not load the run"), tr("%1\n\nThe current run is unchanged.").arg(message));
}

void MainWindow::onLearningRate(double rate) {
    m_controller->setLearningRate(rate);
    m_setup->trainingPanel().showLearningRate(rate);
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(rate);
}

void MainWindow::buildSpeedControls(QToolBar* bar) {
    auto* speedTitle = new QLabel(tr(" Speed "), bar);
    m_speed = new QSlider(Qt::Horizontal, bar);
    m_speed->setObjectName(QStringLiteral("speedSlider"));
    m_speed->setRange(0, kNoLimitPosition);
    m_pacedPosition = positionOf(kDefaultStepsPerSecond);
    m_speed->setValue(m_pacedPosition);
    m_speed->setFixedWidth(130);
    m_speed->setToolTip(tr("Steps per second: 0.5 at the left end, no limit at the right end"));
    m_noLimit = new QAction(tr("No limit"), this);
    m_noLimit->setObjectName(QStringLiteral("noLimitAction"));
    m_noLimit->setCheckable(true);
    m_noLimit->setToolTip(tr("Train as fast as the machine can (click again to go back to the pace set with the slider)"));
    m_speedLabel = new QLabel(bar);
    m_speedLabel->setObjectName(QStringLiteral("speedLabel"));
    m_speedLabel->setMinimumWidth(90);
    for (QWidget* widget : {static_cast<QWidget*>(speedTitle), static_cast<QWidget*>(m_speed)}) {
        setExplainKey(widget, QStringLiteral("run.speed"));
        bar->addWidget(widget);
    }
    bar->addAction(m_noLimit);
    setExplainKey(bar->widgetForAction(m_noLimit), QStringLiteral("run.speed"));
    setExplainKey(m_speedLabel, QStringLiteral("run.speed"));
    bar->addWidget(m_speedLabel);
    connect(m_noLimit, &QAction::toggled, this, [this](bool noLimit) {
        m_speed->setValue(noLimit ? kNoLimitPosition : m_pacedPosition);
    });
    onSpeedSlider(m_speed->value());
}

void MainWindow::onSpeedSlider(int position) {
    const double speed = speedOf(position);
    if (position < kNoLimitPosition) m_pacedPosition = position;
    m_controller->setSpeedLimit(speed);
    {
        const QSignalBlocker blocker(m_noLimit);
        m_noLimit->setChecked(speed <= 0.0);
    }
    updateSpeedText();
}

QString MainWindow::speedText() const { return m_speedLabel->text(); }

void MainWindow::updateSpeedText() {
    // The pace, and how long the whole run takes at it: a run of 200,000 updates is hours at a
    // pace a person can follow, seconds without a limit.
    const double speed = m_controller->speedLimit();
    const QLocale locale;
    QString pace;
    if (speed <= 0.0) pace = tr("no limit");
    else if (speed < 10.0) pace = tr("%1 steps/s").arg(speed, 0, 'f', 1);
    else pace = tr("%1 steps/s").arg(std::round(speed));
    const std::int64_t steps = m_controller->hasRun() ? m_controller->config().steps : 0;
    QString length;
    if (!m_controller->hasRun()) length = QString();
    else if (steps <= 0) length = tr("run: until paused");
    else if (speed <= 0.0) length = tr("run: %1 steps").arg(locale.toString(steps));
    else length = tr("run: %1 steps ≈ %2").arg(locale.toString(steps), duration(double(steps) / speed));
    m_speedLabel->setText(length.isEmpty() ? pace : tr("%1 · %2").arg(pace, length));
}

void MainWindow::openComparison() {
    applySetupNow();
    auto study = strategyComparison(m_controller->config());
    if (!study) {
        showError(tr("Could not compare"), QString::fromStdString(study.error().message));
        return;
    }
    if (!showStudy(std::move(*study), {})) return;
    if (m_controller->state() == SessionState::Running) m_controller->pause();  // the comparison gets the cores
    m_studyWindow->run();
}

bool MainWindow::openConfig(const QString& path, bool play, const QStringList& overrides) {
    auto config = openRunConfigFile(path, overrides);
    if (!config) {
        showError(tr("Could not open the run config"),
                  tr("%1\n\nThe current run is unchanged.").arg(QString::fromStdString(config.error().message)));
        return false;
    }
    if (!confirmDiscard(tr("open %1").arg(QFileInfo(path).fileName()))) return false;
    // A config changed by overrides is not the file's: Save then asks where (it never overwrites the file).
    m_pendingFile = overrides.isEmpty() ? QFileInfo(path).absoluteFilePath() : QString();
    if (!overrides.isEmpty()) m_currentFile.clear();
    showInSetup(*config);
    m_controller->loadRun(*config, play);
    return true;
}

bool MainWindow::saveConfig(const QString& path) {
    applySetupNow();
    RunConfig draft = m_setup->draft(m_controller->config());
    // The config of an "until paused" run that has trained is saved with the steps it trained.
    QString note;
    if (draft == m_controller->config()) {
        TrainedConfig trained = trainedConfig(draft, m_controller->stepsDone());
        draft = std::move(trained.config);
        note = trained.note;
    }
    if (Status saved = saveRunConfigFile(draft, path); !saved) {
        showError(tr("Could not save the run config"), QString::fromStdString(saved.error().message));
        return false;
    }
    m_currentFile = QFileInfo(path).absoluteFilePath();
    m_recent->add(m_currentFile);
    updateTitle();
    showSaved(note.isEmpty() ? tr("the run config") : tr("the run config (%1)").arg(note), path);
    return true;
}

void MainWindow::runFileTask(const QString& doing, std::function<Status(Trainer&)> task, std::function<void(const Status&)> done) {
    // Busy while the task waits for its turn between two steps: the cursor, the status bar, and the
    // file actions that would queue another task behind it disabled. The window goes on drawing.
    if (m_fileTasks++ == 0) QGuiApplication::setOverrideCursor(Qt::BusyCursor);
    statusBar()->showMessage(doing);
    onStateChanged(m_controller->state());
    m_controller->askTrainer(this, std::move(task), [this, done = std::move(done)](std::optional<Status> status) {
        if (--m_fileTasks == 0) QGuiApplication::restoreOverrideCursor();
        statusBar()->clearMessage();
        onStateChanged(m_controller->state());
        const Status result = status ? std::move(*status) : Status(Error{tr("No run is loaded, or it has ended.").toStdString()});
        done(result);
        emit sessionFileDone(result.ok());
    });
}

void MainWindow::saveWeights(const QString& path) {
    // The primary model: the servers' copy for parameter servers (what the CLI saves too).
    runFileTask(
        tr("Saving the weights…"), [file = local(path)](Trainer& trainer) { return distlab::saveWeights(trainer.primaryModel(), file); },
        [this, path](const Status& status) {
            if (!status) showError(tr("Could not save the weights"), QString::fromStdString(status.error().message));
            else showSaved(tr("the weights"), path);
        });
}

void MainWindow::loadWeights(const QString& path) {
    runFileTask(
        tr("Loading the weights…"), [file = local(path)](Trainer& trainer) { return distlab::loadWeights(trainer, file); },
        [this](const Status& status) {
            if (!status) {
                showError(tr("Could not load the weights"),
                          tr("%1\n\nThe current weights are unchanged.").arg(QString::fromStdString(status.error().message)));
            }
        });
}

bool MainWindow::exportMetrics(const QString& path) {
    m_controller->catchUp();  // a paused run's rows reach its last step
    if (Status status = exportMetricsCsv(m_controller->history(), path); !status) {
        showError(tr("Could not export the metrics"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(tr("the metrics"), path);
    return true;
}

bool MainWindow::exportTrace(const QString& path) {
    QStringList devices;
    const auto& names = m_controller->config().strategy.devices;
    for (const DeviceName& device : names) devices.append(QString::fromStdString(device.toString()));
    const QString name = QString::fromStdString(m_controller->config().name);
    if (Status status = exportTimelineTrace(m_controller->history(), devices, name, path); !status) {
        showError(tr("Could not export the timeline"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(tr("the timeline"), path);
    return true;
}

bool MainWindow::saveViewPng(const QString& path) {
    if (Status status = saveWidgetPng(m_views->currentWidget(), path); !status) {
        showError(tr("Could not save the picture"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(tr("the picture"), path);
    return true;
}

}  // namespace distlab::ui
