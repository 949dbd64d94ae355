#include "window/file_actions.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QStyle>

#include <distlab/formats/checkpoint.hpp>

#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "main_window.hpp"
#include "panels/run_setup_panel.hpp"
#include "recent_files.hpp"
#include "run_files.hpp"
#include "trained_config.hpp"
#include "user_prompts.hpp"
#include "window/run_control.hpp"
#include "window/saved_run_actions.hpp"
#include "window/session_file_tasks.hpp"
#include "window/study_launcher.hpp"

namespace distlab::ui {

namespace {
std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }
}  // namespace

FileActions::FileActions(MainWindow& window, SessionFileTasks& tasks) : QObject(&window), m_window(window), m_tasks(tasks) {
    QStyle* style = window.style();
    m_open = new QAction(style->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open run config…"), this);
    m_open->setShortcut(QKeySequence::Open);
    m_open->setIconText(tr("Open"));
    m_save = new QAction(style->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save run config"), this);
    m_save->setShortcut(QKeySequence::Save);
    m_save->setIconText(tr("Save"));
    m_saveAs = new QAction(tr("Save run config &as…"), this);
    m_saveAs->setShortcut(QKeySequence::SaveAs);
    m_loadWeights = new QAction(tr("&Load weights…"), this);
    m_saveWeights = new QAction(tr("Save &weights…"), this);
    m_saveWeights->setObjectName(QStringLiteral("saveWeightsAction"));
    connect(m_open, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(&m_window, tr("Open run config"), tr("Run configs (*.json);;All files (*)"));
        if (!path.isEmpty()) openConfig(path);
    });
    connect(m_save, &QAction::triggered, this, [this] {
        const QString path = m_currentFile.isEmpty() ? askSavePath(&m_window, tr("Save run config"), tr("Run configs (*.json)"),
                                                                   QStringLiteral("json"), m_window.runFileName("json"))
                                                     : m_currentFile;
        if (!path.isEmpty()) saveConfig(path);
    });
    connect(m_saveAs, &QAction::triggered, this, [this] {
        const QString path = askSavePath(&m_window, tr("Save run config as"), tr("Run configs (*.json)"), QStringLiteral("json"),
                                         m_window.runFileName("json"));
        if (!path.isEmpty()) saveConfig(path);
    });
    connect(m_saveWeights, &QAction::triggered, this, [this] {
        const QString path = askSavePath(&m_window, tr("Save weights"), tr("Safetensors (*.safetensors)"), QStringLiteral("safetensors"),
                                         m_window.runFileName("safetensors"));
        if (!path.isEmpty()) saveWeights(path);
    });
    connect(m_loadWeights, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(&m_window, tr("Load weights"), tr("Safetensors (*.safetensors);;All files (*)"));
        if (!path.isEmpty()) loadWeights(path);
    });
    SessionController& controller = window.controller();
    connect(&controller, &SessionController::runReplaced, this, [this] {
        if (m_pendingFile.isEmpty()) return;
        m_currentFile = m_pendingFile;
        m_pendingFile.clear();
        if (m_recent != nullptr) m_recent->add(m_currentFile);
    });
    connect(&controller, &SessionController::runRejected, this, [this] { m_pendingFile.clear(); });
    connect(&controller, &SessionController::stateChanged, this, &FileActions::updateActions);
    connect(&tasks, &SessionFileTasks::busyChanged, this, &FileActions::updateActions);
    updateActions();
}

void FileActions::updateActions() {
    const SessionController& controller = m_window.controller();
    const SessionState state = controller.state();
    const bool idle = state == SessionState::Paused || state == SessionState::Finished;
    // One file task at a time from the menus.
    // A cluster's weights live in its task processes: its coordinator writes them (--save-weights,
    // --checkpoint), not the app.
    const bool cluster = SessionController::isClusterRun(controller.config());
    const bool enabled = controller.hasRun() && state != SessionState::Loading && idle && !m_tasks.busy() && !cluster;
    m_saveWeights->setEnabled(enabled);
    m_loadWeights->setEnabled(enabled);
    const QString inProcesses = tr("A cluster's weights live in its processes: its coordinator task saves them (--save-weights)");
    m_saveWeights->setToolTip(cluster ? inProcesses : idle ? QString() : tr("Pause the run to save its weights"));
    m_loadWeights->setToolTip(cluster ? tr("A cluster's tasks start from --init-weights or --resume, not from the app") : QString());
}

void FileActions::buildRecentMenu(QMenu* menu) {
    m_recent = new RecentFiles(menu, this);
    connect(m_recent, &RecentFiles::openRequested, this, [this](const QString& path) { openConfig(path); });
}

void FileActions::buildExamplesMenu(QMenu* menu) {
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
        QAction* action = menu->addAction(name, this, [this, file] { m_window.studies().openStudy(file); });
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

bool FileActions::openConfig(const QString& path, bool play, const QStringList& overrides) {
    auto config = openRunConfigFile(path, overrides);
    if (!config) {
        m_window.showError(tr("Could not open the run config"),
                           tr("%1\n\nThe current run is unchanged.").arg(QString::fromStdString(config.error().message)));
        return false;
    }
    if (!m_window.savedRuns().confirmDiscard(tr("open %1").arg(QFileInfo(path).fileName()))) return false;
    // A config changed by overrides is not the file's: Save then asks where (it never overwrites the file).
    m_pendingFile = overrides.isEmpty() ? QFileInfo(path).absoluteFilePath() : QString();
    if (!overrides.isEmpty()) m_currentFile.clear();
    m_window.runControl().showInSetup(*config);
    m_window.controller().loadRun(*config, play);
    return true;
}

bool FileActions::saveConfig(const QString& path) {
    m_window.runControl().applySetupNow();
    SessionController& controller = m_window.controller();
    RunConfig draft = m_window.setup().draft(controller.config());
    // The config of an "until paused" run that has trained is saved with the steps it trained.
    QString note;
    if (draft == controller.config()) {
        TrainedConfig trained = trainedConfig(draft, controller.stepsDone());
        draft = std::move(trained.config);
        note = trained.note;
    }
    if (Status saved = saveRunConfigFile(draft, path); !saved) {
        m_window.showError(tr("Could not save the run config"), QString::fromStdString(saved.error().message));
        return false;
    }
    m_currentFile = QFileInfo(path).absoluteFilePath();
    if (m_recent != nullptr) m_recent->add(m_currentFile);
    showSaved(m_window, note.isEmpty() ? tr("the run config") : tr("the run config (%1)").arg(note), path);
    return true;
}

void FileActions::saveWeights(const QString& path) {
    // The primary model: the servers' copy for parameter servers (what the CLI saves too).
    m_tasks.run(
        tr("Saving the weights…"), [file = local(path)](Trainer& trainer) { return distlab::saveWeights(trainer.primaryModel(), file); },
        [this, path](const Status& status) {
            if (!status)
                m_window.showError(tr("Could not save the weights"), QString::fromStdString(status.error().message));
            else
                showSaved(m_window, tr("the weights"), path);
        });
}

void FileActions::loadWeights(const QString& path) {
    m_tasks.run(
        tr("Loading the weights…"), [file = local(path)](Trainer& trainer) { return distlab::loadWeights(trainer, file); },
        [this](const Status& status) {
            if (!status) {
                m_window.showError(tr("Could not load the weights"),
                                   tr("%1\n\nThe current weights are unchanged.").arg(QString::fromStdString(status.error().message)));
            }
        });
}

}  // namespace distlab::ui
