#pragma once
// Parameter servers in processes (docs/cluster.md, "Parameter servers"): a run of strategy
// parameter_server whose config names a cluster runs one distlab-worker per task. The chief
// coordinates, as TensorFlow's ClusterCoordinator: it is the run's Trainer (Trainer::create with the
// group of every task), hands out batches, orders every read and update, and writes weights and
// checkpoints. Each ps task holds its shards of the variables and their optimizer slots and applies
// the updates to them; each worker task reads the parameters from the servers, computes a gradient
// on the batch it was given and pushes it. This is how the worker and ps tasks run.
#include <cstdint>
#include <string>

#include "distlab/comm/communicator.hpp"
#include "distlab/config/cluster_config.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/data/dataset.hpp"

namespace distlab {

/// What a worker or ps task did, for its summary line.
struct ParameterServerTaskResult {
    int exitCode = 0;            ///< what the chief's Stop said: 0 the run finished, 3 it failed
    std::int64_t steps = 0;      ///< updates the run had applied when the chief stopped it
    std::int64_t gradients = 0;  ///< a worker: gradients it pushed
    std::int64_t reads = 0;      ///< a ps: reads it answered (workers lost before the answer not counted)
    std::int64_t updates = 0;    ///< a ps: updates it applied to its shards
    std::int64_t elements = 0;   ///< a ps: the parameters its shards hold
};

/// Runs `task` (a worker or a ps) of the validated `config` over `group` (every task's, from
/// ClusterTask) until the chief stops it. Blocks. `data` is the run's (loadTrainingData): a worker
/// trains on it, a ps takes the model's input width from it. Throws TrainingError when the chief is
/// lost (its link closed, or silent past strategy.timeout_seconds).
ParameterServerTaskResult runParameterServerTask(const RunConfig& config, const TaskId& task, Communicator& group, const DataSplit& data);

}  // namespace distlab
