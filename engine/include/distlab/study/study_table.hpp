#pragma once
// A study's summary as a table of text cells: the one formatting behind `distlab-cli compare`'s
// printed table and CSV and the app's table export, so every copy shows the same numbers
// (docs/interfaces.md §13.3). Pure functions; any thread.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "distlab/study/step_time_model.hpp"
#include "distlab/study/study_summary.hpp"

namespace distlab {

struct StudyTable {
    std::vector<std::string> header;             ///< column names (the CSV header)
    std::vector<std::vector<std::string>> rows;  ///< one per variant; "" where a value is unknown
};

/// The table of `rows`, with `speed_vs_baseline` = samples/s over the baseline row's. With
/// `predictions` (one per row; empty where a variant could not be predicted) three more columns,
/// right after `seconds` so that each prediction sits beside its measurement: the measured mean
/// `step_ms`, the `predicted_step_ms` and `prediction_error` (predicted over measured, less 1:
/// +0.10 is a prediction 10 % too slow).
StudyTable makeStudyTable(std::span<const StudyRow> rows, int baseline,
                          std::span<const std::optional<StepTimePrediction>> predictions = {});
/// The table as CSV: the header line, then one line per row; a cell holding a comma, quote or
/// line break is quoted (RFC 4180).
std::string studyTableCsv(const StudyTable& table);
/// One CSV cell: quoted (quotes doubled) when it holds a comma, a quote or a line break (RFC 4180).
std::string csvCell(const std::string& cell);

}  // namespace distlab
