#pragma once
// A study's summary as a table of text cells: the one formatting behind `distlab-cli compare`'s
// printed table and CSV and the app's table export, so every copy shows the same numbers
// (docs/interfaces.md §13.3). Pure functions; any thread.
#include <span>
#include <string>
#include <vector>

#include "distlab/study/study_summary.hpp"

namespace distlab {

struct StudyTable {
    std::vector<std::string> header;             ///< column names (the CSV header)
    std::vector<std::vector<std::string>> rows;  ///< one per variant; "" where a value is unknown
};

/// The table of `rows`, with `speed_vs_baseline` = samples/s over the baseline row's.
StudyTable makeStudyTable(std::span<const StudyRow> rows, int baseline);
/// The table as CSV: the header line, then one line per row; a cell holding a comma, quote or
/// line break is quoted (RFC 4180).
std::string studyTableCsv(const StudyTable& table);

}  // namespace distlab
