#pragma once
// The explanations of training across processes (docs/cluster.md): multi-worker mirrored, the
// cluster as TF_CONFIG writes it, the coordinator, the rendezvous store, timeouts, backups and the
// Tasks view, kept apart from the rest of the table in explanations.cpp. GUI thread only.
#include <QHash>
#include <QString>

#include "panels/explanations.hpp"

namespace distlab::ui {

/// Adds "strategy.type.multi_worker_mirrored", "cluster.workers", "strategy.timeout_seconds",
/// "cluster.tf_config", "cluster.chief", "cluster.store", "cluster.backups" and "view.tasks".
void addClusterExplanations(QHash<QString, Explanation>& table);

}  // namespace distlab::ui
