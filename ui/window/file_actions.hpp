#pragma once
// The window's run files: File ▸ Open run config, Open recent, Examples, Save run config (as), and
// the weights (Load weights, Save weights), with the file the current run came from. Each shows an
// error through the window's prompts and leaves the current run untouched when it fails; a save says
// in the status bar where it wrote. The weights are written or read by the trainer between two steps
// (SessionFileTasks): those two return at once and SessionFileTasks::finished follows. GUI thread.
#include <QObject>
#include <QString>
#include <QStringList>

class QAction;
class QMenu;

namespace distlab::ui {

class MainWindow;
class RecentFiles;
class SessionFileTasks;

class FileActions : public QObject {
    Q_OBJECT

public:
    FileActions(MainWindow& window, SessionFileTasks& tasks);

    QAction* openAction() const { return m_open; }
    QAction* saveAction() const { return m_save; }
    QAction* saveAsAction() const { return m_saveAs; }
    QAction* loadWeightsAction() const { return m_loadWeights; }
    QAction* saveWeightsAction() const { return m_saveWeights; }
    /// Fills `menu` with the recently opened configs (remembered in QSettings).
    void buildRecentMenu(QMenu* menu);
    /// Fills `menu` with one action per example run and study (exampleFiles), opening it as File ▸
    /// Open (or Open study) does.
    void buildExamplesMenu(QMenu* menu);

    /// Opens a run config in place of the current run; when that run has trained, asks first (false,
    /// nothing changed, when the person keeps it). Returns once the file is parsed: a data file that
    /// fails to load is reported later (runRejected), also leaving the current run as it was.
    /// `overrides` (`--set` syntax, "strategy.replicas=4") apply to the file's config (a lesson's step).
    bool openConfig(const QString& path, bool play = false, const QStringList& overrides = {});
    bool saveConfig(const QString& path);
    void saveWeights(const QString& path);
    void loadWeights(const QString& path);
    /// The config file the current run came from (Save writes there), or empty.
    QString currentFile() const { return m_currentFile; }
    /// The current run no longer comes from a config file (a saved run was opened): Save asks where.
    void forgetCurrentFile() { m_currentFile.clear(); }

private:
    void updateActions();

    MainWindow& m_window;
    SessionFileTasks& m_tasks;
    QAction* m_open;
    QAction* m_save;
    QAction* m_saveAs;
    QAction* m_loadWeights;
    QAction* m_saveWeights;
    RecentFiles* m_recent = nullptr;
    QString m_currentFile;
    QString m_pendingFile;  // the file of the run still loading: current once it has replaced the run
};

}  // namespace distlab::ui
