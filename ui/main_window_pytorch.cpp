// MainWindow: File ▸ Export as PyTorch script. The export loads the run's data and builds one model
// copy (engine work), so it runs on a thread of its own; the window says when it is written.
#include "main_window.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStatusBar>
#include <QThread>

#include <memory>

#include <distlab/exports/pytorch_export.hpp>

#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "trained_config.hpp"

namespace distlab::ui {

void MainWindow::buildPyTorchExportAction() {
    m_exportPyTorch = new QAction(tr("Export as P&yTorch script…"), this);
    m_exportPyTorch->setObjectName(QStringLiteral("exportPyTorchAction"));
    m_exportPyTorch->setToolTip(tr("Write a Python script that trains this run with PyTorch from the same initial weights "
                                   "on the same batches (DDP over gloo for several replicas), with its weights and data "
                                   "beside it"));
    connect(m_exportPyTorch, &QAction::triggered, this, [this] {
        const QString path =
            askSavePath(this, tr("Export as PyTorch script"), tr("Python scripts (*.py)"), QStringLiteral("py"), runFileName("py"));
        if (!path.isEmpty()) exportPyTorchScript(path);
    });
}

void MainWindow::updatePyTorchExportAction() {
    const Status exportable = checkPyTorchExportable(m_controller->config());
    m_exportPyTorch->setEnabled(exportable.ok());
    m_exportPyTorch->setStatusTip(exportable ? QString() : QString::fromStdString(exportable.error().message));
}

bool MainWindow::exportPyTorchScript(const QString& path, bool wait) {
    applySetupNow();
    // An "until paused" run exports the updates it has trained.
    const TrainedConfig trained = trainedConfig(m_controller->config(), m_controller->stepsDone());
    const RunConfig& config = trained.config;
    if (Status exportable = checkPyTorchExportable(config); !exportable) {
        showError(tr("Could not export the run"), QString::fromStdString(exportable.error().message));
        return false;
    }
    if (config.steps == 0) {
        showError(tr("Could not export the run"),
                  tr("This run has no step limit and has not trained yet, so there are no updates to export. Train it "
                     "for a while, or give it a number of steps, then export it."));
        return false;
    }
    auto status = std::make_shared<Status>(Ok{});
    QThread* worker = QThread::create([config, status, script = QFile::encodeName(path).toStdString()] {
        *status = exportPyTorch(config, script);
    });
    connect(worker, &QThread::finished, this, [this, status, path, note = trained.note] {
        if (!*status) {
            showError(tr("Could not export the run"), QString::fromStdString(status->error().message));
            return;
        }
        const PyTorchExportFiles files = pyTorchExportFiles(QFile::encodeName(path).toStdString());
        QString message = tr("Saved the PyTorch script to %1 (with %2 and %3 beside it)")
                              .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()),
                                   QFileInfo(QString::fromStdString(files.weights)).fileName(),
                                   QFileInfo(QString::fromStdString(files.data)).fileName());
        if (!note.isEmpty()) message += tr("; %1").arg(note);
        statusBar()->showMessage(message, 10000);
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

}  // namespace distlab::ui
