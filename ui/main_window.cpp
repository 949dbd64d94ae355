#include "main_window.hpp"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLocale>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolBox>

#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "panels/explain_panel.hpp"
#include "panels/explanations.hpp"
#include "panels/model_panel.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "study/study_window.hpp"
#include "views/boundary_view.hpp"
#include "views/communication_view.hpp"
#include "views/learning_view.hpp"
#include "views/network_view.hpp"
#include "views/parameter_server_view.hpp"
#include "views/replica_view.hpp"
#include "views/throughput_view.hpp"
#include "views/schedule_view.hpp"
#include "views/tasks_view.hpp"
#include "views/timeline_view.hpp"
#include "wheel_guard.hpp"
#include "window/export_actions.hpp"
#include "window/file_actions.hpp"
#include "window/help_menu.hpp"
#include "window/run_control.hpp"
#include "window/saved_run_actions.hpp"
#include "window/session_file_tasks.hpp"
#include "window/study_launcher.hpp"
#include "window_size.hpp"

#if __has_include("varlab/variable_lab_panel.hpp")
#include "varlab/variable_lab_panel.hpp"
#define DISTLAB_HAVE_VARIABLE_LAB 1
#endif

namespace distlab::ui {

namespace {
constexpr int kWideWindow = 1600;  // narrower: the Explain dock folds into its toolbar button
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
    buildViews();
    buildDocks();
    // The parts, once the set-up dock and the views they work on exist.
    m_runControl = new RunControl(*this);
    m_fileTasks = new SessionFileTasks(*this, *m_controller);
    m_files = new FileActions(*this, *m_fileTasks);
    m_savedRuns = new SavedRunActions(*this, *m_fileTasks);
    m_exports = new ExportActions(*this);
    m_studies = new StudyLauncher(*this);
    m_help = new HelpMenu(*this);
    connect(m_fileTasks, &SessionFileTasks::finished, this, &MainWindow::sessionFileDone);
    connect(m_controller, &SessionController::runReplaced, this, &MainWindow::updateTitle);
    buildToolBar();
    buildMenus();
    m_runControl->addToStatusBar(statusBar());
    restoreSettings();
    updateTitle();
}

MainWindow::~MainWindow() { m_controller->stopAll(); }

void MainWindow::setPrompts(UserPrompts prompts) { m_prompts = std::move(prompts); }

void MainWindow::showError(const QString& title, const QString& message) {
    if (m_prompts.error) m_prompts.error(this, title, message);
}

QString MainWindow::runFileName(const QString& suffix) const { return suggestedFileName(m_controller->config().name, suffix); }

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
    // A split model's schedule: shown only for pipeline and model_parallel runs.
    m_schedule = new ScheduleView(*m_controller);
    m_views->addTab(m_schedule, tr("Schedule"));
    m_views->setTabToolTip(m_views->indexOf(m_schedule), tr("Pipeline schedule: each device's passes, the bubble against theory"));
    m_views->addTab(m_communication, tr("Communication"));
    // Short tab names: all nine fit beside the docks at 1440 pixels, no scroll arrows.
    m_views->addTab(m_boundary, tr("Boundary"));
    m_views->setTabToolTip(m_views->indexOf(m_boundary), tr("Decision boundary: the model's output over the 2-D data"));
    m_views->addTab(m_network, tr("Network"));
    m_parameterServers = new ParameterServerView(*m_controller);
    m_views->addTab(m_parameterServers, tr("Servers"));
    m_views->setTabToolTip(m_views->indexOf(m_parameterServers), tr("Parameter servers: topology, worker controls, staleness"));
    // A cluster run's tasks: shown, with the views a cluster can feed, only for a cluster run.
    m_tasks = new TasksView(*m_controller);
    m_views->addTab(m_tasks, tr("Tasks"));
    m_views->setTabToolTip(m_views->indexOf(m_tasks), tr("The cluster's tasks: processes, states, steps"));
    connect(m_controller, &SessionController::runReplaced, this, &MainWindow::showViewsOfRun);
    showViewsOfRun();
    connect(m_parameterServers, &ParameterServerView::compareRequested, this, [this] { m_studies->openComparison(); });
    connect(m_parameterServers, &ParameterServerView::useParameterServersRequested, this, [this] {
        RunConfig config = m_controller->config();
        config.strategy = StrategyConfig{};
        config.strategy.type = StrategyKind::ParameterServer;
        config.strategy.workers = 4;
        config.strategy.parameterServers = 2;
        m_setup->strategyPanel().setConfig(config);
        m_runControl->setupEdited();
        m_runControl->applySetupNow();  // asks to reset when steps were trained
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
            m_exports->savePngAction()->trigger();
        });
        view->addAction(action);
        view->setContextMenuPolicy(Qt::ActionsContextMenu);
    }
}

void MainWindow::showViewsOfRun() {
    // A cluster's tasks are processes: the app draws what they stream (every replica's steps, the
    // coordinator's model for the diagram and the decision boundary; a parameter-server chief's
    // servers and staleness in the Servers tab, without the controls that drive threads of this
    // process). A multi-worker cluster has no servers to show.
    const bool cluster = m_controller->cluster() != nullptr;
    const bool servers = !cluster || m_controller->config().strategy.type == StrategyKind::ParameterServer;
    m_views->setTabVisible(m_views->indexOf(m_tasks), cluster);
    const StrategyKind kind = m_controller->config().strategy.type;
    const bool split = kind == StrategyKind::Pipeline || kind == StrategyKind::ModelParallel;
    m_views->setTabVisible(m_views->indexOf(m_schedule), split);
    if (!split && m_views->currentWidget() == m_schedule) m_views->setCurrentWidget(m_timeline);
    m_views->setTabVisible(m_views->indexOf(m_parameterServers), servers);
    if (!servers && m_views->currentWidget() == m_parameterServers) m_views->setCurrentWidget(m_tasks);
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
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Run"));
    bar->setObjectName(QStringLiteral("runToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_runControl->addToToolBar(bar);
    bar->addSeparator();
    bar->addAction(m_files->openAction());
    bar->addAction(m_files->saveAction());
    bar->addSeparator();
    bar->addAction(m_explainDock->toggleViewAction());
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_files->openAction());
    m_files->buildRecentMenu(file->addMenu(tr("Open &recent")));
    m_examples = file->addMenu(tr("&Examples"));
    m_examples->setObjectName(QStringLiteral("examplesMenu"));
    m_files->buildExamplesMenu(m_examples);
    file->addAction(m_files->saveAction());
    file->addAction(m_files->saveAsAction());
    file->addSeparator();
    file->addAction(m_files->loadWeightsAction());
    file->addAction(m_files->saveWeightsAction());
    file->addSeparator();
    file->addAction(m_savedRuns->saveRunAction());
    file->addAction(m_savedRuns->openSavedRunAction());
    file->addAction(m_savedRuns->compareSavedAction());
    file->addAction(m_savedRuns->clearComparisonAction());
    file->addSeparator();
    file->addAction(m_studies->openStudyAction());
    file->addSeparator();
    file->addAction(m_exports->exportMetricsAction());
    file->addAction(m_exports->exportTraceAction());
    file->addAction(m_exports->exportPyTorchAction());
    file->addAction(m_exports->showTensorFlowAction());
    file->addAction(m_exports->savePngAction());
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addActions({m_runControl->playAction(), m_runControl->pauseAction(), m_runControl->stepAction(), m_runControl->resetAction()});
    run->addSeparator();
    run->addAction(m_studies->newStudyAction());
    run->addAction(m_studies->equivalenceLabAction());
    run->addAction(m_studies->compareAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    for (int i = 0; i < m_views->count(); ++i) {
        QAction* show = view->addAction(m_views->tabText(i), this, [this, i] { m_views->setCurrentIndex(i); });
        show->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
    }
    view->addSeparator();
    view->addAction(m_runControl->diagnosticsAction());
    m_help->build(menuBar()->addMenu(tr("&Help")));
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (settings.contains("window/geometry")) restoreGeometry(settings.value("window/geometry").toByteArray());
    if (settings.contains("window/state")) restoreState(settings.value("window/state").toByteArray());
    // A person who showed or hid Explain keeps that layout: no folding it away at the next launch.
    m_explainChosen = settings.value("window/explainChosen", false).toBool();
    m_runControl->diagnosticsAction()->setChecked(settings.value("views/diagnostics", false).toBool());
    m_learning->setSmoothing(settings.value("views/smoothing", 0.9).toDouble());
    m_views->setCurrentIndex(settings.value("views/tab", 0).toInt());
    m_setup->pages().setCurrentIndex(settings.value("views/setupPage", 0).toInt());
}

void MainWindow::saveSettings() {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
    settings.setValue("window/explainChosen", m_explainChosen);
    settings.setValue("views/diagnostics", m_runControl->diagnosticsAction()->isChecked());
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
    if (m_savedRuns->runHasUnsavedSteps()) {
        lost.append(
            tr("the run \"%1\" (%2)")
                .arg(QString::fromStdString(m_controller->config().name), SavedRunActions::trainedSteps(m_controller->stepsDone())));
    }
    StudyWindow* studyWindow = m_studies->studyWindow();
    const QString study = studyWindow != nullptr ? studyWindow->unsavedResults() : QString();
    if (!study.isEmpty()) lost.append(study);
    if (lost.isEmpty()) return true;
    // Save: each in turn; a save dialog cancelled (or a save that failed) keeps the window open.
    return allowLosingWork(m_prompts, this, tr("Quit DistLab?"),
                           tr("Quitting now loses %1. Save before quitting?").arg(locale.createSeparatedList(lost)), [&] {
                               if (m_savedRuns->runHasUnsavedSteps() && !m_savedRuns->saveRunBeforeLosingIt()) return false;
                               return study.isEmpty() || studyWindow->exportTableAsked();
                           });
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!m_closeWithoutAsking && !confirmClose()) {
        event->ignore();
        return;
    }
    saveSettings();
    m_runControl->stopApplying();
    m_controller->stopAll();                                                              // joins the session thread: within one step
    if (StudyWindow* study = m_studies->studyWindow(); study != nullptr) study->close();  // and the study's variants
    event->accept();
}

void MainWindow::updateTitle() {
    const QString name = QString::fromStdString(m_controller->config().name);
    // The run's name alone: the window system adds the application's display name ("name — DistLab"),
    // and shows just "DistLab" for an empty title.
    setWindowTitle(m_controller->hasRun() ? name : QString());
}

}  // namespace distlab::ui
