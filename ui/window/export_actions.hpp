#pragma once
// The window's exports of the current run: File ▸ Export metrics as CSV, Export timeline as Chrome
// trace, Export as PyTorch script, Show as TensorFlow code and Save current view as PNG. The
// PyTorch export loads the run's data and builds one model copy (engine work), so it runs on a
// thread of its own; the TensorFlow code is text only, made on the GUI thread when its window opens
// and whenever the run is replaced or pauses. GUI thread.
#include <QObject>
#include <QString>

class QAction;

namespace distlab::ui {

class MainWindow;
class TensorFlowCodeDialog;

class ExportActions : public QObject {
    Q_OBJECT

public:
    explicit ExportActions(MainWindow& window);

    QAction* exportMetricsAction() const { return m_exportMetrics; }
    QAction* exportTraceAction() const { return m_exportTrace; }
    QAction* exportPyTorchAction() const { return m_exportPyTorch; }
    QAction* showTensorFlowAction() const { return m_showTensorFlow; }
    QAction* savePngAction() const { return m_savePng; }

    bool exportMetrics(const QString& path);
    bool exportTrace(const QString& path);
    /// Saves a picture of the current view tab.
    bool saveViewPng(const QString& path);
    /// Writes the current run as a PyTorch script (and its initial weights and data beside it) on a
    /// thread of its own; the status bar says when it is written, a dialog why not. With `wait`
    /// (tests) it returns once written, with the outcome.
    bool exportPyTorchScript(const QString& path, bool wait = false);
    /// Shows (creating on first use) the window with the current run's config as TensorFlow code;
    /// while it is open it follows the run.
    void showTensorFlowCode();
    /// That window, or null before it was first shown.
    TensorFlowCodeDialog* tensorFlowCodeDialog() const { return m_tensorFlowCode; }

private:
    void updatePyTorchExportAction();  // enabled when the run's config can be exported
    void updateTensorFlowCode();       // the open TensorFlow code window shows the current run's

    MainWindow& m_window;
    QAction* m_exportMetrics;
    QAction* m_exportTrace;
    QAction* m_exportPyTorch;
    QAction* m_showTensorFlow;
    QAction* m_savePng;
    TensorFlowCodeDialog* m_tensorFlowCode = nullptr;
};

}  // namespace distlab::ui
