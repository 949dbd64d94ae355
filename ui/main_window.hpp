#pragma once
// The DistLab window: composes the run set-up dock (left), the live views (tabs, middle), the
// Explain dock (right), the run toolbar (top) and the status bar. It wires panels to the session
// controller; it implements no panel and no view itself. GUI thread only.
#include <QMainWindow>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>

#include <distlab/config/run_config.hpp>
#include <distlab/core/error.hpp>
#include <distlab/session/session_observer.hpp>
#include <distlab/study/study.hpp>

#include "user_prompts.hpp"

class QAction;
class QDockWidget;
class QDoubleSpinBox;
class QLabel;
class QMenu;
class QSlider;
class QTabWidget;
class QToolBar;

namespace distlab {
class Trainer;
}

namespace distlab::ui {

class BoundaryView;
class CommunicationView;
class ExplainPanel;
class HelpBrowser;
class LearningView;
class NetworkView;
class ParameterServerView;
class RecentFiles;
class RunHistory;
class StudyWindow;
class EquivalenceWindow;
class TensorFlowCodeDialog;
class LessonPanel;
class ReplicaView;
class RunSetupPanel;
class SessionController;
class ThroughputView;
class TimelineView;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Replaces the message boxes (tests record errors instead of blocking).
    void setPrompts(UserPrompts prompts);
    /// The example run shown when the app starts without a config (circle data, 8-8-2 tanh, one device).
    static RunConfig defaultConfig();
    /// Starts `config` as the current run (replacing any), paused unless `play`.
    void startRun(const RunConfig& config, bool play);

    // Files. Each shows an error through the prompts and returns false when it fails; the current
    // run is then untouched. openConfig returns once the file is parsed: a data file that fails to
    // load is reported later (runRejected), also leaving the current run as it was. A save says in
    // the status bar where it wrote.
    /// Opens a run config in place of the current run; when that run has trained, asks first
    /// (false, nothing changed, when the person keeps it).
    /// `overrides` (`--set` syntax, "strategy.replicas=4") apply to the file's config (a lesson's step).
    bool openConfig(const QString& path, bool play = false, const QStringList& overrides = {});
    bool saveConfig(const QString& path);
    // The weights and saved runs are written or read by the trainer, on the run's session thread,
    // between two steps: these return at once, the window shows it is busy (cursor, status bar, the
    // file actions disabled) and goes on drawing, and sessionFileDone follows with the outcome.
    void saveWeights(const QString& path);
    void loadWeights(const QString& path);
    bool exportMetrics(const QString& path);
    /// Writes the current run as a PyTorch script (and its initial weights and data beside it) on a
    /// thread of its own; the status bar says when it is written, a dialog why not. With `wait`
    /// (tests) it returns once written, with the outcome.
    bool exportPyTorchScript(const QString& path, bool wait = false);
    /// File ▸ Show as TensorFlow code: shows (creating on first use) the window with the current run's
    /// config as TensorFlow code; while it is open it follows the run.
    void showTensorFlowCode();
    /// That window, or null before it was first shown.
    TensorFlowCodeDialog* tensorFlowCodeDialog() const { return m_tensorFlowCode; }
    /// Saves the current run (paused or finished, at least one step) with its curves and metrics.
    void saveRun(const QString& path);
    /// File ▸ Save run…: pauses a running run, asks where (the prompts' save dialog) once it is
    /// paused, and saves it; sessionFileDone(false) when the person cancelled.
    void saveRunAsked();
    /// True when the current run trained steps since it was last saved or opened from a saved run:
    /// what Quit, Open, Reset and set-up edits would lose, and ask about first.
    bool runHasUnsavedSteps() const;
    /// Closes the window without asking about unsaved work (--quit-after-ms: nobody is there to answer).
    void closeWithoutAsking();
    /// Opens a saved run in place of the current run (asks first when that run has trained): its
    /// curves are shown and Play goes on training from where it was saved.
    bool openSavedRun(const QString& path);
    /// Draws a saved run's curves dashed beside the current run's (Learning tab).
    bool compareWithSavedRun(const QString& path);
    void clearComparison();
    /// Opens a study file in the study window (errors in a dialog naming the file and field).
    bool openStudy(const QString& path);
    /// Shows `study` in the study window (created on first use); `path`: its file, or empty. Asks
    /// first when the study shown has results not exported; false (nothing changed) on Cancel.
    bool showStudy(Study study, const QString& path);
    /// Shows an equivalence study (spec.equivalence) in the equivalence window (created on first use).
    void showEquivalence(Study study, const QString& path);
    /// The equivalence window, or null before the first equivalence study.
    EquivalenceWindow* equivalenceWindow() const { return m_equivalenceWindow; }
    /// The study window, or null before the first study.
    StudyWindow* studyWindow() const { return m_studyWindow; }
    QAction* newStudyAction() const { return m_newStudy; }
    /// Opens a lesson in the Lesson dock (created on first use).
    bool openLesson(const QString& path);
    /// The Lesson dock's panel, or null before the first lesson.
    LessonPanel* lessonPanel() const { return m_lessonPanel; }
    /// The saved run being compared with, or null.
    const RunHistory* comparisonRun() const { return m_reference.get(); }
    bool exportTrace(const QString& path);
    /// Saves a picture of the current view tab.
    bool saveViewPng(const QString& path);
    /// Applies pending set-up edits now (they otherwise apply after a short pause in typing).
    void applySetupNow();
    /// Compares the current run mirrored, with async and with sync parameter servers: a study
    /// (study/strategy_comparison.hpp) shown and run in the study window (pausing the current run).
    void openComparison();

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
    QAction* compareAction() const { return m_compare; }
    ExplainPanel& explainPanel() const { return *m_explain; }
    QDockWidget& explainDock() const { return *m_explainDock; }
    QAction* playAction() const { return m_play; }
    QAction* pauseAction() const { return m_pause; }
    QAction* stepAction() const { return m_step; }
    QAction* resetAction() const { return m_reset; }
    QSlider& speedSlider() const { return *m_speed; }
    /// A window opens at this pace (steps per second), one a person can follow; "no limit" is one click.
    static constexpr double kDefaultStepsPerSecond = 20.0;
    /// The toolbar's "No limit" toggle (checked: the speed slider at its right end).
    QAction* noLimitAction() const { return m_noLimit; }
    /// The pace and the run's length beside the speed slider ("20 steps/s · 2,000 steps ≈ 1:40").
    QString speedText() const;
    QString statusText() const;
    QString currentFile() const { return m_currentFile; }
    /// View ▸ Diagnostics: shows the GUI's frame times in the status bar (checked), remembered.
    QAction* diagnosticsAction() const { return m_diagnostics; }
    /// The Help ▸ Guide window, or null before a topic was first shown.
    HelpBrowser* helpBrowser() const { return m_helpBrowser; }
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
    /// The file name a save dialog proposes for this run: its name made file-safe, `suffix` added.
    QString runFileName(const QString& suffix) const;
    void buildActions();
    void buildSavedRunActions();  // main_window_saved_runs.cpp
    void buildStudyActions();     // main_window_studies.cpp
    void buildLessonMenu(QMenu* help);  // main_window_lessons.cpp
    void buildHelpMenu();               // main_window_help.cpp: lessons, guide, shortcuts, about
    void buildPyTorchExportAction();   // main_window_pytorch.cpp
    void updatePyTorchExportAction();  // enabled when the run's config can be exported
    void buildTensorFlowCodeAction();  // main_window_tensorflow.cpp
    void updateTensorFlowCode();       // the open TensorFlow code window shows the current run's
    void buildMenus();
    void buildToolBar();
    void buildDocks();
    void buildViews();
    void connectController();
    void restoreSettings();
    void saveSettings();

    void onSetupEdited();
    void onStateChanged(SessionState state);
    void onRunReplaced();
    void onRunRejected(const QString& message);
    void onLearningRate(double rate);
    void onSpeedSlider(int position);
    void buildSpeedControls(QToolBar* bar);
    /// Set-up edits: applied after a pause in typing (applySetup(false)), the pending-edits note.
    void connectSetupEdits();
    /// Applies the set-up's edits: at once unless a run is training; then `ask` asks to start a
    /// new run (a deliberate action: Play, Step, Compare, Save), otherwise the note says what waits.
    void applySetup(bool ask);
    void startNewRunWithEdits();
    /// Shows `config` in the set-up as what runs: no pending edits, problem or note.
    void showInSetup(const RunConfig& config);
    void updateSpeedText();
    void updateStatus();
    void updateTitle();
    void fitExplainDock();
    void playClicked();
    void resetClicked();
    void showError(const QString& title, const QString& message);
    /// Before an action that throws the current run away (`what`: "open run.json"): true when it has
    /// no unsaved steps, or the person saved it (Save…) or chose to discard it; false for Cancel.
    bool confirmDiscard(const QString& what);
    /// Before the window closes: asks (Save / Discard / Cancel) when a run or a study's results would
    /// be lost, naming them; true when the window may close.
    bool confirmClose();
    /// "1 trained step", "1,200 trained steps".
    static QString trainedSteps(std::int64_t steps);
    /// The Save of a Save / Discard / Cancel question: saveRunAsked, its end awaited in a local event
    /// loop that takes no user input, as a modal dialog's does (the window goes on drawing); true once saved.
    bool saveRunBeforeLosingIt();
    /// Posts `task` to the run's session thread with the window busy meanwhile (`doing` in the
    /// status bar); done(its status, or why it did not run) and sessionFileDone follow on this thread.
    void runFileTask(const QString& doing, std::function<Status(Trainer&)> task, std::function<void(const Status&)> done);
    /// Says in the status bar for a while that `what` was saved to `path`.
    void showSaved(const QString& what, const QString& path);
    void buildExamplesMenu(QMenu* menu);

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
    QAction* m_compare = nullptr;
    NetworkView* m_setupDiagram = nullptr;
    RecentFiles* m_recent = nullptr;
    QMenu* m_examples = nullptr;
    QAction* m_play = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_step = nullptr;
    QAction* m_reset = nullptr;
    QAction* m_open = nullptr;
    QAction* m_save = nullptr;
    QAction* m_saveAs = nullptr;
    QAction* m_saveWeights = nullptr;
    QAction* m_loadWeights = nullptr;
    QAction* m_exportMetrics = nullptr;
    QAction* m_saveRun = nullptr;
    QAction* m_openSavedRun = nullptr;
    QAction* m_compareSaved = nullptr;
    QAction* m_clearComparison = nullptr;
    QAction* m_openStudy = nullptr;
    QAction* m_exportPyTorch = nullptr;
    QAction* m_showTensorFlow = nullptr;
    TensorFlowCodeDialog* m_tensorFlowCode = nullptr;
    QAction* m_newStudy = nullptr;
    StudyWindow* m_studyWindow = nullptr;
    EquivalenceWindow* m_equivalenceWindow = nullptr;
    QAction* m_equivalenceLab = nullptr;
    LessonPanel* m_lessonPanel = nullptr;
    QDockWidget* m_lessonDock = nullptr;
    std::unique_ptr<RunHistory> m_reference;  // the saved run compared with (drawn by the Learning view)
    bool m_openingSavedRun = false;           // a saved run's restore is on its way (resumeFinished)
    std::int64_t m_savedAtStep = 0;           // the current run's steps when last saved (or opened saved)
    bool m_closeWithoutAsking = false;
    QAction* m_exportTrace = nullptr;
    QAction* m_savePng = nullptr;
    QSlider* m_speed = nullptr;
    QLabel* m_speedLabel = nullptr;
    QAction* m_noLimit = nullptr;
    int m_pacedPosition = 0;  // the slider's last position below "no limit"
    bool m_setupEdited = false;  // edits not yet looked at (the timer is no longer active in its own timeout)
    QDoubleSpinBox* m_learningRate = nullptr;
    QLabel* m_statusLabel = nullptr;
    QLabel* m_tickLabel = nullptr;  // the GUI's frame times, shown with View ▸ Diagnostics
    QAction* m_diagnostics = nullptr;
    HelpBrowser* m_helpBrowser = nullptr;
    QTimer m_applyTimer;
    QString m_currentFile;
    QString m_pendingFile;
    int m_statusCountdown = 0;
    int m_fileTasks = 0;  // runFileTask's tasks not answered yet
};

}  // namespace distlab::ui
