#pragma once
// The study window (File ▸ Open study, Run ▸ New study from this run): a study's 2–6 variants run
// one after another or at once, with progress and Cancel per variant, predicted step times before
// the run, every curve as overlays or small multiples with one cursor, every variant's device
// timeline on one time scale, and the summary table with a baseline; saves the study (JSON), the
// table (CSV) and the whole comparison (PNG). GUI thread.
#include <QMainWindow>

#include <distlab/study/study.hpp>

#include "user_prompts.hpp"

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QSplitter;
class QTableWidget;
class QTabWidget;

namespace distlab::ui {

class StudyCharts;
class StudyController;
class StudySummaryView;
class StudyTimelines;

class StudyWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit StudyWindow(QWidget* parent = nullptr);
    ~StudyWindow() override;

    void setPrompts(UserPrompts prompts) { m_prompts = std::move(prompts); }
    /// Shows `study` (stops one that runs); `path` is its file, empty for a study made in the app.
    void setStudy(Study study, const QString& path = {});
    /// Runs the study, predicting each variant's step time first when the box is checked.
    void run();
    void cancelAll();
    bool saveStudy(const QString& path);
    bool exportTable(const QString& path);
    /// Export table…: asks where (the prompts' save dialog); false when cancelled or it failed.
    bool exportTableAsked();
    /// "the study "name"'s results (2 of its 3 variants)" when variants trained since the study was
    /// shown or its table last exported (what replacing the study or quitting would lose); else empty.
    QString unsavedResults() const;
    /// Before the study is replaced (`what`: "open another study"): true when it has no unsaved
    /// results, or the person exported them (Save…) or chose to discard them; false for Cancel.
    bool confirmDiscardResults(const QString& what);
    bool exportPicture(const QString& path);

    StudyController& controller() const { return *m_controller; }
    StudyCharts& charts() const { return *m_charts; }
    StudyTimelines& timelines() const { return *m_timelines; }
    /// "Curves" and "Timelines".
    QTabWidget& views() const { return *m_views; }
    StudySummaryView& summary() const { return *m_summary; }
    QTableWidget& progressTable() const { return *m_progress; }
    QComboBox& modeBox() const { return *m_mode; }
    QComboBox& baselineBox() const { return *m_baseline; }
    QCheckBox& predictBox() const { return *m_predict; }
    QAction* runAction() const { return m_run; }

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildToolBar();
    void updateProgress();
    void fitTables();
    void updateActions();

    StudyController* m_controller;
    UserPrompts m_prompts;
    QSplitter* m_splitter;
    StudyCharts* m_charts;
    StudyTimelines* m_timelines;
    QTabWidget* m_views;
    StudySummaryView* m_summary;
    QTableWidget* m_progress;
    QComboBox* m_mode = nullptr;
    QComboBox* m_baseline = nullptr;
    QCheckBox* m_predict = nullptr;
    QLabel* m_modeNote = nullptr;
    QAction* m_run = nullptr;
    QAction* m_cancel = nullptr;
    std::uint64_t m_exportedVersion = 0;  // the controller's version() when the table was last exported
    QString m_path;
};

}  // namespace distlab::ui
