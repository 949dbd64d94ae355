#include "window/export_actions.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>
#include <QThread>

#include <memory>

#include <distlab/exports/pytorch_export.hpp>

#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "main_window.hpp"
#include "run_files.hpp"
#include "tensorflow_code_dialog.hpp"
#include "trained_config.hpp"
#include "user_prompts.hpp"
#include "window/run_control.hpp"

namespace distlab::ui {

ExportActions::ExportActions(MainWindow& window) : QObject(&window), m_window(window) {
    m_exportMetrics = new QAction(tr("Export &metrics as CSV…"), this);
    m_exportTrace = new QAction(tr("Export &timeline as Chrome trace…"), this);
    m_savePng = new QAction(tr("Save current &view as PNG…"), this);
    m_savePng->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_exportPyTorch = new QAction(tr("Export as P&yTorch script…"), this);
    m_exportPyTorch->setObjectName(QStringLiteral("exportPyTorchAction"));
    m_exportPyTorch->setToolTip(
        tr("Write a Python script that trains this run with PyTorch from the same initial weights "
           "on the same batches (DDP over gloo for several replicas), with its weights and data "
           "beside it"));
    m_showTensorFlow = new QAction(tr("Show as &TensorFlow code…"), this);
    m_showTensorFlow->setObjectName(QStringLiteral("showTensorFlowCodeAction"));
    m_showTensorFlow->setToolTip(
        tr("The tf.distribute code of this run: the strategy and its cross-device ops, the "
           "Keras model, the optimizer, accumulation, variable synchronization and aggregation"));
    connect(m_exportMetrics, &QAction::triggered, this, [this] {
        const QString path =
            askSavePath(&m_window, tr("Export metrics"), tr("CSV (*.csv)"), QStringLiteral("csv"), m_window.runFileName("csv"));
        if (!path.isEmpty()) exportMetrics(path);
    });
    connect(m_exportTrace, &QAction::triggered, this, [this] {
        const QString path = askSavePath(&m_window, tr("Export timeline"), tr("Chrome trace (*.json)"), QStringLiteral("json"),
                                         m_window.runFileName("trace.json"));
        if (!path.isEmpty()) exportTrace(path);
    });
    connect(m_savePng, &QAction::triggered, this, [this] {
        const QString path =
            askSavePath(&m_window, tr("Save view as PNG"), tr("PNG images (*.png)"), QStringLiteral("png"), m_window.runFileName("png"));
        if (!path.isEmpty()) saveViewPng(path);
    });
    connect(m_exportPyTorch, &QAction::triggered, this, [this] {
        const QString path = askSavePath(&m_window, tr("Export as PyTorch script"), tr("Python scripts (*.py)"), QStringLiteral("py"),
                                         m_window.runFileName("py"));
        if (!path.isEmpty()) exportPyTorchScript(path);
    });
    connect(m_showTensorFlow, &QAction::triggered, this, &ExportActions::showTensorFlowCode);
    SessionController& controller = window.controller();
    connect(&controller, &SessionController::runReplaced, this, [this] {
        updatePyTorchExportAction();
        updateTensorFlowCode();
    });
    connect(&controller, &SessionController::stateChanged, this, [this](SessionState state) {
        // An "until paused" run's code trains the steps it has now.
        if (state == SessionState::Paused || state == SessionState::Finished) updateTensorFlowCode();
    });
}

bool ExportActions::exportMetrics(const QString& path) {
    SessionController& controller = m_window.controller();
    controller.catchUp();  // a paused run's rows reach its last step
    if (Status status = exportMetricsCsv(controller.history(), path); !status) {
        m_window.showError(tr("Could not export the metrics"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(m_window, tr("the metrics"), path);
    return true;
}

bool ExportActions::exportTrace(const QString& path) {
    const SessionController& controller = m_window.controller();
    QStringList devices;
    for (const DeviceName& device : controller.config().strategy.devices) devices.append(QString::fromStdString(device.toString()));
    const QString name = QString::fromStdString(controller.config().name);
    if (Status status = exportTimelineTrace(controller.history(), devices, name, path); !status) {
        m_window.showError(tr("Could not export the timeline"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(m_window, tr("the timeline"), path);
    return true;
}

bool ExportActions::saveViewPng(const QString& path) {
    if (Status status = saveWidgetPng(m_window.views().currentWidget(), path); !status) {
        m_window.showError(tr("Could not save the picture"), QString::fromStdString(status.error().message));
        return false;
    }
    showSaved(m_window, tr("the picture"), path);
    return true;
}

void ExportActions::updatePyTorchExportAction() {
    const Status exportable = checkPyTorchExportable(m_window.controller().config());
    m_exportPyTorch->setEnabled(exportable.ok());
    m_exportPyTorch->setStatusTip(exportable ? QString() : QString::fromStdString(exportable.error().message));
}

bool ExportActions::exportPyTorchScript(const QString& path, bool wait) {
    m_window.runControl().applySetupNow();
    // An "until paused" run exports the updates it has trained.
    const TrainedConfig trained = trainedConfig(m_window.controller().config(), m_window.controller().stepsDone());
    const RunConfig& config = trained.config;
    if (Status exportable = checkPyTorchExportable(config); !exportable) {
        m_window.showError(tr("Could not export the run"), QString::fromStdString(exportable.error().message));
        return false;
    }
    if (config.steps == 0) {
        m_window.showError(tr("Could not export the run"),
                           tr("This run has no step limit and has not trained yet, so there are no updates to export. Train it "
                              "for a while, or give it a number of steps, then export it."));
        return false;
    }
    auto status = std::make_shared<Status>(Ok{});
    QThread* worker =
        QThread::create([config, status, script = QFile::encodeName(path).toStdString()] { *status = exportPyTorch(config, script); });
    connect(worker, &QThread::finished, this, [this, status, path, note = trained.note] {
        if (!*status) {
            m_window.showError(tr("Could not export the run"), QString::fromStdString(status->error().message));
            return;
        }
        const PyTorchExportFiles files = pyTorchExportFiles(QFile::encodeName(path).toStdString());
        QString message =
            tr("Saved the PyTorch script to %1 (with %2 and %3 beside it)")
                .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()),
                     QFileInfo(QString::fromStdString(files.weights)).fileName(), QFileInfo(QString::fromStdString(files.data)).fileName());
        if (!note.isEmpty()) message += tr("; %1").arg(note);
        m_window.statusBar()->showMessage(message, 10000);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
    if (wait) {
        worker->wait();
        QCoreApplication::sendPostedEvents(this);  // the finished handler, now
        return status->ok();
    }
    return true;
}

void ExportActions::showTensorFlowCode() {
    m_window.runControl().applySetupNow();
    const SessionController& controller = m_window.controller();
    if (m_tensorFlowCode == nullptr) {
        m_tensorFlowCode = new TensorFlowCodeDialog(
            [this](const QString& title, const QString& message) { m_window.showError(title, message); }, &m_window);
        connect(m_tensorFlowCode, &TensorFlowCodeDialog::saved, this, [this](const QString& path) {
            const QString note = trainedConfig(m_window.controller().config(), m_window.controller().stepsDone()).note;
            showSaved(m_window, note.isEmpty() ? tr("the TensorFlow code") : tr("the TensorFlow code (%1)").arg(note), path);
        });
    }
    // An "until paused" run's code trains the updates it has trained.
    m_tensorFlowCode->setConfig(trainedConfig(controller.config(), controller.stepsDone()).config);
    m_tensorFlowCode->show();
    m_tensorFlowCode->raise();
    m_tensorFlowCode->activateWindow();
}

void ExportActions::updateTensorFlowCode() {
    const SessionController& controller = m_window.controller();
    if (m_tensorFlowCode != nullptr && m_tensorFlowCode->isVisible())
        m_tensorFlowCode->setConfig(trainedConfig(controller.config(), controller.stepsDone()).config);
}

}  // namespace distlab::ui
