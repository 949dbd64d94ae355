#include "tensorflow_code_dialog.hpp"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFile>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QVBoxLayout>

#include <distlab/files/atomic_file.hpp>
#include <distlab/exports/tensorflow_code.hpp>

#include "file_dialogs.hpp"
#include "python_highlighter.hpp"

namespace distlab::ui {

TensorFlowCodeDialog::TensorFlowCodeDialog(std::function<void(const QString&, const QString&)> onError, QWidget* parent)
    : QDialog(parent), m_onError(std::move(onError)), m_text(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("tensorFlowCodeDialog"));
    setModal(false);
    resize(960, 760);
    m_text->setObjectName(QStringLiteral("tensorFlowCode"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new PythonHighlighter(m_text->document());

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copyButton = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copyButton->setObjectName(QStringLiteral("copyButton"));
    copyButton->setToolTip(tr("Put the whole code on the clipboard"));
    QPushButton* saveButton = buttons->addButton(tr("&Save as…"), QDialogButtonBox::ActionRole);
    saveButton->setObjectName(QStringLiteral("saveButton"));
    connect(copyButton, &QPushButton::clicked, this, &TensorFlowCodeDialog::copy);
    connect(saveButton, &QPushButton::clicked, this, [this] {
        const QString path =
            askSavePath(this, tr("Save TensorFlow code"), tr("Python files (*.py)"), QStringLiteral("py"), m_suggestedName);
        if (!path.isEmpty()) saveTo(path);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addWidget(buttons);
}

void TensorFlowCodeDialog::setConfig(const RunConfig& config) {
    setWindowTitle(tr("TensorFlow code — %1").arg(QString::fromStdString(config.name)));
    m_suggestedName = QString::fromStdString(tensorFlowCodeFileName(config));
    const QString code = QString::fromStdString(tensorFlowCode(config));
    if (code == m_code) return;
    // A regenerated text keeps the reader's place as far as it can.
    const int scroll = m_text->verticalScrollBar()->value();
    m_code = code;
    m_text->setPlainText(m_code);
    m_text->verticalScrollBar()->setValue(scroll);
}

void TensorFlowCodeDialog::copy() { QGuiApplication::clipboard()->setText(m_code); }

bool TensorFlowCodeDialog::saveTo(const QString& path) {
    const QByteArray bytes = m_code.toUtf8();
    if (Status written = writeFileAtomically(QFile::encodeName(path).toStdString(), {bytes.constData(), std::size_t(bytes.size())});
        !written) {
        m_onError(tr("Could not save the TensorFlow code"), QString::fromStdString(written.error().message));
        return false;
    }
    emit saved(path);
    return true;
}

}  // namespace distlab::ui
