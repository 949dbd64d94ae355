// MainWindow's methods that are its parts' own (main_window.hpp): the launcher, the lessons and the
// tests ask the window; the part does it.
#include "main_window.hpp"

#include "window/export_actions.hpp"
#include "window/file_actions.hpp"
#include "window/help_menu.hpp"
#include "window/run_control.hpp"
#include "window/saved_run_actions.hpp"
#include "window/study_launcher.hpp"

namespace distlab::ui {

void MainWindow::startRun(const RunConfig& config, bool play) { m_runControl->startRun(config, play); }
void MainWindow::applySetupNow() { m_runControl->applySetupNow(); }
QAction* MainWindow::playAction() const { return m_runControl->playAction(); }
QAction* MainWindow::pauseAction() const { return m_runControl->pauseAction(); }
QAction* MainWindow::stepAction() const { return m_runControl->stepAction(); }
QAction* MainWindow::resetAction() const { return m_runControl->resetAction(); }
QSlider& MainWindow::speedSlider() const { return m_runControl->speedSlider(); }
QAction* MainWindow::noLimitAction() const { return m_runControl->noLimitAction(); }
QString MainWindow::speedText() const { return m_runControl->speedText(); }
QString MainWindow::statusText() const { return m_runControl->statusText(); }
QAction* MainWindow::diagnosticsAction() const { return m_runControl->diagnosticsAction(); }

bool MainWindow::openConfig(const QString& path, bool play, const QStringList& overrides) {
    return m_files->openConfig(path, play, overrides);
}
bool MainWindow::saveConfig(const QString& path) { return m_files->saveConfig(path); }
void MainWindow::saveWeights(const QString& path) { m_files->saveWeights(path); }
void MainWindow::loadWeights(const QString& path) { m_files->loadWeights(path); }
QString MainWindow::currentFile() const { return m_files->currentFile(); }

void MainWindow::saveRun(const QString& path) { m_savedRuns->saveRun(path); }
void MainWindow::saveRunAsked() { m_savedRuns->saveRunAsked(); }
bool MainWindow::runHasUnsavedSteps() const { return m_savedRuns->runHasUnsavedSteps(); }
bool MainWindow::openSavedRun(const QString& path) { return m_savedRuns->openSavedRun(path); }
bool MainWindow::compareWithSavedRun(const QString& path) { return m_savedRuns->compareWithSavedRun(path); }
void MainWindow::clearComparison() { m_savedRuns->clearComparison(); }
const RunHistory* MainWindow::comparisonRun() const { return m_savedRuns->comparisonRun(); }

bool MainWindow::exportMetrics(const QString& path) { return m_exports->exportMetrics(path); }
bool MainWindow::exportTrace(const QString& path) { return m_exports->exportTrace(path); }
bool MainWindow::saveViewPng(const QString& path) { return m_exports->saveViewPng(path); }
bool MainWindow::exportPyTorchScript(const QString& path, bool wait) { return m_exports->exportPyTorchScript(path, wait); }
void MainWindow::showTensorFlowCode() { m_exports->showTensorFlowCode(); }
TensorFlowCodeDialog* MainWindow::tensorFlowCodeDialog() const { return m_exports->tensorFlowCodeDialog(); }

bool MainWindow::openStudy(const QString& path) { return m_studies->openStudy(path); }
bool MainWindow::showStudy(Study study, const QString& path) { return m_studies->showStudy(std::move(study), path); }
void MainWindow::showEquivalence(Study study, const QString& path) { m_studies->showEquivalence(std::move(study), path); }
void MainWindow::openComparison() { m_studies->openComparison(); }
StudyWindow* MainWindow::studyWindow() const { return m_studies->studyWindow(); }
EquivalenceWindow* MainWindow::equivalenceWindow() const { return m_studies->equivalenceWindow(); }
QAction* MainWindow::newStudyAction() const { return m_studies->newStudyAction(); }
QAction* MainWindow::compareAction() const { return m_studies->compareAction(); }

bool MainWindow::openLesson(const QString& path) { return m_help->openLesson(path); }
LessonPanel* MainWindow::lessonPanel() const { return m_help->lessonPanel(); }
HelpBrowser* MainWindow::helpBrowser() const { return m_help->helpBrowser(); }

}  // namespace distlab::ui
