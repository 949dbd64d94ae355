// The equivalence lab as a person uses it: the example equivalence study from File ▸ Examples
// opens in the equivalence window (not the study window), shows every variant's class before
// anything runs, runs to the end with must-equal variants near float rounding and the async
// parameter servers far above on the log10 chart; Run ▸ Equivalence lab… (after New study) makes
// a lab of the current run, and Cancel stops it. From a parameter-server run, both Run ▸ New study
// from this run and Run ▸ Equivalence lab work, and the dialog speaks to a person.
#include <QtTest>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTimer>
#include <QTableWidget>
#include <QTemporaryDir>

#include <distlab/study/equivalence.hpp>
#include <distlab/study/study_knobs.hpp>

#include "charts/line_chart.hpp"
#include "main_window.hpp"
#include "study/equivalence_controller.hpp"
#include "study/equivalence_window.hpp"
#include "study/new_study_dialog.hpp"
#include "study/study_controller.hpp"
#include "study/study_window.hpp"
#include "ui_test_support.hpp"

using namespace distlab;
using namespace distlab::ui;
using namespace distlab::ui::testing;

namespace {
constexpr int kLabTimeoutMs = 120000;

int knobIndex(const char* key) {
    const auto& knobs = studyKnobs();
    for (std::size_t k = 0; k < knobs.size(); ++k)
        if (knobs[k].key == key) return static_cast<int>(k);
    return -1;
}
}  // namespace

class TestEquivalenceWindow : public QObject {
    Q_OBJECT
    std::unique_ptr<Recorder> m_recorder;
    std::unique_ptr<MainWindow> m_window;

    QAction* runMenuAction(const QString& objectName, int* index = nullptr) {
        for (QAction* top : m_window->menuBar()->actions()) {
            if (top->menu() == nullptr) continue;
            const QList<QAction*> actions = top->menu()->actions();
            for (qsizetype i = 0; i < actions.size(); ++i)
                if (actions[i]->objectName() == objectName) {
                    if (index) *index = static_cast<int>(i);
                    return actions[i];
                }
        }
        return nullptr;
    }

private slots:
    void initTestCase() { useIsolatedSettings(QStringLiteral("distlab-test-equivalence-window")); }

    void init() {
        m_recorder = std::make_unique<Recorder>();
        m_window = openWindow(*m_recorder, QSize(1280, 800), MainWindow::defaultConfig());
        QTRY_VERIFY_WITH_TIMEOUT(loaded(*m_window), kLoadTimeoutMs);
    }

    void cleanup() {
        m_window.reset();
        m_recorder.reset();
    }

    void theExampleRunsInTheLab() {
        QAction* example = nullptr;
        for (QAction* action : m_window->examplesMenu()->actions())
            if (action->objectName() == QStringLiteral("study:equivalence-lab")) example = action;
        QVERIFY2(example != nullptr, "File ▸ Examples lists the equivalence study");
        example->trigger();
        auto* lab = m_window->findChild<EquivalenceWindow*>();
        QVERIFY(lab != nullptr && lab->isVisible());
        QVERIFY2(m_window->studyWindow() == nullptr || !m_window->studyWindow()->isVisible(), "an equivalence study opens in the lab");
        EquivalenceController& controller = lab->controller();
        QCOMPARE(controller.variantCount(), 6);
        // The classes are known before anything runs.
        QCOMPARE(lab->table()->rowCount(), 6);
        QCOMPARE(lab->table()->item(0, 1)->text(), QStringLiteral("baseline"));
        QCOMPARE(lab->table()->item(1, 1)->text(), QStringLiteral("must equal"));
        QCOMPARE(lab->table()->item(5, 1)->text(), QStringLiteral("may differ"));
        QVERIFY(lab->table()->item(5, 6)->text().contains(QStringLiteral("staleness")));
        QVERIFY(lab->table()->item(1, 8)->text().contains(QStringLiteral("not associative")));

        lab->runAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRunning() && controller.progress(0).state == VariantState::Finished, kLabTimeoutMs);
        QVERIFY2(m_recorder->errors.isEmpty(), qPrintable(m_recorder->errors.join('\n')));
        for (int v = 1; v < 5; ++v) {
            QCOMPARE(controller.progress(v).state, VariantState::Finished);
            QCOMPARE(controller.history(v).size(), std::size_t{200});
            QVERIFY(controller.progress(v).worst.maxRelative < 1e-4);
            QVERIFY(!lab->table()->item(v, 3)->text().isEmpty());
        }
        QVERIFY(controller.progress(5).latest.maxRelative > 1e-3);
        // log10 on the chart: rounding near −6, staleness above −3, nothing below the floor.
        const auto [low, high] = lab->chart()->yRange();
        QVERIFY(low >= EquivalenceWindow::kFloorLog10 - 1.0);
        QVERIFY(high > -3.0);
        QVERIFY(controller.csv().starts_with("step,variant,class,"));

        // Exported: the CLI's CSV bytes, and a picture of the window.
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("lab.csv"));
        QVERIFY(lab->findChild<QAction*>(QStringLiteral("equivalenceExportCsv"))->isEnabled());
        QVERIFY(lab->exportCsv(csv));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().toStdString(), controller.csv());
        QVERIFY(lab->exportPicture(dir.filePath(QStringLiteral("lab.png"))));
        QVERIFY(QFile(dir.filePath(QStringLiteral("lab.png"))).size() > 1000);
        // A folder that is not there: an error naming it, no file.
        QVERIFY(!lab->exportCsv(dir.filePath(QStringLiteral("missing/lab.csv"))));
        QCOMPARE(m_recorder->errors.size(), qsizetype{1});
        QVERIFY2(m_recorder->errors.front().contains(QStringLiteral("missing")), qPrintable(m_recorder->errors.front()));
    }

    void theRunMenuMakesALabOfTheCurrentRunAndCancelStopsIt() {
        QCoreApplication::processEvents();  // the lab joins the Run menu once the window's constructor has returned
        int labIndex = -1;
        int newStudyIndex = -1;
        QAction* action = runMenuAction(QStringLiteral("equivalenceLabAction"), &labIndex);
        QVERIFY2(action != nullptr, "Run ▸ Equivalence lab…");
        QVERIFY(runMenuAction(QStringLiteral("newStudyAction"), &newStudyIndex) != nullptr);
        QCOMPARE(labIndex, newStudyIndex + 1);
        action->trigger();
        auto* lab = m_window->findChild<EquivalenceWindow*>();
        QVERIFY(lab != nullptr && lab->isVisible());
        EquivalenceController& controller = lab->controller();
        QVERIFY(controller.variantCount() >= 2);
        QCOMPARE(controller.verdict(0).kind, EquivalenceClass::Baseline);
        QCOMPARE(controller.verdict(controller.variantCount() - 1).kind, EquivalenceClass::MayDiffer);

        // A long lab, cancelled after a few rounds.
        auto study = equivalenceStudyOf(MainWindow::defaultConfig(), 1'000'000);
        QVERIFY(study);
        lab->setStudy(std::move(*study), {});
        lab->runAction()->trigger();
        QVERIFY(lab->cancelAction()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(controller.progress(0).stepsDone >= 3, kLabTimeoutMs);
        lab->cancelAction()->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!controller.isRunning() && controller.progress(0).state == VariantState::Cancelled, kLabTimeoutMs);
        QVERIFY(controller.progress(0).stepsDone < 1'000'000);
        QVERIFY(lab->runAction()->isEnabled());
    }

    // The issue: both menu items failed on any parameter-server run with "variants[0]:
    // strategy.workers: unknown key".
    void bothMenuItemsWorkFromAParameterServerRun() {
        QVERIFY(m_window->openConfig(QStringLiteral(DISTLAB_EXAMPLES_DIR "/circle-parameter-server-4.json")));
        QTRY_COMPARE_WITH_TIMEOUT(m_window->controller().config().strategy.type, StrategyKind::ParameterServer, kLoadTimeoutMs);
        QCoreApplication::processEvents();

        // New study: the dialog is modal; it is driven once it shows, as a person would.
        QString accumulationTip, problem;
        bool accumulationEnabled = true, drove = false;
        QTimer::singleShot(0, m_window.get(), [&] {
            auto* dialog = m_window->findChild<NewStudyDialog*>();
            if (dialog == nullptr) return;
            auto* knobs = dialog->findChild<QComboBox*>(QStringLiteral("knob0"));
            auto* model = qobject_cast<QStandardItemModel*>(knobs->model());
            const QStandardItem* accumulation = model->item(knobIndex("strategy.gradient_accumulation_steps"));
            accumulationEnabled = accumulation->isEnabled();
            accumulationTip = accumulation->toolTip();
            // Two knobs with a variant that cannot run: the dialog names it by its label.
            dialog->findChild<QCheckBox*>()->setChecked(true);
            dialog->choose(0, knobIndex("strategy.type"), {QStringLiteral("\"mirrored\""), QStringLiteral("\"parameter_server\"")});
            dialog->choose(1, knobIndex("data.global_batch_size"), {QStringLiteral("30"), QStringLiteral("64")});
            dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
            problem = dialog->findChild<QLabel*>(QStringLiteral("newStudyProblem"))->text();
            // Every strategy, from this parameter-server run.
            dialog->findChild<QCheckBox*>()->setChecked(false);
            QStringList strategies;
            for (const std::string& choice : studyKnobs()[static_cast<std::size_t>(knobIndex("strategy.type"))].choices)
                strategies.append(QString::fromStdString(choice));
            dialog->choose(0, knobIndex("strategy.type"), strategies);
            dialog->setSteps(20);
            drove = true;
            dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->click();
            if (dialog->isVisible()) dialog->reject();
        });
        runMenuAction(QStringLiteral("newStudyAction"))->trigger();
        QVERIFY(drove);
        QVERIFY(!accumulationEnabled);
        QVERIFY2(accumulationTip.contains(QStringLiteral("do not accumulate")), qPrintable(accumulationTip));
        QVERIFY2(problem.startsWith(QStringLiteral("The variant “mirrored, 30” is not a run the app can train")), qPrintable(problem));
        QVERIFY2(!problem.contains(QStringLiteral("variants[")), qPrintable(problem));
        StudyWindow* study = m_window->studyWindow();
        QVERIFY(study != nullptr && study->isVisible());
        const auto& variants = study->controller().study().variants;
        QCOMPARE(variants.size(), std::size_t{4});
        QCOMPARE(variants[0].config.strategy.type, StrategyKind::OneDevice);
        QCOMPARE(variants[1].config.strategy.type, StrategyKind::Mirrored);
        QCOMPARE(variants[1].config.strategy.replicaCount(), std::int64_t{4});
        QCOMPARE(variants[2].config.strategy.type, StrategyKind::CentralStorage);
        QCOMPARE(variants[3].config.strategy, m_window->controller().config().strategy);
        study->close();

        // The equivalence lab of the same run, run to the end.
        runMenuAction(QStringLiteral("equivalenceLabAction"))->trigger();
        auto* lab = m_window->findChild<EquivalenceWindow*>();
        QVERIFY(lab != nullptr && lab->isVisible());
        EquivalenceController& controller = lab->controller();
        QCOMPARE(controller.variantCount(), 5);  // one device, mirrored 2 and 4, accumulation 2, async servers
        auto short_ = equivalenceStudyOf(m_window->controller().config(), 20);
        QVERIFY2(short_, short_ ? "" : short_.error().message.c_str());
        lab->setStudy(std::move(*short_), {});
        lab->runAction()->trigger();
        auto allFinished = [&controller] {
            for (int v = 0; v < controller.variantCount(); ++v)
                if (controller.progress(v).state != VariantState::Finished) return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allFinished(), kLabTimeoutMs);
        QVERIFY2(m_recorder->errors.isEmpty(), qPrintable(m_recorder->errors.join(QStringLiteral("; "))));
    }
};

QTEST_MAIN(TestEquivalenceWindow)
#include "test_equivalence_window.moc"
