// File ▸ Show as TensorFlow code: the menu entry opens a non-modal window with the current run's code
// (distlab::tensorFlowCode of the config that runs), titled with the run's name, read-only; it follows
// the run when another config is opened; Copy puts the code on the clipboard and Save as writes it.
// With DISTLAB_SCREENSHOT_DIR set, the window is also saved there as tensorflow-code.png (the README's
// picture: the app has no --screenshot for secondary windows).
#include <QtTest>

#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTemporaryDir>

#include <memory>

#include <distlab/exports/tensorflow_code.hpp>

#include "main_window.hpp"
#include "tensorflow_code_dialog.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

class TestTensorFlowCodeDialog : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;

    QString expectedCode() const { return QString::fromStdString(tensorFlowCode(m_window->controller().config())); }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-tensorflow-code")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1200, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void fileMenuShowsTheCurrentRunsCode() {
        QMenu* file = m_window->menuBar()->findChild<QMenu*>();
        QVERIFY(file != nullptr);
        QAction* action = m_window->findChild<QAction*>(QStringLiteral("showTensorFlowCodeAction"));
        QVERIFY(action != nullptr);
        QVERIFY(file->actions().contains(action));
        QVERIFY(action->isEnabled());
        action->trigger();

        TensorFlowCodeDialog* dialog = m_window->tensorFlowCodeDialog();
        QVERIFY(dialog != nullptr);
        QVERIFY(dialog->isVisible());
        QVERIFY(!dialog->isModal());
        QVERIFY(dialog->windowTitle().contains(QStringLiteral("circle-one-device")));
        auto* text = dialog->findChild<QPlainTextEdit*>(QStringLiteral("tensorFlowCode"));
        QVERIFY(text != nullptr);
        QVERIFY(text->isReadOnly());
        QCOMPARE(text->toPlainText(), expectedCode());
        QVERIFY(text->toPlainText().contains(QStringLiteral("tf.distribute.OneDeviceStrategy")));
    }

    void followsTheRun() {
        m_window->showTensorFlowCode();
        TensorFlowCodeDialog* dialog = m_window->tensorFlowCodeDialog();
        QVERIFY(m_window->openConfig(QStringLiteral(DISTLAB_EXAMPLES_DIR "/spiral-mirrored-4.json")));
        QTRY_VERIFY_WITH_TIMEOUT(m_window->controller().config().name == "spiral-mirrored-4", kLoadTimeoutMs);
        QTRY_VERIFY(dialog->code().contains(QStringLiteral("CommunicationImplementation.RING")));
        QCOMPARE(dialog->code(), expectedCode());
        QVERIFY(dialog->windowTitle().contains(QStringLiteral("spiral-mirrored-4")));

        if (qEnvironmentVariableIsSet("DISTLAB_SCREENSHOT_DIR")) {
            dialog->resize(1100, 820);
            auto* text = dialog->findChild<QPlainTextEdit*>(QStringLiteral("tensorFlowCode"));
            // Scroll to the training loop: strategy.scope() with the variables, strategy.run, apply_gradients.
            text->moveCursor(QTextCursor::End);
            text->find(QStringLiteral("def train():"), QTextDocument::FindBackward);
            text->centerCursor();
            QCoreApplication::processEvents();
            const QString path = QDir(qEnvironmentVariable("DISTLAB_SCREENSHOT_DIR")).filePath("tensorflow-code.png");
            QVERIFY(dialog->grab().save(path));
        }
    }

    void copiesAndSaves() {
        m_window->showTensorFlowCode();
        TensorFlowCodeDialog* dialog = m_window->tensorFlowCodeDialog();
        auto* copy = dialog->findChild<QPushButton*>(QStringLiteral("copyButton"));
        QVERIFY(copy != nullptr);
        copy->click();
        QCOMPARE(QGuiApplication::clipboard()->text(), expectedCode());

        QVERIFY(dialog->findChild<QPushButton*>(QStringLiteral("saveButton")) != nullptr);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("circle.tf.py"));
        QVERIFY(dialog->saveTo(path));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), expectedCode());
        QVERIFY(m_window->statusBar()->currentMessage().contains(QStringLiteral("circle.tf.py")));

        // A save that cannot happen (a folder) is reported, not silent.
        QVERIFY(!dialog->saveTo(dir.path()));
        QCOMPARE(m_recorder->errors.size(), 1);
        QVERIFY(m_recorder->errors.front().startsWith(QStringLiteral("Could not save the TensorFlow code")));
    }
};

QTEST_MAIN(TestTensorFlowCodeDialog)
#include "test_tensorflow_code_dialog.moc"
