// SessionController's checkpoints: the automatic one kept every few seconds, one taken now, and
// resuming a run (or a saved run) from one; each a task the session runs between steps, its answer
// taken on the controller's tick.
#include <QDir>
#include <QFile>
#include <QLocale>
#include <QPointer>
#include <QTimer>

#include <distlab/formats/checkpoint.hpp>

#include "bridge/session_controller.hpp"
#include "bridge/session_run.hpp"

namespace distlab::ui {

std::string SessionController::newCheckpointPath() {
    if (!m_checkpointDir.isValid()) return {};
    const QString name = QStringLiteral("run-checkpoint-%1.safetensors").arg(++m_checkpointFiles);
    return QFile::encodeName(QDir::toNativeSeparators(m_checkpointDir.filePath(name))).toStdString();
}

void SessionController::keepCheckpoint(const std::string& path, std::int64_t step) {
    if (!m_checkpointPath.empty() && m_checkpointPath != path) QFile::remove(QFile::decodeName(m_checkpointPath.c_str()));
    m_checkpointPath = path;
    m_checkpointStep = step;
    emit checkpointChanged();
}

void SessionController::autoCheckpoint() {
    if (m_autoCheckpointMs <= 0 || !m_current || !m_current->loaded || m_current->checkpoint.valid()) return;
    if (m_config.strategy.type != StrategyKind::ParameterServer) return;
    if (m_current->session->state() != SessionState::Running) return;
    if (m_checkpointClock.isValid() && m_checkpointClock.elapsed() < m_autoCheckpointMs) return;
    m_checkpointClock.start();
    const std::string path = newCheckpointPath();
    if (path.empty()) return;
    // Written on the session thread between two updates: only it may read the trainer.
    m_current->checkpoint = m_current->session->post([path](Trainer& trainer) {
        CheckpointAnswer answer;
        answer.path = path;
        answer.step = trainer.stepsDone();
        if (Status written = saveCheckpoint(trainer, path); !written) answer.error = written.error().message;
        return answer;
    });
}

void SessionController::takeCheckpointAnswers() {
    auto ready = [](std::future<CheckpointAnswer>& answer) {
        return answer.valid() && answer.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    if (ready(m_current->checkpoint)) {
        try {
            CheckpointAnswer answer = m_current->checkpoint.get();
            if (answer.error.empty() && answer.step > 0)
                keepCheckpoint(answer.path, answer.step);
            else
                QFile::remove(QFile::decodeName(answer.path.c_str()));
        } catch (const std::exception&) {
            // the run ended before it was written: the checkpoint kept before stays
        }
    }
    if (ready(m_current->resume)) {
        QString message;
        bool ok = false;
        try {
            CheckpointAnswer answer = m_current->resume.get();
            ok = answer.error.empty();
            message = ok ? tr("Resumed from the checkpoint at update %1.").arg(QLocale().toString(answer.step))
                         : tr("Could not resume: %1").arg(QString::fromStdString(answer.error));
        } catch (const std::exception& error) {
            message = tr("Could not resume: %1").arg(QString::fromUtf8(error.what()));
        }
        if (ok) m_current->session->requestSnapshot();
        if (!ok && m_current->clearHistoryOnFailedResume) {
            // The saved curves must not stand beside weights that are not theirs.
            m_current->history = RunHistory(static_cast<int>(m_current->config.globalReplicaCount()));
            emit ticked();
        }
        emit resumeFinished(ok, message);
    }
}

void SessionController::saveCheckpointNow(QObject* context, std::function<void(const QString& error)> done) {
    const std::string path = newCheckpointPath();
    if (path.empty()) {
        // Told later, as every other answer is.
        QTimer::singleShot(0, context, [done = std::move(done)] { done(tr("no folder for temporary files")); });
        return;
    }
    const std::uint64_t runId = m_current ? m_current->id : 0;
    askTrainer(
        this,
        [path](Trainer& trainer) {
            CheckpointAnswer answer;
            answer.path = path;
            answer.step = trainer.stepsDone();
            if (Status written = saveCheckpoint(trainer, path); !written) answer.error = written.error().message;
            return answer;
        },
        [this, path, runId, context = QPointer<QObject>(context), done = std::move(done)](std::optional<CheckpointAnswer> answer) {
            QString error = !answer ? tr("the run has not loaded yet, or it has ended") : QString::fromStdString(answer->error);
            // A checkpoint belongs to the run it was taken of (becomeCurrent drops the one before).
            if (error.isEmpty() && (!m_current || m_current->id != runId)) error = tr("the run was replaced meanwhile");
            if (error.isEmpty()) {
                keepCheckpoint(path, answer->step);
                if (m_current) m_checkpointClock.start();
            } else {
                QFile::remove(QFile::decodeName(path.c_str()));
            }
            if (!context.isNull()) done(error);
        });
}

bool SessionController::resumeFromCheckpoint() {
    if (!m_current || m_checkpointStep < 0 || m_checkpointPath.empty()) return false;
    // The workers dead when the run ended stay dead in the resumed run (unless all were: then none is).
    std::vector<int> dead;
    int workers = 0;
    if (ParameterServerControls* controls = parameterServerControls()) {
        workers = controls->workerCount();
        for (int w = 0; w < workers; ++w)
            if (!controls->workerStatus(w).alive) dead.push_back(w);
    }
    if (static_cast<int>(dead.size()) >= workers) dead.clear();
    const std::string path = m_checkpointPath;
    // The curves go on from the checkpoint: what was drawn after it is redone by the resumed run.
    SavedHistory kept = m_current->history.saved();
    kept.truncate(m_checkpointStep);
    m_keepCheckpoint = true;
    restartRun(m_config, false);
    m_current->history.restore(kept);
    m_current->clearHistoryOnFailedResume = true;
    postResume(path, std::move(dead));
    emit ticked();
    return true;
}

void SessionController::openSavedRun(const RunConfig& config, const std::string& path, const SavedHistory& history) {
    restartRun(config, false);
    m_current->history.restore(history);
    m_current->clearHistoryOnFailedResume = true;
    postResume(path, {});
    emit ticked();
}

void SessionController::postResume(const std::string& path, std::vector<int> dead) {
    if (!m_current->session) {  // a cluster's tasks resume with distlab-worker --resume (docs/cluster.md)
        QMetaObject::invokeMethod(
            this, [this] { emit resumeFinished(false, tr("A cluster run is not resumed from the app: start its tasks with --resume.")); },
            Qt::QueuedConnection);
        return;
    }
    // Runs on the session's thread once it has loaded, before any Play or Step queued later.
    m_current->resume = m_current->session->post([path, dead = std::move(dead)](Trainer& trainer) {
        CheckpointAnswer answer;
        answer.path = path;
        if (Status restored = resumeCheckpoint(trainer, path); !restored) {
            answer.error = restored.error().message;
            return answer;
        }
        answer.step = trainer.stepsDone();
        if (ParameterServerControls* controls = trainer.parameterServerControls())
            for (int w : dead) controls->killWorker(w);
        return answer;
    });
}

}  // namespace distlab::ui
