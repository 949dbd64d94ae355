#pragma once
// distlab-worker's worker and ps tasks of a parameter-server run in processes (the chief runs
// train's loop: it is the run's Trainer). See docs/cluster.md, "Parameter servers".
#include <string>

#include "distlab/config/run_config.hpp"
#include "distlab/distribute/cluster_task.hpp"

namespace distlab::cli {

/// Whether `member` serves a parameter-server run (a worker or a ps) rather than driving it.
bool servesParameterServerRun(const RunConfig& config, const ClusterTask& member);

/// Loads the data, serves the chief until it stops the run, and prints the task's JSON summary line
/// last. Returns the exit code: the chief's (0, or 3 when the run failed), 3 when the chief is lost,
/// 2 for bad input, 130 interrupted.
int runParameterServerTask(const RunConfig& config, ClusterTask& member, const std::string& configPath);

}  // namespace distlab::cli
