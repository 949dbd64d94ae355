#pragma once
// The explanations of the cross-device reduction algorithms, packing and the communication view
// (docs/semantics.md §5): what each costs in steps, bytes per device and latency, with the formula,
// kept apart from the rest of the table in explanations.cpp. GUI thread only.
#include <QHash>
#include <QString>

#include "panels/explanations.hpp"

namespace distlab::ui {

/// Adds the "strategy.cross_device_ops.*", "strategy.num_packs", "strategy.bytes_per_pack" and
/// "view.communication" entries to `table` (replacing entries of the same key).
void addCollectiveExplanations(QHash<QString, Explanation>& table);

}  // namespace distlab::ui
