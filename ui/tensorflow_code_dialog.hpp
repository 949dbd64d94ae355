#pragma once
// File ▸ Show as TensorFlow code: a non-modal window with the current run's config as TensorFlow code
// (distlab/exports/tensorflow_code.hpp), read-only and highlighted, with Copy and Save as. The window
// follows the run: setConfig regenerates the text (cheap: text only, no engine work). GUI thread.
#include <QDialog>
#include <QString>

#include <functional>

#include <distlab/config/run_config.hpp>

class QPlainTextEdit;
class QPushButton;

namespace distlab::ui {

class TensorFlowCodeDialog : public QDialog {
    Q_OBJECT

public:
    /// `onError(title, message)` reports a save that failed (the window's prompts).
    TensorFlowCodeDialog(std::function<void(const QString&, const QString&)> onError, QWidget* parent = nullptr);

    /// Shows `config`'s code, titled with its name; keeps the scroll position when the code is unchanged.
    void setConfig(const RunConfig& config);
    QString code() const { return m_code; }
    /// Puts the code on the clipboard.
    void copy();
    /// Writes the code to `path` atomically (docs/interfaces.md §6); false, reported, when it cannot.
    bool saveTo(const QString& path);

signals:
    /// The code was written to `path`.
    void saved(const QString& path);

private:
    std::function<void(const QString&, const QString&)> m_onError;
    QPlainTextEdit* m_text;
    QString m_code;
    QString m_suggestedName;  ///< what Save as proposes (tensorFlowCodeFileName)
};

}  // namespace distlab::ui
