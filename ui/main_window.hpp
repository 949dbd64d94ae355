#pragma once
// The DistLab window: composes the run set-up dock (left), the live views (tabs, middle), the
// Explain dock (right), the toolbar, the menus and the status bar. It implements no panel and no
// view, and each of its concerns is a part of its own (ui/window/):
//   RunControl       Play, Pause, Step, Reset, the speed and learning rate; set-up edits; the status line
//   FileActions      run configs (open, recent, examples, save) and weights
//   SavedRunActions  saved runs (save, open, compare) and the question before trained steps are lost
//   SessionFileTasks the file actions the trainer does between two steps, and the busy state meanwhile
//   ExportActions    metrics CSV, Chrome trace, PNG, PyTorch script, TensorFlow code
//   StudyLauncher    studies, the equivalence lab, the strategy comparison and their windows
//   HelpMenu         lessons (and the Lesson dock), the guide, shortcuts, About
// The window builds the views and docks, puts the parts' actions into the menus and the toolbar,
// keeps the layout in QSettings, and asks before closing. Its file and study methods below are the
// parts' own, for the launcher, the lessons and the tests. GUI thread only.
#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <distlab/config/run_config.hpp>
#include <distlab/study/study.hpp>

#include "user_prompts.hpp"

class QAction;
class QDockWidget;
class QMenu;
class QSlider;
class QTabWidget;

namespace distlab::ui {

class BoundaryView;
class CommunicationView;
class EquivalenceWindow;
class ExplainPanel;
class ExportActions;
class FileActions;
class HelpBrowser;
class HelpMenu;
class LearningView;
class LessonPanel;
class NetworkView;
class ParameterServerView;
class ScheduleView;
class TasksView;
class ReplicaView;
class RunControl;
class RunHistory;
class RunSetupPanel;
class SavedRunActions;
class SessionController;
class SessionFileTasks;
class StudyLauncher;
class StudyWindow;
class TensorFlowCodeDialog;
class ThroughputView;
class TimelineView;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Replaces the message boxes (tests record errors instead of blocking).
    void setPrompts(UserPrompts prompts);
    const UserPrompts& prompts() const { return m_prompts; }
    /// Shows an error through the prompts (a message box, or a test's recorder).
    void showError(const QString& title, const QString& message);
    /// The file name a save dialog proposes for this run: its name made file-safe, `suffix` added.
    QString runFileName(const QString& suffix) const;
    /// The example run shown when the app starts without a config (circle data, 8-8-2 tanh, one device).
    static RunConfig defaultConfig();
    /// A window opens at this pace (steps per second), one a person can follow; "no limit" is one click.
    static constexpr double kDefaultStepsPerSecond = 20.0;

    // The parts.
    RunControl& runControl() const { return *m_runControl; }
    FileActions& files() const { return *m_files; }
    SavedRunActions& savedRuns() const { return *m_savedRuns; }
    ExportActions& exports() const { return *m_exports; }
    StudyLauncher& studies() const { return *m_studies; }
    HelpMenu& help() const { return *m_help; }

    // What the parts do, as the launcher, the lessons and the tests ask it of the window (see each
    // part for the details). A file action shows its error through the prompts and leaves the
    // current run untouched when it fails.
    /// RunControl::startRun.
    void startRun(const RunConfig& config, bool play);
    /// RunControl::applySetupNow.
    void applySetupNow();
    /// FileActions::openConfig.
    bool openConfig(const QString& path, bool play = false, const QStringList& overrides = {});
    bool saveConfig(const QString& path);
    // The weights and saved runs are written or read by the trainer, on the run's session thread,
    // between two steps: these return at once, the window shows it is busy and goes on drawing, and
    // sessionFileDone follows with the outcome.
    void saveWeights(const QString& path);
    void loadWeights(const QString& path);
    /// SavedRunActions::saveRun, saveRunAsked.
    void saveRun(const QString& path);
    void saveRunAsked();
    bool runHasUnsavedSteps() const;
    bool openSavedRun(const QString& path);
    bool compareWithSavedRun(const QString& path);
    void clearComparison();
    const RunHistory* comparisonRun() const;
    /// ExportActions.
    bool exportMetrics(const QString& path);
    bool exportTrace(const QString& path);
    bool saveViewPng(const QString& path);
    bool exportPyTorchScript(const QString& path, bool wait = false);
    void showTensorFlowCode();
    TensorFlowCodeDialog* tensorFlowCodeDialog() const;
    /// StudyLauncher.
    bool openStudy(const QString& path);
    bool showStudy(Study study, const QString& path);
    void showEquivalence(Study study, const QString& path);
    void openComparison();
    StudyWindow* studyWindow() const;
    EquivalenceWindow* equivalenceWindow() const;
    QAction* newStudyAction() const;
    QAction* compareAction() const;
    /// HelpMenu.
    bool openLesson(const QString& path);
    LessonPanel* lessonPanel() const;
    HelpBrowser* helpBrowser() const;
    /// Closes the window without asking about unsaved work (--quit-after-ms: nobody is there to answer).
    void closeWithoutAsking();

    SessionController& controller() const { return *m_controller; }
    RunSetupPanel& setup() const { return *m_setup; }
    QTabWidget& views() const { return *m_views; }
    LearningView& learningView() const { return *m_learning; }
    ReplicaView& replicaView() const { return *m_replicas; }
    ThroughputView& throughputView() const { return *m_throughput; }
    TimelineView& timelineView() const { return *m_timeline; }
    BoundaryView& boundaryView() const { return *m_boundary; }
    NetworkView& networkView() const { return *m_network; }
    CommunicationView& communicationView() const { return *m_communication; }
    ParameterServerView& parameterServerView() const { return *m_parameterServers; }
    TasksView& tasksView() const { return *m_tasks; }
    ScheduleView& scheduleView() const { return *m_schedule; }
    ExplainPanel& explainPanel() const { return *m_explain; }
    QDockWidget& explainDock() const { return *m_explainDock; }
    // RunControl's.
    QAction* playAction() const;
    QAction* pauseAction() const;
    QAction* stepAction() const;
    QAction* resetAction() const;
    QSlider& speedSlider() const;
    QAction* noLimitAction() const;
    QString speedText() const;
    QString statusText() const;
    QAction* diagnosticsAction() const;
    /// FileActions::currentFile.
    QString currentFile() const;
    /// File ▸ Examples: one action per example run (exampleFiles), opening it as File ▸ Open does.
    QMenu* examplesMenu() const { return m_examples; }

signals:
    /// A file action done by the trainer (saveWeights, loadWeights, saveRun, saveRunAsked) has ended:
    /// `ok`, or its error was shown (or it was refused, or cancelled).
    void sessionFileDone(bool ok);

protected:
    void closeEvent(QCloseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildViews();
    /// Shows the tabs the current run can feed (a cluster run: Tasks, no Boundary or Servers).
    void showViewsOfRun();
    void buildDocks();
    void buildToolBar();
    void buildMenus();
    void restoreSettings();
    void saveSettings();
    void updateTitle();
    void fitExplainDock();
    /// Before the window closes: asks (Save / Discard / Cancel) when a run or a study's results would
    /// be lost, naming them; true when the window may close.
    bool confirmClose();

    SessionController* m_controller;
    UserPrompts m_prompts;
    RunSetupPanel* m_setup = nullptr;
    ExplainPanel* m_explain = nullptr;
    QDockWidget* m_explainDock = nullptr;
    bool m_explainChosen = false;  // the person showed or hid the Explain dock: no automatic folding
    QTabWidget* m_views = nullptr;
    LearningView* m_learning = nullptr;
    ReplicaView* m_replicas = nullptr;
    ThroughputView* m_throughput = nullptr;
    TimelineView* m_timeline = nullptr;
    BoundaryView* m_boundary = nullptr;
    NetworkView* m_network = nullptr;
    CommunicationView* m_communication = nullptr;
    ParameterServerView* m_parameterServers = nullptr;
    TasksView* m_tasks = nullptr;
    ScheduleView* m_schedule = nullptr;
    NetworkView* m_setupDiagram = nullptr;
    QMenu* m_examples = nullptr;
    RunControl* m_runControl = nullptr;
    SessionFileTasks* m_fileTasks = nullptr;
    FileActions* m_files = nullptr;
    SavedRunActions* m_savedRuns = nullptr;
    ExportActions* m_exports = nullptr;
    StudyLauncher* m_studies = nullptr;
    HelpMenu* m_help = nullptr;
    bool m_closeWithoutAsking = false;
};

}  // namespace distlab::ui
