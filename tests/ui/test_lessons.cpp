// Help ▸ Lessons: every lesson under resources/lessons opens, and every step of it is walked as a
// learner would: what it opens loads (and trains, when the step plays), the tab and the control it
// points at are on screen, and its question is answered: the live run's answer is accepted and a
// wrong one is not. A lesson file with an unknown fact or key is refused naming the field.
#include <QtTest>

#include <QAction>
#include <QDockWidget>
#include <QListWidget>
#include <QTabWidget>
#include <QTemporaryDir>

#include <memory>

#include "lessons/lesson.hpp"
#include "lessons/lesson_browser.hpp"
#include "lessons/lesson_panel.hpp"
#include "main_window.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
constexpr int kStepTimeoutMs = 60000;
}

class TestLessons : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString writeLesson(const char* name, const QByteArray& text) {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly)) file.write(text);
        return path;
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-lessons")); }

    void atLeastEightLessonsAreListed() {
        const QStringList files = lessonFiles(QCoreApplication::applicationDirPath());
        QVERIFY2(files.size() >= 8, qPrintable(files.join(", ")));
        LessonBrowser browser;
        QCOMPARE(browser.files(), files);
        for (int i = 0; i < browser.list().count(); ++i)
            QVERIFY2(browser.list().item(i)->flags() & Qt::ItemIsEnabled, qPrintable(browser.list().item(i)->text()));
    }

    void everyLessonWalksThrough_data() {
        QTest::addColumn<QString>("file");
        for (const QString& file : lessonFiles(QCoreApplication::applicationDirPath()))
            QTest::newRow(qPrintable(QFileInfo(file).fileName())) << file;
    }

    void everyLessonWalksThrough() {
        QFETCH(QString, file);
        Recorder recorder;
        auto window = openWindow(recorder, QSize(1440, 900), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*window), kLoadTimeoutMs);
        QVERIFY(window->openLesson(file));
        LessonPanel* panel = window->lessonPanel();
        QVERIFY(panel != nullptr && panel->isVisible());
        const Lesson& lesson = panel->lesson();
        for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
            const LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
            const QByteArray where = QStringLiteral("%1 step %2").arg(QFileInfo(file).fileName()).arg(i + 1).toUtf8();
            QVERIFY2(panel->showStep(i), (where + ": " + panel->problem().toUtf8()).constData());
            if (!step.openConfig.isEmpty()) {
                QTRY_VERIFY_WITH_TIMEOUT(loaded(*window) && !window->controller().isLoading(), kLoadTimeoutMs);
                QVERIFY2(recorder.errors.isEmpty(), (where + ": " + recorder.errors.join('\n').toUtf8()).constData());
            }
            if (step.play && !step.openConfig.isEmpty())
                QTRY_VERIFY2_WITH_TIMEOUT(window->controller().stepsDone() >= 3, where.constData(), kStepTimeoutMs);
            if (step.play && !step.openStudy.isEmpty()) {
                StudyController& study = window->studyWindow()->controller();
                QTRY_VERIFY2_WITH_TIMEOUT(!study.isRunning() && !study.rows().empty() &&
                                              study.rows().back().state == VariantState::Finished,
                                          where.constData(), kStepTimeoutMs);
            }
            if (!step.tab.isEmpty()) QCOMPARE(window->views().tabText(window->views().currentIndex()), step.tab);
            if (!step.highlight.isEmpty()) {
                QTRY_VERIFY2_WITH_TIMEOUT(panel->highlightTarget() != nullptr && panel->highlightTarget()->isVisible(),
                                          where.constData(), kLoadTimeoutMs);
                QVERIFY2(panel->problem().isEmpty(), (where + ": " + panel->problem().toUtf8()).constData());
                // The orange frame is drawn over the target's window (the main or the study window).
                auto frameShown = [&] {
                    auto* frame = panel->highlightTarget()->window()->findChild<QWidget*>(QStringLiteral("lessonHighlight"));
                    return frame != nullptr && frame->isVisible();
                };
                QTRY_VERIFY2(frameShown(), where.constData());
            }
            if (!step.question) continue;
            const LessonQuestion& question = *step.question;
            // Some answers need the run to have trained a while (staleness, pushes): wait for them.
            QTRY_VERIFY2_WITH_TIMEOUT(panel->expectedAnswer().has_value(), where.constData(), kStepTimeoutMs);
            const QString expected = *panel->expectedAnswer();
            if (!question.choices.isEmpty()) {
                QVERIFY2(question.choices.contains(expected), (where + ": the live answer " + expected.toUtf8() + " is not a choice").constData());
                QVERIFY2(panel->check(expected), (where + ": " + panel->feedback().toUtf8()).constData());
                QVERIFY(panel->feedback().startsWith(QStringLiteral("Right")));
                const qsizetype right = question.choices.indexOf(expected);
                QVERIFY(!panel->check(question.choices[(right + 1) % question.choices.size()]));
            } else {
                // A number read off the live run: that number is right, one far from it is not.
                const double value = expected.toDouble();
                QVERIFY2(panel->check(expected), (where + ": " + panel->feedback().toUtf8()).constData());
                QVERIFY(!panel->check(QString::number(value + question.tolerance + 1000.0)));
            }
        }
        QVERIFY2(recorder.errors.isEmpty(), qPrintable(recorder.errors.join('\n')));
    }

    void badLessonsAreRefusedNamingTheField() {
        auto unknownFact = loadLesson(writeLesson("a.lesson.json", R"({"title": "t", "steps": [{"text": "x",
            "question": {"text": "q", "choices": ["1", "2"], "fact": "mood"}}]})"));
        QVERIFY(!unknownFact.ok());
        QVERIFY2(unknownFact.error().message.find("a.lesson.json: steps[0].question.fact") != std::string::npos,
                 unknownFact.error().message.c_str());
        auto unknownKey = loadLesson(writeLesson("b.lesson.json", R"({"title": "t", "steps": [{"text": "x", "tabs": "Learning"}]})"));
        QVERIFY(!unknownKey.ok());
        QVERIFY2(unknownKey.error().message.find("b.lesson.json: steps[0].tabs: unknown key") != std::string::npos,
                 unknownKey.error().message.c_str());
        auto noSteps = loadLesson(writeLesson("c.lesson.json", R"({"title": "t", "steps": []})"));
        QVERIFY(!noSteps.ok());
        auto setWithoutOpen = loadLesson(writeLesson("d.lesson.json", R"({"title": "t", "steps": [{"text": "x", "set": ["steps=3"]}]})"));
        QVERIFY(!setWithoutOpen.ok());
    }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
