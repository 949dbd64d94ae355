#pragma once
// The window's studies: File ▸ Open study (and the studies of File ▸ Examples), Run ▸ New study from
// this run, Run ▸ Equivalence lab and Run ▸ Compare mirrored, async and sync. The study window is
// created on first use and shows one study at a time; so is the equivalence window, which shows the
// studies marked "equivalence". A study is about speeds: the current run pauses while one runs. GUI thread.
#include <QObject>
#include <QString>

#include <distlab/study/study.hpp>

class QAction;

namespace distlab::ui {

class EquivalenceWindow;
class MainWindow;
class StudyWindow;

class StudyLauncher : public QObject {
    Q_OBJECT

public:
    explicit StudyLauncher(MainWindow& window);

    QAction* openStudyAction() const { return m_openStudy; }
    QAction* newStudyAction() const { return m_newStudy; }
    QAction* equivalenceLabAction() const { return m_equivalenceLab; }
    QAction* compareAction() const { return m_compare; }

    /// Opens a study file in the study window (errors in a dialog naming the file and field).
    bool openStudy(const QString& path);
    /// Shows `study` in the study window (created on first use); `path`: its file, or empty. Asks
    /// first when the study shown has results not exported; false (nothing changed) on Cancel.
    bool showStudy(Study study, const QString& path);
    /// Shows an equivalence study (spec.equivalence) in the equivalence window (created on first use).
    void showEquivalence(Study study, const QString& path);
    /// Compares the current run mirrored, with async and with sync parameter servers: a study
    /// (study/strategy_comparison.hpp) shown and run in the study window (pausing the current run).
    void openComparison();
    /// The study window, or null before the first study.
    StudyWindow* studyWindow() const { return m_studyWindow; }
    /// The equivalence window, or null before the first equivalence study.
    EquivalenceWindow* equivalenceWindow() const { return m_equivalenceWindow; }

private:
    MainWindow& m_window;
    QAction* m_openStudy;
    QAction* m_newStudy;
    QAction* m_equivalenceLab;
    QAction* m_compare;
    StudyWindow* m_studyWindow = nullptr;
    EquivalenceWindow* m_equivalenceWindow = nullptr;
};

}  // namespace distlab::ui
