#pragma once
// The window's saved runs and the run's unsaved work: File ▸ Save run, Open saved run, Compare with
// saved run, Stop comparing; which steps are not saved yet, and the Save / Discard / Cancel question
// before an action throws them away. A saved run is the run's checkpoint with its curves and metrics
// (ui/saved_run_files.hpp): opened, it shows its curves and goes on training from where it was
// saved; compared, its curves are drawn dashed beside the live run's in the Learning view. GUI thread.
#include <QObject>
#include <QString>

#include <cstdint>
#include <memory>

class QAction;

namespace distlab::ui {

class MainWindow;
class RunHistory;
class SessionFileTasks;

class SavedRunActions : public QObject {
    Q_OBJECT

public:
    SavedRunActions(MainWindow& window, SessionFileTasks& tasks);
    ~SavedRunActions() override;

    QAction* saveRunAction() const { return m_saveRun; }
    QAction* openSavedRunAction() const { return m_openSavedRun; }
    QAction* compareSavedAction() const { return m_compareSaved; }
    QAction* clearComparisonAction() const { return m_clearComparison; }

    /// Saves the current run (paused or finished, at least one step) with its curves and metrics, by
    /// a task between two steps (SessionFileTasks::finished follows).
    void saveRun(const QString& path);
    /// File ▸ Save run…: pauses a running run, asks where once it is paused, and saves it
    /// (finished(false) when the person cancelled).
    void saveRunAsked();
    /// The Save of a Save / Discard / Cancel question: saveRunAsked, its end awaited in a local event
    /// loop that takes no user input, as a modal dialog's does (the window goes on drawing); true once saved.
    bool saveRunBeforeLosingIt();
    bool openSavedRun(const QString& path);
    bool compareWithSavedRun(const QString& path);
    void clearComparison();
    /// The saved run being compared with, or null.
    const RunHistory* comparisonRun() const { return m_reference.get(); }

    /// True when the current run trained steps since it was last saved or opened from a saved run.
    bool runHasUnsavedSteps() const;
    /// Before an action that throws the current run away (`what`: "open run.json"): true when it has
    /// no unsaved steps, or the person saved it (Save…) or chose to discard it; false for Cancel.
    bool confirmDiscard(const QString& what);
    /// "1 trained step", "1,200 trained steps".
    static QString trainedSteps(std::int64_t steps);

private:
    void updateActions();

    MainWindow& m_window;
    SessionFileTasks& m_tasks;
    QAction* m_saveRun;
    QAction* m_openSavedRun;
    QAction* m_compareSaved;
    QAction* m_clearComparison;
    std::unique_ptr<RunHistory> m_reference;  // the saved run compared with (drawn by the Learning view)
    bool m_openingSavedRun = false;           // a saved run's restore is on its way (resumeFinished)
    std::int64_t m_savedAtStep = 0;           // the current run's steps when last saved (or opened saved)
};

}  // namespace distlab::ui
