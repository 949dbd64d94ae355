#pragma once
// The explanations of central storage, parameter servers and their views (docs/semantics.md §6), kept
// apart from the rest of the table in explanations.cpp. GUI thread only.
#include <QHash>
#include <QString>

#include "panels/explanations.hpp"

namespace distlab::ui {

/// Adds the "strategy.type.central_storage", "strategy.type.parameter_server", "strategy.workers", ...
/// and "view.parameter_servers", "view.staleness", "view.comparison" entries to `table`.
void addParameterServerExplanations(QHash<QString, Explanation>& table);

}  // namespace distlab::ui
