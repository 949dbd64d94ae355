// MainWindow: run control, set-up edits and files (the window's layout is in main_window.cpp).
#include "main_window.hpp"

#include <QAction>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QTabWidget>

#include <cmath>

#include <distlab/io/checkpoint.hpp>
#include <distlab/io/run_config_json.hpp>

#include "bridge/session_controller.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/training_panel.hpp"
#include "recent_files.hpp"
#include "run_files.hpp"
#include "views/comparison_dialog.hpp"

namespace distlab::ui {

namespace {
std::string local(const QString& path) { return QFile::encodeName(path).toStdString(); }

// Slider positions 0..99 map to 0.5..1000 steps/s on a log scale; 100 means no limit.
double speedOf(int position) {
    if (position >= 100) return 0.0;
    return 0.5 * std::pow(2000.0, position / 99.0);
}
}  // namespace

void MainWindow::showError(const QString& title, const QString& message) {
    if (m_prompts.error) m_prompts.error(this, title, message);
}

void MainWindow::startRun(const RunConfig& config, bool play) {
    m_applyTimer.stop();
    m_setup->setConfig(config);
    m_setup->setProblem({});
    m_controller->restartRun(config, play);
}

void MainWindow::playClicked() {
    applySetupNow();
    if (m_controller->state() == SessionState::Finished) {
        // A finished run plays again from the start, as a media player would.
        m_controller->restartRun(m_controller->config(), true);
        return;
    }
    m_controller->play();
}

void MainWindow::resetClicked() {
    m_applyTimer.stop();
    RunConfig config = m_setup->draft(m_controller->config());
    if (!validateRunConfig(config, "set-up")) config = m_controller->config();
    const bool running = m_controller->state() == SessionState::Running;
    m_controller->restartRun(config, running);
}

void MainWindow::onSetupEdited() { m_applyTimer.start(); }

void MainWindow::applySetupNow() {
    if (!m_applyTimer.isActive()) return;
    m_applyTimer.stop();
    const RunConfig draft = m_setup->draft(m_controller->config());
    if (Status valid = validateRunConfig(draft, "set-up"); !valid) {
        m_setup->setProblem(QString::fromStdString(valid.error().message));
        return;
    }
    m_setup->setProblem({});
    if (m_controller->hasRun() && draft == m_controller->config()) return;
    if (m_controller->applyLive(draft)) return;  // a worker's speed or the parameter-server mode
    const SessionState state = m_controller->state();
    const bool running = state == SessionState::Running;
    const std::int64_t steps = m_controller->stepsDone();
    if (steps > 0 || running) {
        const bool reset = m_prompts.confirm &&
                           m_prompts.confirm(this, tr("Reset the run?"),
                                             tr("This change needs a new run: the %1 step(s) trained so far will be "
                                                "discarded and training starts again from the seed. Reset now?")
                                                 .arg(steps));
        if (!reset) {
            m_setup->setConfig(m_controller->config());  // back to what is running
            return;
        }
    }
    m_controller->loadRun(draft, running);
}

void MainWindow::onStateChanged(SessionState state) {
    const bool loaded = m_controller->hasRun() && state != SessionState::Loading;
    const bool idle = state == SessionState::Paused || state == SessionState::Finished;
    m_play->setEnabled(m_controller->hasRun() && state != SessionState::Running && state != SessionState::Failed);
    m_pause->setEnabled(state == SessionState::Running);
    m_step->setEnabled(state == SessionState::Paused);
    m_reset->setEnabled(m_controller->hasRun());
    m_saveWeights->setEnabled(loaded && idle);
    m_loadWeights->setEnabled(loaded && idle);
    m_saveWeights->setToolTip(idle ? QString() : tr("Pause the run to save its weights"));
    updateStatus();
}

void MainWindow::onRunReplaced() {
    if (!m_pendingFile.isEmpty()) {
        m_currentFile = m_pendingFile;
        m_pendingFile.clear();
        m_recent->add(m_currentFile);
    }
    const QSignalBlocker blocker(m_learningRate);
    m_learningRate->setValue(m_controller->config().optimizer.learningRate);
    updateTitle();
    updateStatus();
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

void MainWindow::onSpeedSlider(int position) {
    const double speed = speedOf(position);
    m_controller->setSpeedLimit(speed);
    if (speed <= 0.0) m_speedLabel->setText(tr("no limit"));
    else if (speed < 10.0) m_speedLabel->setText(tr("%1 steps/s").arg(speed, 0, 'f', 1));
    else m_speedLabel->setText(tr("%1 steps/s").arg(std::round(speed)));
}

void MainWindow::openComparison() {
    applySetupNow();
    if (m_comparison == nullptr) m_comparison = new ComparisonDialog(this);
    if (m_controller->state() == SessionState::Running) m_controller->pause();  // the comparison gets the cores
    m_comparison->setBase(m_controller->config());
    m_comparison->show();
    m_comparison->raise();
    m_comparison->activateWindow();
    m_comparison->start();
}

bool MainWindow::openConfig(const QString& path, bool play) {
    auto config = openRunConfigFile(path);
    if (!config) {
        showError(tr("Could not open the run config"),
                  tr("%1\n\nThe current run is unchanged.").arg(QString::fromStdString(config.error().message)));
        return false;
    }
    m_applyTimer.stop();
    m_pendingFile = QFileInfo(path).absoluteFilePath();
    m_setup->setConfig(*config);
    m_setup->setProblem({});
    m_controller->loadRun(*config, play);
    return true;
}

bool MainWindow::saveConfig(const QString& path) {
    applySetupNow();
    const RunConfig draft = m_setup->draft(m_controller->config());
    if (Status saved = saveRunConfigFile(draft, path); !saved) {
        showError(tr("Could not save the run config"), QString::fromStdString(saved.error().message));
        return false;
    }
    m_currentFile = QFileInfo(path).absoluteFilePath();
    m_recent->add(m_currentFile);
    return true;
}

bool MainWindow::saveWeights(const QString& path) {
    Status status = Error{tr("No run is loaded, or it has ended.").toStdString()};
    // The primary model: the servers' copy for parameter servers (what the CLI saves too).
    m_controller->runBetweenSteps([&](Trainer& trainer) { status = distlab::saveWeights(trainer.primaryModel(), local(path)); });
    if (!status) showError(tr("Could not save the weights"), QString::fromStdString(status.error().message));
    return status.ok();
}

bool MainWindow::loadWeights(const QString& path) {
    Status status = Error{tr("No run is loaded, or it has ended.").toStdString()};
    m_controller->runBetweenSteps([&](Trainer& trainer) { status = distlab::loadWeights(trainer, local(path)); });
    if (!status) {
        showError(tr("Could not load the weights"),
                  tr("%1\n\nThe current weights are unchanged.").arg(QString::fromStdString(status.error().message)));
    }
    return status.ok();
}

bool MainWindow::exportMetrics(const QString& path) {
    if (Status status = exportMetricsCsv(m_controller->history(), path); !status) {
        showError(tr("Could not export the metrics"), QString::fromStdString(status.error().message));
        return false;
    }
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
    return true;
}

bool MainWindow::saveViewPng(const QString& path) {
    if (Status status = saveWidgetPng(m_views->currentWidget(), path); !status) {
        showError(tr("Could not save the picture"), QString::fromStdString(status.error().message));
        return false;
    }
    return true;
}

QString MainWindow::askSavePath(const QString& caption, const QString& filter, const QString& suffix) {
    QSettings settings;
    const QString folder = settings.value("files/lastFolder").toString();
    QString path = QFileDialog::getSaveFileName(this, caption, folder, filter);
    if (path.isEmpty()) return {};
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
    settings.setValue("files/lastFolder", QFileInfo(path).absolutePath());
    return path;
}

QString MainWindow::askOpenPath(const QString& caption, const QString& filter) {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(this, caption, settings.value("files/lastFolder").toString(), filter);
    if (!path.isEmpty()) settings.setValue("files/lastFolder", QFileInfo(path).absolutePath());
    return path;
}

}  // namespace distlab::ui
