// Help ▸ Lessons: every lesson under resources/lessons opens, and every step of it is walked as a
// learner would: what it opens loads (and trains, when the step plays), the tab and the control it
// points at are on screen, and its question is answered. The right answer is worked out here from
// a source other than the app's own lesson facts: the variable lab's rules applied to the lesson's
// script, theory for staleness, ring steps and gradient-term bytes (with the numbers of the files
// the lesson opens), the trainer's own counts for the slowest worker, the engine's per-update
// reports for the largest staleness, and the study's rows for study questions. The panel must
// accept that answer and refuse a wrong one, so a wrong fact in the app fails here. A lesson file
// with an unknown fact or key is refused naming the field.
#include <QtTest>

#include <QAction>
#include <QDockWidget>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QTabWidget>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "bridge/run_history.hpp"
#include "bridge/session_controller.hpp"
#include "bridge/update_tally.hpp"
#include "lessons/lesson.hpp"
#include "lessons/lesson_browser.hpp"
#include "lessons/lesson_panel.hpp"
#include "main_window.hpp"
#include "panels/run_setup_panel.hpp"
#include "panels/strategy_panel.hpp"
#include "panels/tensor_parallel_options.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
constexpr int kStepTimeoutMs = 60000;

QJsonObject readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object();
}

/// What the lesson has opened up to the step being answered, read from its file (not from the app).
struct LessonContext {
    QJsonObject varlab;  ///< the latest step's "varlab" script
    QString openConfig;  ///< the latest step's "open"
    QStringList sets;    ///< and its "set"
    /// The value of a "set" KEY=VALUE override, or empty.
    QString set(const QString& key) const {
        for (const QString& one : sets)
            if (one.startsWith(key + QLatin1Char('='))) return one.section(QLatin1Char('='), 1);
        return {};
    }
};

/// A variable of the lab after its script, by the lab's rules (docs/semantics.md §1-2): an on_write
/// variable reduces each replica-context assign with its aggregation and writes the result to every
/// copy; an on_read variable keeps each replica's value. A cross-replica read returns the copy of an
/// on_write variable and combines an on_read variable's copies with its aggregation.
struct VariableByRules {
    std::vector<double> copies;
    double read = 0.0;
    QString aggregation;
};

VariableByRules applyLabRules(const QJsonObject& script, const QString& name) {
    const int replicas = script.value("replicas").toInt();
    QJsonObject variable;
    for (const QJsonValue& one : script.value("variables").toArray())
        if (one.toObject().value("name").toString() == name) variable = one.toObject();
    if (variable.isEmpty()) qFatal("the lesson's lab has no variable %s", qPrintable(name));
    VariableByRules out;
    out.aggregation = variable.value("aggregation").toString();
    const bool onWrite = variable.value("synchronization").toString() == QLatin1String("on_write");
    out.copies.assign(static_cast<std::size_t>(replicas), variable.value("initial").toDouble());
    auto combine = [&](const std::vector<double>& values) {
        if (out.aggregation == QLatin1String("sum")) return std::accumulate(values.begin(), values.end(), 0.0);
        if (out.aggregation == QLatin1String("mean")) return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
        if (out.aggregation == QLatin1String("only_first_replica")) return values.front();
        qFatal("the test's rules do not know aggregation %s", qPrintable(out.aggregation));
    };
    for (const QJsonValue& value : script.value("ops").toArray()) {
        const QJsonObject op = value.toObject();
        if (op.value("var").toString() != name) continue;
        if (op.value("op").toString() != QLatin1String("assign") || op.value("context").toString() != QLatin1String("replica"))
            qFatal("the test's rules know replica-context assigns only");
        std::vector<double> values;
        for (const QJsonValue& v : op.value("values").toArray()) values.push_back(v.toDouble());
        if (onWrite)
            out.copies.assign(out.copies.size(), combine(values));
        else
            out.copies = values;
    }
    out.read = onWrite ? out.copies.front() : combine(out.copies);
    return out;
}

/// The one residual layer of a "model.layers=[...]" override: its branch count and width.
std::pair<int, int> residualBlock(const QString& layers) {
    for (const QJsonValue& one : QJsonDocument::fromJson(layers.toUtf8()).array()) {
        const QJsonObject layer = one.toObject();
        if (layer.value("type").toString() == QLatin1String("residual"))
            return {layer.value("branches").toInt(), layer.value("layers").toArray().last().toObject().value("units").toInt()};
    }
    qFatal("no residual layer in %s", qPrintable(layers));
}
}  // namespace

class TestLessons : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString writeLesson(const char* name, const QByteArray& text) {
        const QString path = m_dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        if (file.open(QIODevice::WriteOnly)) file.write(text);
        return path;
    }

    /// The right answer to `question`, from a source other than the app's lesson facts (see the top).
    QString worldAnswer(MainWindow& window, const LessonContext& context, const LessonQuestion& question, const QByteArray& where) {
        const QString fact = question.fact;
        SessionController& controller = window.controller();
        if (fact.startsWith(QStringLiteral("varlab_read:"))) {
            const VariableByRules variable = applyLabRules(context.varlab, fact.section(QLatin1Char(':'), 1));
            return QString::number(variable.read);
        }
        if (fact.startsWith(QStringLiteral("varlab_read_copy:"))) {
            const VariableByRules variable = applyLabRules(context.varlab, fact.section(QLatin1Char(':'), 1));
            if (variable.aggregation == QLatin1String("only_first_replica")) return QStringLiteral("replica 0");
            const auto same = std::find(variable.copies.begin(), variable.copies.end(), variable.read);
            return same == variable.copies.end() ? QStringLiteral("none of the copies")
                                                 : QStringLiteral("replica %1").arg(same - variable.copies.begin());
        }
        const QJsonObject opened =
            context.openConfig.isEmpty() ? QJsonObject() : readJson(QStringLiteral(DISTLAB_EXAMPLES_DIR "/") + context.openConfig);
        if (fact == QLatin1String("processes")) {
            // The operating system's count: this process's children that run distlab-worker.
            return QString::number(childProcesses(QCoreApplication::applicationPid(), "distlab-worker").size());
        }
        if (fact == QLatin1String("replicas")) {
            // The config's: workers in its cluster × local replicas (or the devices of one process).
            const QJsonObject strategy = opened.value("strategy").toObject();
            const int workers = std::max<int>(1, static_cast<int>(opened.value("cluster").toObject().value("worker").toArray().size()));
            const int local = strategy.contains("local_replicas") ? strategy.value("local_replicas").toInt()
                              : strategy.contains("devices")      ? static_cast<int>(strategy.value("devices").toArray().size())
                                                                  : strategy.value("replicas").toInt(1);
            return QString::number(workers * local);
        }
        if (fact == QLatin1String("ring_steps")) {
            // Theory: a ring all-reduce over N replicas is N - 1 reduce-scatter and N - 1 all-gather steps.
            const QString set = context.set(QStringLiteral("strategy.replicas"));
            const QJsonObject strategy = opened.value("strategy").toObject();
            const int replicas = !set.isEmpty()                 ? set.toInt()
                                 : strategy.contains("devices") ? static_cast<int>(strategy.value("devices").toArray().size())
                                                                : strategy.value("replicas").toInt();
            [&] { QVERIFY2(replicas > 1, where.constData()); }();
            return QString::number(2 * (replicas - 1));
        }
        if (fact == QLatin1String("bubble_theory")) {
            // Theory (docs/semantics.md §12.3): GPipe's and 1F1B's (p − 1)/(m + p − 1), from the config.
            const QJsonObject strategy = opened.value("strategy").toObject();
            const QString set = context.set(QStringLiteral("strategy.micro_batches"));
            const int p = strategy.value("stages").toInt(), m = set.isEmpty() ? strategy.value("micro_batches").toInt() : set.toInt();
            return QStringLiteral("%1 %").arg(qRound(100.0 * (p - 1) / (m + p - 1)));
        }
        if (fact == QLatin1String("allreduce_bytes_per_step")) {
            // Theory (docs/semantics.md §12.5), from the config: the dense layers pair up; a step
            // all-reduces each pair's second layer's output and, but for the first pair, its first
            // layer's input gradient: [batch x width] floats each, 2 (n - 1)/n of them sent by a ring.
            const QJsonObject strategy = opened.value("strategy").toObject();
            const QJsonArray layers = opened.value("model").toObject().value("layers").toArray();
            const std::int64_t batch = opened.value("data").toObject().value("global_batch_size").toInt();
            const std::int64_t devices = strategy.value("tensor_parallel").toInt();
            std::int64_t values = 0;
            for (int first = 0; first + 1 < layers.size(); first += 2) {
                values += batch * layers[first + 1].toObject().value("units").toInt();
                if (first > 0) values += batch * layers[first - 1].toObject().value("units").toInt();
            }
            return QString::number(values * 4 * 2 * (devices - 1) / devices);
        }
        if (fact == QLatin1String("gradient_term_peak_bytes")) {
            // Theory (docs/semantics.md §7): add_n holds the b + 1 terms and their sum, tree the running
            // sum and one term; a term is [batch x width] floats.
            const auto [branches, width] = residualBlock(context.set(QStringLiteral("model.layers")));
            const QString set = context.set(QStringLiteral("data.global_batch_size"));
            const int batch = set.isEmpty() ? opened.value("data").toObject().value("global_batch_size").toInt() : set.toInt();
            const bool addN = context.set(QStringLiteral("model.aggregation_method")) == QLatin1String("add_n");
            return QString::number(std::int64_t{addN ? branches + 2 : 2} * batch * width * 4);
        }
        if (fact == QLatin1String("max_staleness") || fact == QLatin1String("slowest_worker")) {
            // Stop the run so that the app and the trainer talk about the same updates.
            controller.pause();
            [&] {
                QTRY_VERIFY2_WITH_TIMEOUT(controller.state() == SessionState::Paused, where.constData(), kStepTimeoutMs);
                QVERIFY2(controller.catchUp(10000), where.constData());
            }();
            if (QTest::currentTestFailed()) return {};
        }
        if (fact == QLatin1String("max_staleness")) {
            if (context.set(QStringLiteral("strategy.mode")) == QLatin1String("sync")) return QStringLiteral("0");  // theory
            // Async: the largest staleness the engine reported over the histogram's window of updates
            // (every update's own row), and theory's floor: with 4 equal workers, updates are stale.
            const std::vector<MetricRow> rows = controller.history().rows();
            std::int64_t largest = 0;
            const std::size_t from = rows.size() > UpdateTally::kWindow ? rows.size() - UpdateTally::kWindow : 0;
            for (std::size_t r = from; r < rows.size(); ++r) largest = std::max(largest, rows[r].staleness);
            [&] { QVERIFY2(largest >= 1, where.constData()); }();
            return QString::number(largest);
        }
        if (fact == QLatin1String("slowest_worker")) {
            // The trainer's own count of the updates each worker's gradients went into.
            const ParameterServerControls* servers = controller.parameterServerControls();
            [&] { QVERIFY2(servers != nullptr, where.constData()); }();
            if (servers == nullptr) return {};
            int slowest = 0;
            for (int w = 1; w < servers->workerCount(); ++w)
                if (servers->workerStatus(w).updates < servers->workerStatus(slowest).updates) slowest = w;
            return QStringLiteral("worker %1").arg(slowest);
        }
        if (fact.isEmpty() && question.text.contains(QStringLiteral("forward pass need the devices to communicate"))) {
            // The Strategy page's account of the split the engine plans: which layer's outputs are summed.
            const QString split = window.setup().strategyPanel().tensorParallelOptions().splitText().text();
            const bool rowsSummed = split.contains(QStringLiteral("by rows, then summed"));
            [&] { QVERIFY2(rowsSummed && !split.contains(QStringLiteral("by columns, then")), qPrintable(where + ": " + split)); }();
            for (const QString& choice : question.choices)
                if (choice.startsWith(QStringLiteral("after the row-split layer"))) return choice;
            return {};
        }
        // The study's questions: its rows (what the runner measured of each variant).
        const std::vector<StudyRow>& rows = window.studyWindow()->controller().rows();
        auto most = [&](auto value) {
            const StudyRow* best = nullptr;
            for (const StudyRow& row : rows)
                if (row.state == VariantState::Finished && (best == nullptr || value(row) > value(*best))) best = &row;
            return best == nullptr ? QString() : QString::fromStdString(best->label);
        };
        if (fact == QLatin1String("study_fastest")) return most([](const StudyRow& row) { return row.samplesPerSecond; });
        if (fact == QLatin1String("study_most_communicating"))
            return most([](const StudyRow& row) { return row.shares.communication + row.shares.waiting; });
        if (fact.isEmpty() && question.text.contains(QStringLiteral("compute the same updates"))) {
            // The two variants whose final losses agree closest (the same updates up to the order of
            // the float additions), named as the choices name them.
            double closest = std::numeric_limits<double>::infinity();
            QString pair;
            for (std::size_t a = 0; a < rows.size(); ++a)
                for (std::size_t b = a + 1; b < rows.size(); ++b) {
                    const double gap = std::abs(rows[a].finalLoss - rows[b].finalLoss);
                    if (gap >= closest) continue;
                    closest = gap;
                    const QString one = QString::fromStdString(rows[a].label), two = QString::fromStdString(rows[b].label);
                    pair = question.choices.contains(one + " and " + two) ? one + " and " + two : two + " and " + one;
                }
            return pair;
        }
        [&] { QFAIL((where + ": no independent source for fact \"" + fact.toUtf8() + "\"").constData()); }();
        return {};
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
        const QJsonArray stepsJson = readJson(file).value("steps").toArray();
        QCOMPARE(stepsJson.size(), static_cast<qsizetype>(lesson.steps.size()));
        LessonContext context;
        for (int i = 0; i < static_cast<int>(lesson.steps.size()); ++i) {
            const LessonStep& step = lesson.steps[static_cast<std::size_t>(i)];
            const QJsonObject stepJson = stepsJson[i].toObject();
            if (stepJson.contains("varlab")) context.varlab = stepJson.value("varlab").toObject();
            if (stepJson.contains("open")) {
                context.openConfig = stepJson.value("open").toString();
                context.sets.clear();
                for (const QJsonValue& one : stepJson.value("set").toArray()) context.sets << one.toString();
            }
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
                QTRY_VERIFY2_WITH_TIMEOUT(
                    !study.isRunning() && !study.rows().empty() && study.rows().back().state == VariantState::Finished, where.constData(),
                    kStepTimeoutMs);
            }
            if (!step.tab.isEmpty()) QCOMPARE(window->views().tabText(window->views().currentIndex()), step.tab);
            if (!step.highlight.isEmpty()) {
                QTRY_VERIFY2_WITH_TIMEOUT(panel->highlightTarget() != nullptr && panel->highlightTarget()->isVisible(), where.constData(),
                                          kLoadTimeoutMs);
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
            const QString right = worldAnswer(*window, context, question, where);
            if (QTest::currentTestFailed()) return;
            if (!question.choices.isEmpty()) {
                QVERIFY2(question.choices.contains(right),
                         (where + ": the right answer " + right.toUtf8() + " is not a choice").constData());
                QVERIFY2(panel->check(right), (where + ": " + right.toUtf8() + " refused: " + panel->feedback().toUtf8()).constData());
                QVERIFY(panel->feedback().startsWith(QStringLiteral("Right")));
                for (const QString& wrong : question.choices)
                    if (wrong != right) QVERIFY2(!panel->check(wrong), (where + ": " + wrong.toUtf8() + " accepted").constData());
            } else {
                const double value = right.toDouble();
                QVERIFY2(panel->check(right), (where + ": " + right.toUtf8() + " refused: " + panel->feedback().toUtf8()).constData());
                QVERIFY(!panel->check(QString::number(value + question.tolerance + 1)));
                QVERIFY(!panel->check(QString::number(value - question.tolerance - 1)));
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
