#include "window/run_control.hpp"

#include <QAction>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSlider>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>

#include <algorithm>
#include <cmath>

#include <distlab/config/run_config_json.hpp>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "count_text.hpp"
#include "main_window.hpp"
#include "panels/explanations.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/training_panel.hpp"
#include "views/steady_label.hpp"
#include "window/saved_run_actions.hpp"

namespace distlab::ui {

namespace {
constexpr int kApplyDelayMs = 300;    // set-up edits apply after this pause (spin boxes fire per click)
constexpr int kStatusEveryTicks = 3;  // the status bar updates at ~10 Hz

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
    if (seconds < 60.0) return RunControl::tr("%1 s").arg(std::max(1.0, std::round(seconds)));
    const auto total = static_cast<qint64>(std::round(seconds));
    if (total < 3600) return RunControl::tr("%1 min %2 s").arg(total / 60).arg(total % 60);
    return RunControl::tr("%1 h %2 min").arg(total / 3600).arg(total / 60 % 60);
}

QString devicesSummary(const StrategyConfig& strategy) {
    if (strategy.devices.empty()) return QStringLiteral("cpu:0");
    bool contiguousCpu = true;
    for (std::size_t i = 0; i < strategy.devices.size(); ++i) {
        const DeviceName& device = strategy.devices[i];
        contiguousCpu =
            contiguousCpu && device.kind == DeviceName::Kind::Cpu && device.index == strategy.devices[0].index + static_cast<int>(i);
    }
    if (contiguousCpu && strategy.devices.size() > 1) {
        return QStringLiteral("cpu:%1–%2").arg(strategy.devices.front().index).arg(strategy.devices.back().index);
    }
    QStringList names;
    for (const DeviceName& device : strategy.devices) names.append(QString::fromStdString(device.toString()));
    return names.join(QStringLiteral(", "));
}

QString clock(double seconds) {
    // Tenths under a minute: many runs here finish in well under a second.
    if (seconds < 60.0) return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
    const auto total = static_cast<qint64>(seconds);
    return QStringLiteral("%1:%2:%3")
        .arg(total / 3600, 2, 10, QLatin1Char('0'))
        .arg(total / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(total % 60, 2, 10, QLatin1Char('0'));
}
}  // namespace

RunControl::RunControl(MainWindow& window) : QObject(&window), m_window(window) {
    QStyle* s = window.style();
    m_play = new QAction(s->standardIcon(QStyle::SP_MediaPlay), tr("Play"), this);
    m_pause = new QAction(s->standardIcon(QStyle::SP_MediaPause), tr("Pause"), this);
    m_step = new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("Step"), this);
    m_reset = new QAction(s->standardIcon(QStyle::SP_BrowserReload), tr("Reset"), this);
    m_play->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_step->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Right));
    m_reset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_play->setToolTip(tr("Train continuously (Ctrl+Enter)"));
    m_pause->setToolTip(tr("Pause between two steps (Ctrl+.)"));
    m_step->setToolTip(tr("Run exactly one optimizer step (Ctrl+→)"));
    m_reset->setToolTip(tr("Start the run again from its seed (Ctrl+R)"));
    // For the app's developers: the status bar's frame times stay out of a learner's way until asked for.
    m_diagnostics = new QAction(tr("&Diagnostics"), this);
    m_diagnostics->setObjectName(QStringLiteral("diagnosticsAction"));
    m_diagnostics->setCheckable(true);
    m_diagnostics->setToolTip(tr("Show in the status bar how long the GUI takes per frame"));

    SessionController& controller = window.controller();
    connect(m_play, &QAction::triggered, this, &RunControl::playClicked);
    connect(m_pause, &QAction::triggered, &controller, &SessionController::pause);
    connect(m_step, &QAction::triggered, this, [this] {
        applySetupNow();
        m_window.controller().stepOnce();
    });
    connect(m_reset, &QAction::triggered, this, &RunControl::resetClicked);
    connect(&controller, &SessionController::stateChanged, this, &RunControl::onStateChanged);
    connect(&controller, &SessionController::runReplaced, this, &RunControl::onRunReplaced);
    connect(&controller, &SessionController::runRejected, this, [this](const QString& message) {
        m_window.setup().setConfig(m_window.controller().config());
        m_window.showError(tr("Could not load the run"), tr("%1\n\nThe current run is unchanged.").arg(message));
    });
    connect(&controller, &SessionController::runFailed, this,
            [this](const QString& message) { m_window.showError(tr("Training stopped"), message); });
    connect(&controller, &SessionController::ticked, this, [this] {
        if (--m_statusCountdown > 0) return;
        m_statusCountdown = kStatusEveryTicks;
        updateStatus();
    });
    connect(&controller, &SessionController::liveConfigChanged, this, [this] {
        m_window.setup().strategyPanel().setConfig(m_window.controller().config());  // a worker's speed or the mode, set live
    });

    // Set-up edits: applied after a pause in typing (applySetup(false)), the pending-edits note.
    RunSetupPanel& setup = window.setup();
    m_applyTimer.setSingleShot(true);
    m_applyTimer.setInterval(kApplyDelayMs);
    connect(&setup, &RunSetupPanel::edited, this, &RunControl::setupEdited);
    connect(&setup, &RunSetupPanel::learningRateEdited, this, &RunControl::onLearningRate);
    connect(&m_applyTimer, &QTimer::timeout, this, [this] { applySetup(/*ask=*/false); });
    connect(&setup, &RunSetupPanel::startNewRunRequested, this, &RunControl::startNewRunWithEdits);
    connect(&setup, &RunSetupPanel::undoEditsRequested, this, [this] {
        showInSetup(m_window.controller().config());
        m_window.controller().cancelPending();
    });

    m_statusLabel = new QLabel(&window);
    m_tickLabel = new QLabel(&window);
    m_tickLabel->setToolTip(
        tr("Time the GUI takes per frame (~30 a second) to drain the engine's telemetry and "
           "update the visible view: wall time (last, slowest) and the GUI thread's own CPU time. "
           "Wall time grows when training threads keep every core busy."));
    connect(m_diagnostics, &QAction::toggled, this, [this](bool on) {
        m_tickLabel->setVisible(on);
        if (on) updateStatus();
    });
    onStateChanged(controller.state());
}

void RunControl::addToToolBar(QToolBar* bar) {
    bar->addAction(m_play);
    bar->addAction(m_pause);
    bar->addAction(m_step);
    bar->addAction(m_reset);
    for (QAction* action : {m_play, m_pause, m_step, m_reset}) setExplainKey(bar->widgetForAction(action), QStringLiteral("run.controls"));
    m_sessionOnly.push_back(bar->addSeparator());
    buildSpeedControls(bar);
    m_sessionOnly.push_back(bar->addSeparator());
    m_sessionOnly.push_back(bar->addWidget(new QLabel(tr(" Learning rate "), bar)));
    m_learningRate = makeLearningRateBox(bar);
    m_learningRate->setObjectName(QStringLiteral("toolbarLearningRate"));
    m_sessionOnly.push_back(bar->addWidget(m_learningRate));
    connect(m_speed, &QSlider::valueChanged, this, &RunControl::onSpeedSlider);
    connect(m_learningRate, &QDoubleSpinBox::valueChanged, this, &RunControl::onLearningRate);
}

void RunControl::addToStatusBar(QStatusBar* bar) {
    bar->addWidget(m_statusLabel, 1);
    bar->addPermanentWidget(m_tickLabel);
    m_tickLabel->setVisible(m_diagnostics->isChecked());
}

void RunControl::buildSpeedControls(QToolBar* bar) {
    auto* speedTitle = new QLabel(tr(" Speed "), bar);
    m_speed = new QSlider(Qt::Horizontal, bar);
    m_speed->setObjectName(QStringLiteral("speedSlider"));
    m_speed->setRange(0, kNoLimitPosition);
    m_pacedPosition = positionOf(MainWindow::kDefaultStepsPerSecond);
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
        m_sessionOnly.push_back(bar->addWidget(widget));
    }
    bar->addAction(m_noLimit);
    m_sessionOnly.push_back(m_noLimit);
    setExplainKey(bar->widgetForAction(m_noLimit), QStringLiteral("run.speed"));
    setExplainKey(m_speedLabel, QStringLiteral("run.speed"));
    m_sessionOnly.push_back(bar->addWidget(m_speedLabel));
    connect(m_noLimit, &QAction::toggled, this, [this](bool noLimit) { m_speed->setValue(noLimit ? kNoLimitPosition : m_pacedPosition); });
    onSpeedSlider(m_speed->value());
}

void RunControl::showInSetup(const RunConfig& config) {
    m_applyTimer.stop();
    m_setupEdited = false;
    RunSetupPanel& setup = m_window.setup();
    setup.setConfig(config);
    setup.setProblem({});
    setup.setPendingNote({});
}

void RunControl::startRun(const RunConfig& config, bool play) {
    showInSetup(config);
    m_window.controller().restartRun(config, play);
}

void RunControl::playClicked() {
    applySetupNow();
    SessionController& controller = m_window.controller();
    const bool clusterOver = controller.cluster() != nullptr && controller.state() != SessionState::Paused;
    if ((controller.state() == SessionState::Finished || clusterOver) && !controller.pendingConfig()) {
        // A finished run plays again from the start, as a media player would (a cluster that was
        // stopped, too: its tasks cannot go on where they were).
        controller.restartRun(controller.config(), true);
        return;
    }
    controller.play();
}

void RunControl::resetClicked() {
    if (!m_window.savedRuns().confirmDiscard(tr("start again from the seed"))) return;
    m_applyTimer.stop();
    m_setupEdited = false;
    m_window.setup().setPendingNote({});
    SessionController& controller = m_window.controller();
    RunConfig config = m_window.setup().draft(controller.config());
    if (!validateRunConfig(config, "set-up")) config = controller.config();
    // A cluster's Reset stops its tasks and goes back to the start, not started again.
    const bool running = controller.state() == SessionState::Running && !SessionController::isClusterRun(config);
    controller.restartRun(config, running);
}

void RunControl::setupEdited() {
    m_setupEdited = true;
    m_applyTimer.start();
}

void RunControl::applySetupNow() { applySetup(/*ask=*/true); }

void RunControl::applySetup(bool ask) {
    RunSetupPanel& setup = m_window.setup();
    SessionController& controller = m_window.controller();
    // Edits are applied once the typing pauses (the timer), or now for a deliberate action; edits
    // that wait for a new run (the note is shown) are looked at again each time.
    // (A single-shot timer is no longer active when its timeout runs: the flag, not the timer, says
    // whether there are edits; before, edits that waited out the timer were never applied.)
    if (!m_setupEdited && !m_applyTimer.isActive() && !setup.hasPendingNote()) return;
    m_applyTimer.stop();
    m_setupEdited = false;
    const RunConfig draft = setup.draft(controller.config());
    if (Status valid = validateRunConfig(draft, "set-up"); !valid) {
        setup.setProblem(QString::fromStdString(valid.error().message));
        setup.setPendingNote({});
        return;
    }
    setup.setProblem({});
    if (controller.hasRun() && draft == controller.config()) {
        // Back to what runs: a run still loading for an earlier edit must not replace it.
        controller.cancelPending();
        setup.setPendingNote({});
        return;
    }
    if (controller.applyLive(draft)) {  // a worker's speed or the parameter-server mode
        setup.setPendingNote({});
        return;
    }
    SavedRunActions& saved = m_window.savedRuns();
    const bool running = controller.state() == SessionState::Running;
    if (!running && !saved.runHasUnsavedSteps()) {
        // Nothing is training and nothing would be lost: rebuild at once, as TensorFlow Playground
        // does (the panels always show what trains).
        setup.setPendingNote({});
        controller.loadRun(draft, false);
        return;
    }
    const QString what = QLocale().createSeparatedList(changedParts(controller.config(), draft));
    if (!ask) {
        // Trained steps are never thrown away behind the person's back (not even by a wheel turned
        // over a spin box): say what waits, and offer the new run in one click.
        setup.setPendingNote(
            (running ? tr("The run goes on with the set-up it started with. ") : tr("The paused run keeps the set-up it trained with. ")) +
            tr("Your edits to %1 need a new run (its %2 would be discarded; File ▸ Save run keeps them): start it here, or "
               "with Play or Step. The learning rate, the speed and the worker speeds apply at once, without a new run.")
                .arg(what, SavedRunActions::trainedSteps(controller.stepsDone())));
        return;
    }
    setup.setPendingNote({});
    if (!saved.confirmDiscard(tr("apply your edits to %1").arg(what))) {
        setup.setConfig(controller.config());  // back to what is running
        return;
    }
    controller.loadRun(draft, running);
}

void RunControl::startNewRunWithEdits() {
    m_applyTimer.stop();
    m_setupEdited = false;
    RunSetupPanel& setup = m_window.setup();
    SessionController& controller = m_window.controller();
    const RunConfig draft = setup.draft(controller.config());
    if (Status valid = validateRunConfig(draft, "set-up"); !valid) {
        setup.setProblem(QString::fromStdString(valid.error().message));
        return;
    }
    const bool running = controller.state() == SessionState::Running;
    if (!m_window.savedRuns().confirmDiscard(tr("start a new run with your edits"))) return;  // the note stays: the edits still wait
    setup.setPendingNote({});
    controller.loadRun(draft, running);  // the current run goes on until the new one has loaded
}

void RunControl::onStateChanged(SessionState state) {
    SessionController& controller = m_window.controller();
    m_play->setEnabled(controller.hasRun() && state != SessionState::Running && state != SessionState::Failed);
    m_pause->setEnabled(state == SessionState::Running);
    m_step->setEnabled(state == SessionState::Paused);
    // A cluster's tasks train in step as fast as they can: they cannot pause, step once, or take a
    // pace or a learning rate from the app while they train (Reset stops them).
    const bool session = controller.cluster() == nullptr;
    m_pause->setVisible(session);
    m_step->setVisible(session);
    for (QAction* action : m_sessionOnly) action->setVisible(session);
    m_reset->setEnabled(controller.hasRun());
    updateStatus();
}

void RunControl::onRunReplaced() {
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(m_window.controller().config().optimizer.learningRate);
    updateStatus();
    updateSpeedText();
}

void RunControl::onLearningRate(double rate) {
    m_window.controller().setLearningRate(rate);
    m_window.setup().trainingPanel().showLearningRate(rate);
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(rate);
}

void RunControl::onSpeedSlider(int position) {
    const double speed = speedOf(position);
    if (position < kNoLimitPosition) m_pacedPosition = position;
    m_window.controller().setSpeedLimit(speed);
    {
        const QSignalBlocker blocker(m_noLimit);
        m_noLimit->setChecked(speed <= 0.0);
    }
    updateSpeedText();
}

QString RunControl::speedText() const { return m_speedLabel->text(); }

void RunControl::updateSpeedText() {
    // The pace, and how long the whole run takes at it: a run of 200,000 updates is hours at a
    // pace a person can follow, seconds without a limit.
    const SessionController& controller = m_window.controller();
    const double speed = controller.speedLimit();
    const QLocale locale;
    QString pace;
    if (speed <= 0.0)
        pace = tr("no limit");
    else if (speed < 10.0)
        pace = tr("%1 steps/s").arg(speed, 0, 'f', 1);
    else
        pace = tr("%1 steps/s").arg(std::round(speed));
    const std::int64_t steps = controller.hasRun() ? controller.config().steps : 0;
    QString length;
    if (!controller.hasRun())
        length = QString();
    else if (steps <= 0)
        length = tr("run: until paused");
    else if (speed <= 0.0)
        length = tr("run: %1 steps").arg(locale.toString(steps));
    else
        length = tr("run: %1 steps ≈ %2").arg(locale.toString(steps), duration(double(steps) / speed));
    m_speedLabel->setText(length.isEmpty() ? pace : tr("%1 · %2").arg(pace, length));
}

QString RunControl::statusText() const { return m_statusLabel->text(); }

void RunControl::updateStatus() {
    SessionController& controller = m_window.controller();
    const RunHistory& history = controller.history();
    const QLocale locale;
    const RunConfig& config = controller.config();
    const auto replicas = config.strategy.replicaCount();
    const bool parameterServers = config.strategy.type == StrategyKind::ParameterServer;
    const bool cluster = SessionController::isClusterRun(config);
    const bool splitModel = config.strategy.type == StrategyKind::Pipeline || config.strategy.type == StrategyKind::ModelParallel;
    QString state = QString::fromLatin1(stateName(controller.state()));
    if (controller.isLoading()) state = tr("loading");
    if (!controller.hasRun()) state = tr("no run");
    const std::int64_t steps = controller.stepsDone();
    // A parameter-server cluster's tasks are a chief, its workers and its servers: named as on
    // threads, with "(processes)"; a multi-worker cluster's, workers of local replicas each.
    const QString where =
        parameterServers ? countText(replicas, tr("worker"), tr("workers")) + QStringLiteral(", ") +
                               countText(config.strategy.parameterServers, tr("parameter server"), tr("parameter servers")) +
                               (cluster ? tr(" (processes)") : QString())
        : cluster ? tr("%1 × %2 (processes)")
                        .arg(countText(config.cluster.workerCount(), tr("worker"), tr("workers")),
                             countText(replicas, tr("replica"), tr("replicas")))
        : config.strategy.type == StrategyKind::TensorParallel
            ? (config.strategy.dataParallel > 1
                   ? tr("%1 of weights split over %2 on %3")
                         .arg(countText(config.strategy.dataParallel, tr("copy"), tr("copies")),
                              countText(config.strategy.tensorParallel, tr("device"), tr("devices")), devicesSummary(config.strategy))
                   : tr("weights split over %1 on %2")
                         .arg(countText(replicas, tr("device"), tr("devices")), devicesSummary(config.strategy)))
        : splitModel ? (config.strategy.dataParallel > 1 && config.strategy.type == StrategyKind::Pipeline
                            ? tr("%1 of a model split over %2 on %3%4")
                                  .arg(countText(config.strategy.dataParallel, tr("copy"), tr("copies")),
                                       countText(config.strategy.stages, tr("device"), tr("devices")), devicesSummary(config.strategy),
                                       config.clock == ClockMode::Virtual ? tr(" (virtual clock)") : QString())
                            : tr("a model split over %1 on %2%3")
                                  .arg(countText(replicas, tr("device"), tr("devices")), devicesSummary(config.strategy),
                                       config.clock == ClockMode::Virtual ? tr(" (virtual clock)") : QString()))
                     : tr("%1 on %2").arg(countText(replicas, tr("replica"), tr("replicas")), devicesSummary(config.strategy));
    // Steady labels: a new text ten times a second repaints them without laying out the window.
    setSteadyText(*m_statusLabel, tr("step %1 · epoch %2 · %3 samples/s · %4 · %5 · %6")
                                      .arg(locale.toString(steps))
                                      .arg(locale.toString(history.lastStep().epoch))
                                      .arg(locale.toString(history.samplesPerSecond(), 'f', 0))
                                      .arg(where, clock(controller.runningSeconds()), state));
    if (!m_diagnostics->isChecked()) return;
    setSteadyText(*m_tickLabel, tr("GUI frame %1 ms, max %2 (CPU %3 / %4)")
                                    .arg(controller.lastTickMs(), 0, 'f', 2)
                                    .arg(controller.maxTickMs(), 0, 'f', 1)
                                    .arg(controller.lastTickCpuMs(), 0, 'f', 2)
                                    .arg(controller.maxTickCpuMs(), 0, 'f', 1));
}

}  // namespace distlab::ui
