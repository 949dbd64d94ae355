#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QGuiApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QScreen>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolBox>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "count_text.hpp"
#include "file_dialogs.hpp"
#include "panels/explain_panel.hpp"
#include "panels/explanations.hpp"
#include "panels/model_panel.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/training_panel.hpp"
#include "recent_files.hpp"
#include "views/boundary_view.hpp"
#include "views/communication_view.hpp"
#include "study/study_window.hpp"
#include "views/learning_view.hpp"
#include "views/network_view.hpp"
#include "views/parameter_server_view.hpp"
#include "views/replica_view.hpp"
#include "views/steady_label.hpp"
#include "views/throughput_view.hpp"
#include "views/timeline_view.hpp"
#include "wheel_guard.hpp"
#include "window_size.hpp"

#if __has_include("varlab/variable_lab_panel.hpp")
#include "varlab/variable_lab_panel.hpp"
#define DISTLAB_HAVE_VARIABLE_LAB 1
#endif

namespace distlab::ui {

namespace {
constexpr int kApplyDelayMs = 300;    // set-up edits apply after this pause (spin boxes fire per click)
constexpr int kStatusEveryTicks = 3;  // the status bar updates at ~10 Hz
constexpr int kWideWindow = 1600;     // narrower: the Explain dock folds into its toolbar button

QString devicesSummary(const StrategyConfig& strategy) {
    if (strategy.devices.empty()) return QStringLiteral("cpu:0");
    bool contiguousCpu = true;
    for (std::size_t i = 0; i < strategy.devices.size(); ++i) {
        const DeviceName& device = strategy.devices[i];
        contiguousCpu = contiguousCpu && device.kind == DeviceName::Kind::Cpu && device.index == strategy.devices[0].index + static_cast<int>(i);
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
    return QStringLiteral("%1:%2:%3").arg(total / 3600, 2, 10, QLatin1Char('0')).arg(total / 60 % 60, 2, 10, QLatin1Char('0'))
        .arg(total % 60, 2, 10, QLatin1Char('0'));
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_controller(new SessionController(this)), m_prompts(UserPrompts::messageBoxes()) {
    setObjectName(QStringLiteral("distlabMainWindow"));
    // Most of the screen on first launch (restoreSettings brings back the person's own size).
    if (const QScreen* screen = QGuiApplication::primaryScreen(); screen != nullptr) {
        const QRect available = screen->availableGeometry();
        resize(initialWindowSize(available));
        move(available.center() - rect().center());  // centred (a window manager may place it itself)
    }
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    WheelGuard::install(this);  // a wheel over the set-up scrolls it, never edits it unasked
    buildActions();
    buildSavedRunActions();
    buildStudyActions();
    buildPyTorchExportAction();
    buildTensorFlowCodeAction();
    buildViews();
    buildDocks();
    buildToolBar();
    buildMenus();
    m_statusLabel = new QLabel(this);
    m_tickLabel = new QLabel(this);
    m_tickLabel->setToolTip(tr("Time the GUI takes per frame (~30 a second) to drain the engine's telemetry and "
                               "update the visible view: wall time (last, slowest) and the GUI thread's own CPU time. "
                               "Wall time grows when training threads keep every core busy."));
    statusBar()->addWidget(m_statusLabel, 1);
    statusBar()->addPermanentWidget(m_tickLabel);
    m_tickLabel->setVisible(m_diagnostics->isChecked());
    m_applyTimer.setSingleShot(true);
    m_applyTimer.setInterval(kApplyDelayMs);
    connectController();
    restoreSettings();
    onStateChanged(SessionState::Stopped);
    updateTitle();
}

MainWindow::~MainWindow() { m_controller->stopAll(); }

void MainWindow::setPrompts(UserPrompts prompts) { m_prompts = std::move(prompts); }

RunConfig MainWindow::defaultConfig() {
    RunConfig config;
    config.name = "circle-one-device";
    config.seed = 1;
    LayerConfig hidden;
    hidden.units = 8;
    hidden.activation = Activation::Tanh;
    LayerConfig output;
    output.units = 2;
    config.model.layers = {hidden, hidden, output};
    config.data.source = DataSource::Synthetic;
    config.data.kind = SyntheticKind::Circle;
    config.data.samples = 500;
    config.data.noise = 0.1;
    config.data.trainFraction = 0.5;
    config.data.globalBatchSize = 32;
    config.optimizer.learningRate = 0.03;
    config.steps = 0;
    return config;
}

void MainWindow::buildActions() {
    QStyle* s = style();
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
    m_open = new QAction(s->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open run config…"), this);
    m_open->setShortcut(QKeySequence::Open);
    m_open->setIconText(tr("Open"));
    m_save = new QAction(s->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save run config"), this);
    m_save->setShortcut(QKeySequence::Save);
    m_save->setIconText(tr("Save"));
    m_saveAs = new QAction(tr("Save run config &as…"), this);
    m_saveAs->setShortcut(QKeySequence::SaveAs);
    m_loadWeights = new QAction(tr("&Load weights…"), this);
    m_saveWeights = new QAction(tr("Save &weights…"), this);
    m_saveWeights->setObjectName(QStringLiteral("saveWeightsAction"));
    m_exportMetrics = new QAction(tr("Export &metrics as CSV…"), this);
    m_exportTrace = new QAction(tr("Export &timeline as Chrome trace…"), this);
    m_savePng = new QAction(tr("Save current &view as PNG…"), this);
    m_savePng->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_compare = new QAction(tr("&Compare mirrored, async and sync…"), this);
    m_compare->setToolTip(tr("Train the current model mirrored, with async and with sync parameter servers side by side"));
    // For the app's developers: the status bar's frame times stay out of a learner's way until asked for.
    m_diagnostics = new QAction(tr("&Diagnostics"), this);
    m_diagnostics->setObjectName(QStringLiteral("diagnosticsAction"));
    m_diagnostics->setCheckable(true);
    m_diagnostics->setToolTip(tr("Show in the status bar how long the GUI takes per frame"));
}

void MainWindow::buildViews() {
    m_views = new QTabWidget(this);
    m_views->setObjectName(QStringLiteral("liveViews"));
    m_views->setDocumentMode(true);
    m_learning = new LearningView(*m_controller);
    m_replicas = new ReplicaView(*m_controller);
    m_throughput = new ThroughputView(*m_controller);
    m_timeline = new TimelineView(*m_controller);
    m_boundary = new BoundaryView(*m_controller);
    m_network = new NetworkView(*m_controller);
    m_communication = new CommunicationView(*m_controller);
    m_views->addTab(m_learning, tr("Learning"));
    m_views->addTab(m_replicas, tr("Replicas"));
    m_views->addTab(m_throughput, tr("Throughput"));
    m_views->addTab(m_timeline, tr("Timeline"));
    m_views->addTab(m_communication, tr("Communication"));
    // Short tab names: all nine fit beside the docks at 1440 pixels, no scroll arrows.
    m_views->addTab(m_boundary, tr("Boundary"));
    m_views->setTabToolTip(m_views->indexOf(m_boundary), tr("Decision boundary: the model's output over the 2-D data"));
    m_views->addTab(m_network, tr("Network"));
    m_parameterServers = new ParameterServerView(*m_controller);
    m_views->addTab(m_parameterServers, tr("Servers"));
    m_views->setTabToolTip(m_views->indexOf(m_parameterServers), tr("Parameter servers: topology, worker controls, staleness"));
    connect(m_parameterServers, &ParameterServerView::compareRequested, this, &MainWindow::openComparison);
    connect(m_parameterServers, &ParameterServerView::useParameterServersRequested, this, [this] {
        RunConfig config = m_controller->config();
        config.strategy = StrategyConfig{};
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        m_setup->strategyPanel().setConfig(config);
        m_applyTimer.start();
        applySetupNow();  // asks to reset when steps were trained
    });
#ifdef DISTLAB_HAVE_VARIABLE_LAB
    auto* variableLab = new VariableLabPanel(m_views);
    setExplainKey(variableLab, QStringLiteral("view.variable_lab"));
    m_views->addTab(variableLab, tr("Variable lab"));
#endif
    // Every tab stays visible: no scroll arrows hiding the last ones (tests/ui/test_layout.cpp).
    m_views->tabBar()->setExpanding(false);
    m_views->setUsesScrollButtons(false);
    m_views->setElideMode(Qt::ElideNone);
    // Tighter tabs than the style's default, so that all nine fit beside the set-up dock and the
    // Lesson dock at 1280 px (tests/ui/test_layout.cpp).
    m_views->tabBar()->setStyleSheet(QStringLiteral("QTabBar::tab { padding: 5px 6px; }"));
    setCentralWidget(m_views);
    // Every view can be saved as a picture from its context menu.
    for (int i = 0; i < m_views->count(); ++i) {
        QWidget* view = m_views->widget(i);
        auto* action = new QAction(tr("Save this view as PNG…"), view);
        connect(action, &QAction::triggered, this, [this, view] {
            m_views->setCurrentWidget(view);
            m_savePng->trigger();
        });
        view->addAction(action);
        view->setContextMenuPolicy(Qt::ActionsContextMenu);
    }
}

void MainWindow::buildDocks() {
    m_setup = new RunSetupPanel();
    m_setupDiagram = new NetworkView(*m_controller);
    m_setupDiagram->setMinimumHeight(150);
    m_setup->modelPanel().setDiagram(m_setupDiagram);
    auto* setupDock = new QDockWidget(tr("Run set-up"), this);
    setupDock->setObjectName(QStringLiteral("runSetupDock"));
    setupDock->setWidget(m_setup);
    setupDock->setMinimumWidth(340);
    addDockWidget(Qt::LeftDockWidgetArea, setupDock);
    m_explain = new ExplainPanel(this);
    auto* explainDock = new QDockWidget(tr("Explain"), this);
    m_explainDock = explainDock;
    explainDock->setObjectName(QStringLiteral("explainDock"));
    explainDock->setWidget(m_explain);
    // Narrow enough that a window with the dock shown can still be made 1280 px wide (and then
    // folds it away, fitExplainDock).
    explainDock->setMinimumWidth(160);
    addDockWidget(Qt::RightDockWidgetArea, explainDock);
    resizeDocks({setupDock, explainDock}, {400, 280}, Qt::Horizontal);
    // Explain follows the current tab (and, through its event filter, the control under the mouse).
    connect(m_views, &QTabWidget::currentChanged, this, [this](int index) {
        if (QWidget* view = m_views->widget(index); view != nullptr) m_explain->showTopic(explainKeyOf(view));
    });
    // The dock collapses to a toolbar button in a narrow window (fitExplainDock); a person who
    // opens or closes it decides from then on.
    QAction* toggle = explainDock->toggleViewAction();
    toggle->setToolTip(tr("Show or hide the Explain panel"));
    connect(toggle, &QAction::triggered, this, [this] { m_explainChosen = true; });
        connect(m_setup, &RunSetupPanel::edited, this, &MainWindow::onSetupEdited);
    connect(m_setup, &RunSetupPanel::learningRateEdited, this, &MainWindow::onLearningRate);
    connectSetupEdits();  // main_window_run.cpp
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_play);
    bar->addAction(m_pause);
    bar->addAction(m_step);
    bar->addAction(m_reset);
    for (QAction* action : {m_play, m_pause, m_step, m_reset}) setExplainKey(bar->widgetForAction(action), QStringLiteral("run.controls"));
    bar->addSeparator();
    buildSpeedControls(bar);  // main_window_run.cpp
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Learning rate "), bar));
    m_learningRate = makeLearningRateBox(bar);
    m_learningRate->setObjectName(QStringLiteral("toolbarLearningRate"));
    bar->addWidget(m_learningRate);
    bar->addSeparator();
    bar->addAction(m_open);
    bar->addAction(m_save);
    bar->addSeparator();
    bar->addAction(m_explainDock->toggleViewAction());
    connect(m_speed, &QSlider::valueChanged, this, &MainWindow::onSpeedSlider);
    connect(m_learningRate, &QDoubleSpinBox::valueChanged, this, &MainWindow::onLearningRate);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_open);
    QMenu* recent = file->addMenu(tr("Open &recent"));
    m_recent = new RecentFiles(recent, this);
    connect(m_recent, &RecentFiles::openRequested, this, [this](const QString& path) { openConfig(path); });
    m_examples = file->addMenu(tr("&Examples"));
    m_examples->setObjectName(QStringLiteral("examplesMenu"));
    buildExamplesMenu(m_examples);  // main_window_run.cpp
    file->addAction(m_save);
    file->addAction(m_saveAs);
    file->addSeparator();
    file->addAction(m_loadWeights);
    file->addAction(m_saveWeights);
    file->addSeparator();
    file->addAction(m_saveRun);
    file->addAction(m_openSavedRun);
    file->addAction(m_compareSaved);
    file->addAction(m_clearComparison);
    file->addSeparator();
    file->addAction(m_openStudy);
    file->addSeparator();
    file->addAction(m_exportMetrics);
    file->addAction(m_exportTrace);
    file->addAction(m_exportPyTorch);
    file->addAction(m_showTensorFlow);
    file->addAction(m_savePng);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addActions({m_play, m_pause, m_step, m_reset});
    run->addSeparator();
    run->addAction(m_newStudy);
    run->addAction(m_equivalenceLab);
    run->addAction(m_compare);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    for (int i = 0; i < m_views->count(); ++i) {
        QAction* show = view->addAction(m_views->tabText(i), this, [this, i] { m_views->setCurrentIndex(i); });
        show->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    view->addAction(m_diagnostics);
    connect(m_diagnostics, &QAction::toggled, this, [this](bool on) {
        m_tickLabel->setVisible(on);
        if (on) updateStatus();
    });
    buildHelpMenu();  // main_window_help.cpp
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (settings.contains("window/geometry")) restoreGeometry(settings.value("window/geometry").toByteArray());
    if (settings.contains("window/state")) restoreState(settings.value("window/state").toByteArray());
    // A person who showed or hid Explain keeps that layout: no folding it away at the next launch.
    m_explainChosen = settings.value("window/explainChosen", false).toBool();
    m_diagnostics->setChecked(settings.value("views/diagnostics", false).toBool());
    m_learning->setSmoothing(settings.value("views/smoothing", 0.9).toDouble());
    m_views->setCurrentIndex(settings.value("views/tab", 0).toInt());
    m_setup->pages().setCurrentIndex(settings.value("views/setupPage", 0).toInt());
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/explainChosen", m_explainChosen);
    settings.setValue("views/diagnostics", m_diagnostics->isChecked());
    settings.setValue("views/smoothing", m_learning->smoothing());
    settings.setValue("views/tab", m_views->currentIndex());
    settings.setValue("views/setupPage", m_setup->pages().currentIndex());
}

void MainWindow::showEvent(QShowEvent* event) {
    fitExplainDock();  // before the first layout: a narrow window never lays out the dock
    QMainWindow::showEvent(event);
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    fitExplainDock();
}

void MainWindow::fitExplainDock() {
    // Below kWideWindow the views need the room: the Explain dock folds into its toolbar button
    // (still following the tab and the controls), unless the person chose to show or hide it.
    if (m_explainChosen || m_explainDock == nullptr || m_explainDock->isFloating()) return;
    const bool wide = width() >= kWideWindow;
    if (m_explainDock->isVisibleTo(this) != wide) m_explainDock->setVisible(wide);
}

void MainWindow::closeWithoutAsking() {
    m_closeWithoutAsking = true;
    close();
}

bool MainWindow::confirmClose() {
    QStringList lost;
    const QLocale locale;
    if (runHasUnsavedSteps()) {
        lost.append(tr("the run \"%1\" (%2)").arg(QString::fromStdString(m_controller->config().name),
                                                    trainedSteps(m_controller->stepsDone())));
    }
    const QString study = m_studyWindow != nullptr ? m_studyWindow->unsavedResults() : QString();
    if (!study.isEmpty()) lost.append(study);
    if (lost.isEmpty()) return true;
    // Save: each in turn; a save dialog cancelled (or a save that failed) keeps the window open.
    return allowLosingWork(m_prompts, this, tr("Quit DistLab?"),
                           tr("Quitting now loses %1. Save before quitting?").arg(locale.createSeparatedList(lost)), [&] {
                               if (runHasUnsavedSteps() && !saveRunBeforeLosingIt()) return false;
                               return study.isEmpty() || m_studyWindow->exportTableAsked();
                           });
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!m_closeWithoutAsking && !confirmClose()) {
        event->ignore();
        return;
    }
    saveSettings();
    m_applyTimer.stop();
    m_controller->stopAll();  // joins the session thread: within one step
    if (m_studyWindow != nullptr) m_studyWindow->close();  // and the study's variants
    event->accept();
}

void MainWindow::updateTitle() {
    const QString name = QString::fromStdString(m_controller->config().name);
    // The run's name alone: the window system adds the application's display name ("name — DistLab"),
    // and shows just "DistLab" for an empty title.
    setWindowTitle(m_controller->hasRun() ? name : QString());
}

QString MainWindow::statusText() const { return m_statusLabel->text(); }

QString MainWindow::runFileName(const QString& suffix) const { return suggestedFileName(m_controller->config().name, suffix); }

void MainWindow::updateStatus() {
    const RunHistory& history = m_controller->history();
    const QLocale locale;
    const RunConfig& config = m_controller->config();
    const auto replicas = config.strategy.replicaCount();
    const bool parameterServers = config.strategy.type == StrategyKind::ParameterServer;
    QString state = QString::fromLatin1(stateName(m_controller->state()));
    if (m_controller->isLoading()) state = tr("loading");
    if (!m_controller->hasRun()) state = tr("no run");
    const std::int64_t steps = m_controller->stepsDone();
    const QString where =
        parameterServers ? countText(replicas, tr("worker"), tr("workers")) + QStringLiteral(", ") +
                               countText(config.strategy.parameterServers, tr("parameter server"), tr("parameter servers"))
                         : tr("%1 on %2").arg(countText(replicas, tr("replica"), tr("replicas")), devicesSummary(config.strategy));
    // Steady labels: a new text ten times a second repaints them without laying out the window.
    setSteadyText(*m_statusLabel, tr("step %1 · epoch %2 · %3 samples/s · %4 · %5 · %6")
                               .arg(locale.toString(steps))
                               .arg(locale.toString(history.lastStep().epoch))
                               .arg(locale.toString(history.samplesPerSecond(), 'f', 0))
                               .arg(where, clock(m_controller->runningSeconds()), state));
    if (!m_diagnostics->isChecked()) return;
    setSteadyText(*m_tickLabel, tr("GUI frame %1 ms, max %2 (CPU %3 / %4)")
                                    .arg(m_controller->lastTickMs(), 0, 'f', 2)
                                    .arg(m_controller->maxTickMs(), 0, 'f', 1)
                                    .arg(m_controller->lastTickCpuMs(), 0, 'f', 2)
                                    .arg(m_controller->maxTickCpuMs(), 0, 'f', 1));
}

void MainWindow::connectController() {
    connect(m_controller, &SessionController::stateChanged, this, &MainWindow::onStateChanged);
    connect(m_controller, &SessionController::runReplaced, this, &MainWindow::onRunReplaced);
    connect(m_controller, &SessionController::runRejected, this, &MainWindow::onRunRejected);
    connect(m_controller, &SessionController::runFailed, this, [this](const QString& message) {
        showError(tr("Training stopped"), message);
    });
    connect(m_controller, &SessionController::ticked, this, [this] {
        if (--m_statusCountdown > 0) return;
        m_statusCountdown = kStatusEveryTicks;
        updateStatus();
    });
    connect(m_controller, &SessionController::liveConfigChanged, this, [this] {
        m_setup->strategyPanel().setConfig(m_controller->config());  // a worker's speed or the mode, set live
    });
    connect(m_compare, &QAction::triggered, this, &MainWindow::openComparison);
    connect(m_play, &QAction::triggered, this, &MainWindow::playClicked);
    connect(m_pause, &QAction::triggered, m_controller, &SessionController::pause);
    connect(m_step, &QAction::triggered, this, [this] {
        applySetupNow();
        m_controller->stepOnce();
    });
    connect(m_reset, &QAction::triggered, this, &MainWindow::resetClicked);
    connect(m_open, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(this, tr("Open run config"), tr("Run configs (*.json);;All files (*)"));
        if (!path.isEmpty()) openConfig(path);
    });
    connect(m_save, &QAction::triggered, this, [this] {
        const QString path = m_currentFile.isEmpty()
                                 ? askSavePath(this, tr("Save run config"), tr("Run configs (*.json)"), QStringLiteral("json"), runFileName("json"))
                                 : m_currentFile;
        if (!path.isEmpty()) saveConfig(path);
    });
    connect(m_saveAs, &QAction::triggered, this, [this] {
        const QString path = askSavePath(this, tr("Save run config as"), tr("Run configs (*.json)"), QStringLiteral("json"), runFileName("json"));
        if (!path.isEmpty()) saveConfig(path);
    });
    connect(m_saveWeights, &QAction::triggered, this, [this] {
        const QString path = askSavePath(this, tr("Save weights"), tr("Safetensors (*.safetensors)"), QStringLiteral("safetensors"),
                                         runFileName("safetensors"));
        if (!path.isEmpty()) saveWeights(path);
    });
    connect(m_loadWeights, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(this, tr("Load weights"), tr("Safetensors (*.safetensors);;All files (*)"));
        if (!path.isEmpty()) loadWeights(path);
    });
    connect(m_exportMetrics, &QAction::triggered, this, [this] {
        const QString path = askSavePath(this, tr("Export metrics"), tr("CSV (*.csv)"), QStringLiteral("csv"), runFileName("csv"));
        if (!path.isEmpty()) exportMetrics(path);
    });
    connect(m_exportTrace, &QAction::triggered, this, [this] {
        const QString path = askSavePath(this, tr("Export timeline"), tr("Chrome trace (*.json)"), QStringLiteral("json"), runFileName("trace.json"));
        if (!path.isEmpty()) exportTrace(path);
    });
    connect(m_savePng, &QAction::triggered, this, [this] {
        const QString path = askSavePath(this, tr("Save view as PNG"), tr("PNG images (*.png)"), QStringLiteral("png"), runFileName("png"));
        if (!path.isEmpty()) saveViewPng(path);
    });
}

}  // namespace distlab::ui
