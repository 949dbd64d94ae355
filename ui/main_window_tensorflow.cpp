// MainWindow: File ▸ Show as TensorFlow code. Generating the code is text only (no data, no model),
// so it runs on the GUI thread, when the window opens and whenever the run is replaced.
#include "main_window.hpp"

#include <QAction>

#include "bridge/session_controller.hpp"
#include "tensorflow_code_dialog.hpp"
#include "trained_config.hpp"

namespace distlab::ui {

void MainWindow::buildTensorFlowCodeAction() {
    m_showTensorFlow = new QAction(tr("Show as &TensorFlow code…"), this);
    m_showTensorFlow->setObjectName(QStringLiteral("showTensorFlowCodeAction"));
    m_showTensorFlow->setToolTip(tr("The tf.distribute code of this run: the strategy and its cross-device ops, the "
                                    "Keras model, the optimizer, accumulation, variable synchronization and aggregation"));
    connect(m_showTensorFlow, &QAction::triggered, this, &MainWindow::showTensorFlowCode);
}

void MainWindow::showTensorFlowCode() {
    applySetupNow();
    if (m_tensorFlowCode == nullptr) {
        m_tensorFlowCode = new TensorFlowCodeDialog(
            [this](const QString& title, const QString& message) { showError(title, message); }, this);
        connect(m_tensorFlowCode, &TensorFlowCodeDialog::saved, this, [this](const QString& path) {
            const QString note = trainedConfig(m_controller->config(), m_controller->stepsDone()).note;
            showSaved(note.isEmpty() ? tr("the TensorFlow code") : tr("the TensorFlow code (%1)").arg(note), path);
        });
    }
    // An "until paused" run's code trains the updates it has trained.
    m_tensorFlowCode->setConfig(trainedConfig(m_controller->config(), m_controller->stepsDone()).config);
    m_tensorFlowCode->show();
    m_tensorFlowCode->raise();
    m_tensorFlowCode->activateWindow();
}

void MainWindow::updateTensorFlowCode() {
    if (m_tensorFlowCode != nullptr && m_tensorFlowCode->isVisible())
        m_tensorFlowCode->setConfig(trainedConfig(m_controller->config(), m_controller->stepsDone()).config);
}

}  // namespace distlab::ui
