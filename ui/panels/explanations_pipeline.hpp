#pragma once
// The explanations of split models (docs/semantics.md §12): pipeline and model_parallel, stages,
// micro-batches, schedules, the virtual clock and the Schedule view, kept apart from the rest of
// the table in explanations.cpp. GUI thread only.
#include <QHash>
#include <QString>

#include "panels/explanations.hpp"

namespace distlab::ui {

/// Adds "strategy.type.pipeline", "strategy.type.model_parallel", "strategy.stages",
/// "strategy.micro_batches", "strategy.schedule", "strategy.virtual_stages", "clock",
/// "model.device" and "view.schedule".
void addPipelineExplanations(QHash<QString, Explanation>& table);

}  // namespace distlab::ui
