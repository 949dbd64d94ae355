#pragma once
// A run's history in a saved run (docs/interfaces.md §6.1): each whole-run series as a table of its
// held points (step, wall_seconds, low, high, mean, samples) and the metrics rows as the "metrics"
// table (the CSV's columns), plus a few facts. GUI thread (pure functions, any thread in fact).
#include <string>

#include <distlab/core/error.hpp>
#include <distlab/formats/saved_run.hpp>

#include "bridge/run_history.hpp"

namespace distlab::ui {

/// The table name of a whole-run series ("train_loss").
const char* seriesTableName(GlobalSeries series);
/// The record of `history` (tables and facts; configJson left empty).
RunRecord recordOf(const SavedHistory& history);
/// The history stored in `record`; errors name `fileName` and the table (a series table without
/// its columns, a row of the metrics with a step out of order).
Result<SavedHistory> historyOf(const RunRecord& record, const std::string& fileName);

}  // namespace distlab::ui
