#pragma once
// A study's summary table (the engine's makeStudyTable, the same cells `distlab-cli compare`
// prints): one row per variant with its colour, sortable by any column (numbers as numbers), the
// baseline row in bold and ratios taken against it. GUI thread.
#include <QTableWidget>

#include <distlab/study/study_table.hpp>

namespace distlab::ui {

class StudyController;

class StudySummaryView : public QTableWidget {
    Q_OBJECT

public:
    explicit StudySummaryView(StudyController& controller, QWidget* parent = nullptr);
    /// The table as shown (before sorting): what the CSV export writes.
    StudyTable table() const;
    /// Rebuilds from the controller's rows when they changed.
    void refresh();

private:
    StudyController& m_controller;
    std::uint64_t m_drawn = 0;
};

}  // namespace distlab::ui
