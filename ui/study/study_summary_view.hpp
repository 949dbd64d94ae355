#pragma once
// A study's summary table (the engine's makeStudyTable, the same cells `distlab-cli compare`
// prints, in its order: each prediction beside its measurement): one row per variant with its
// colour, sortable by any column (numbers as numbers), the baseline row in bold and ratios taken
// against it. The columns shown are chosen in the header's context menu (a default set, the rest
// on demand) and remembered in QSettings. GUI thread.
#include <QStringList>
#include <QTableWidget>

#include <distlab/study/study_table.hpp>

class QMenu;

namespace distlab::ui {

class StudyController;

class StudySummaryView : public QTableWidget {
    Q_OBJECT

public:
    explicit StudySummaryView(StudyController& controller, QWidget* parent = nullptr);
    /// The table as shown (before sorting), every column, hidden ones too: what the CSV export writes.
    StudyTable table() const;
    /// Rebuilds from the controller's rows when they changed.
    void refresh();

    /// The columns hidden until asked for: the detail behind the headline figures.
    static QStringList defaultHiddenColumns();
    /// Whether the column named `name` (the table's header, "samples_per_sec") is shown.
    bool isColumnShown(const QString& name) const;
    /// Shows or hides column `name` (never `variant`, the row's name) and remembers it.
    void setColumnShown(const QString& name, bool shown);
    /// Back to the default columns (and forgets the choice).
    void showDefaultColumns();
    /// The column chooser: one checkable action per column, rebuilt each time it opens; the
    /// header's context menu (and any button given it) opens it.
    QMenu* columnMenu() const { return m_columnMenu; }

private:
    void fillColumnMenu();
    void applyColumnVisibility();
    void saveHiddenColumns() const;

    StudyController& m_controller;
    std::uint64_t m_drawn = 0;
    QStringList m_hidden;  // column names, as the engine's table names them
    QMenu* m_columnMenu;
};

}  // namespace distlab::ui
