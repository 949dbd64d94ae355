#pragma once
// How distlab-worker finds its place in a multi-worker run: the cluster (TF_CONFIG from the
// environment, as TensorFlow reads it, else the config's `cluster`), its task (--task, else
// TF_CONFIG's), the run's token (DISTLAB_CLUSTER_TOKEN), then the rendezvous.
#include <memory>
#include <string>

#include "distlab/config/run_config.hpp"
#include "distlab/core/error.hpp"
#include "distlab/distribute/cluster_task.hpp"

namespace distlab::cli {

/// Sets config.cluster, checks the config again with it (the global batch divides among every
/// worker's replicas), and joins. Errors are input errors naming TF_CONFIG, --task, the config
/// file or the peer that refused.
Result<std::unique_ptr<ClusterTask>> joinCluster(RunConfig& config, const std::string& configPath, const std::string& taskOption,
                                                 const std::string& redisOption);

}  // namespace distlab::cli

namespace distlab::cli {

/// The coordinator's summary member `,"lost_tasks":["worker:1"]` when tasks left the run without
/// goodbye and it went on (an asynchronous parameter-server run survives a lost worker); "" otherwise.
std::string lostTasksMember(ClusterTask& member);

}  // namespace distlab::cli
