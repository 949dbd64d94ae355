#include "window/study_launcher.hpp"

#include <QAction>
#include <QFile>
#include <QFileInfo>

#include <distlab/study/equivalence.hpp>

#include "bridge/session_controller.hpp"
#include "file_dialogs.hpp"
#include "main_window.hpp"
#include "study/equivalence_window.hpp"
#include "study/new_study_dialog.hpp"
#include "study/strategy_comparison.hpp"
#include "study/study_window.hpp"
#include "window/run_control.hpp"

namespace distlab::ui {

namespace {

/// Updates each variant of Run ▸ Equivalence lab takes: enough for rounding to accumulate and for
/// staleness to show, a second or two on a small model.
constexpr std::int64_t kEquivalenceLabSteps = 200;

}  // namespace

StudyLauncher::StudyLauncher(MainWindow& window) : QObject(&window), m_window(window) {
    m_openStudy = new QAction(tr("Open stud&y…"), this);
    m_openStudy->setObjectName(QStringLiteral("openStudyAction"));
    m_openStudy->setToolTip(tr("Open a study: 2 to 6 variants of a run trained and compared side by side"));
    m_newStudy = new QAction(tr("New stud&y from this run…"), this);
    m_newStudy->setObjectName(QStringLiteral("newStudyAction"));
    m_newStudy->setToolTip(
        tr("Compare this run with variants of it: vary one or two knobs (strategy, replicas, "
           "reduction, batch size, optimizer, learning rate, ...)"));
    connect(m_openStudy, &QAction::triggered, this, [this] {
        const QString path = askOpenPath(&m_window, tr("Open study"), tr("Studies (*.study.json);;All files (*)"));
        if (!path.isEmpty()) openStudy(path);
    });
    connect(m_newStudy, &QAction::triggered, this, [this] {
        m_window.runControl().applySetupNow();
        NewStudyDialog dialog(m_window.controller().config(), &m_window);
        if (dialog.exec() != QDialog::Accepted) return;
        if (auto study = dialog.study()) showStudy(std::move(*study), {});
    });
    m_equivalenceLab = new QAction(tr("&Equivalence lab…"), this);
    m_equivalenceLab->setObjectName(QStringLiteral("equivalenceLabAction"));
    m_equivalenceLab->setToolTip(
        tr("Step this run as one device, mirrored (ring, hierarchical), with accumulation and on async "
           "parameter servers in lockstep, and see which must equal the one device (up to float rounding) "
           "and which differ"));
    connect(m_equivalenceLab, &QAction::triggered, this, [this] {
        m_window.runControl().applySetupNow();
        auto study = equivalenceStudyOf(m_window.controller().config(), kEquivalenceLabSteps);
        if (!study) return m_window.showError(tr("Could not make the equivalence lab"), QString::fromStdString(study.error().message));
        showEquivalence(std::move(*study), {});
    });
    m_compare = new QAction(tr("&Compare mirrored, async and sync…"), this);
    m_compare->setToolTip(tr("Train the current model mirrored, with async and with sync parameter servers side by side"));
    connect(m_compare, &QAction::triggered, this, &StudyLauncher::openComparison);
}

void StudyLauncher::showEquivalence(Study study, const QString& path) {
    if (m_equivalenceWindow == nullptr) {
        m_equivalenceWindow = new EquivalenceWindow(&m_window);
        m_equivalenceWindow->setPrompts(m_window.prompts());
    }
    m_equivalenceWindow->setStudy(std::move(study), path);
    m_equivalenceWindow->show();
    m_equivalenceWindow->raise();
    m_equivalenceWindow->activateWindow();
}

bool StudyLauncher::openStudy(const QString& path) {
    auto study = loadStudy(QFile::encodeName(path).toStdString(), "study");
    if (!study) {
        m_window.showError(tr("Could not open the study"), QString::fromStdString(study.error().message));
        return false;
    }
    if (study->spec.equivalence)
        showEquivalence(std::move(*study), QFileInfo(path).absoluteFilePath());
    else
        return showStudy(std::move(*study), QFileInfo(path).absoluteFilePath());
    return true;
}

bool StudyLauncher::showStudy(Study study, const QString& path) {
    if (m_studyWindow != nullptr &&
        !m_studyWindow->confirmDiscardResults(tr("show the study \"%1\"").arg(QString::fromStdString(study.spec.name))))
        return false;
    if (m_studyWindow == nullptr) {
        m_studyWindow = new StudyWindow(&m_window);
        m_studyWindow->setPrompts(m_window.prompts());
        // A study is about speeds: the current run gives it the cores while it runs.
        connect(m_studyWindow->runAction(), &QAction::triggered, this, [this] {
            if (m_window.controller().state() == SessionState::Running) m_window.controller().pause();
        });
    }
    m_studyWindow->setStudy(std::move(study), path);
    m_studyWindow->show();
    m_studyWindow->raise();
    m_studyWindow->activateWindow();
    return true;
}

void StudyLauncher::openComparison() {
    m_window.runControl().applySetupNow();
    SessionController& controller = m_window.controller();
    auto study = strategyComparison(controller.config());
    if (!study) {
        m_window.showError(tr("Could not compare"), QString::fromStdString(study.error().message));
        return;
    }
    if (!showStudy(std::move(*study), {})) return;
    if (controller.state() == SessionState::Running) controller.pause();  // the comparison gets the cores
    m_studyWindow->run();
}

}  // namespace distlab::ui
