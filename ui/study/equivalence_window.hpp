#pragma once
// The equivalence lab's window (docs/interfaces.md §13.7): a study's variants stepped in lockstep,
// the largest relative weight difference from the baseline after every update per variant on a
// log10 chart, and a table of each variant's class, reason, summation order and why its
// difference is not zero; exports the differences (CSV) and the window (PNG). Opened by Run ▸ Equivalence lab… (a lab of the current run)
// and for a study file with "equivalence": true (File ▸ Open study, File ▸ Examples ▸ Studies).
#include <QMainWindow>

#include <distlab/study/study.hpp>

#include "user_prompts.hpp"

class QAction;
class QLabel;
class QTableWidget;

namespace distlab::ui {

class EquivalenceController;
class LineChart;

class EquivalenceWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit EquivalenceWindow(QWidget* parent = nullptr);
    ~EquivalenceWindow() override;

    void setPrompts(UserPrompts prompts) { m_prompts = std::move(prompts); }
    /// Shows `study` (stops a lab that runs); `path` is its file, empty for one made in the app.
    void setStudy(Study study, const QString& path);
    EquivalenceController& controller() { return *m_controller; }
    QAction* runAction() const { return m_run; }
    QAction* cancelAction() const { return m_cancel; }
    /// Writes the differences of every kept update as CSV (the bytes `distlab-cli equivalence --csv`
    /// writes), atomically; false after telling the user why not.
    bool exportCsv(const QString& path);
    /// Writes the window (chart and table) as PNG.
    bool exportPicture(const QString& path);
    LineChart* chart() const { return m_chart; }
    QTableWidget* table() const { return m_table; }

    /// Differences below this (exactly zero included) are drawn at log10 = kFloorLog10.
    static constexpr double kFloorLog10 = -12.0;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void buildTable();
    void updateTable();
    void updateChart();
    void updateActions();

    EquivalenceController* m_controller;
    UserPrompts m_prompts;
    LineChart* m_chart;
    QTableWidget* m_table;
    QLabel* m_note;
    QAction* m_run;
    QAction* m_cancel;
    QAction* m_exportCsv;
};

}  // namespace distlab::ui
