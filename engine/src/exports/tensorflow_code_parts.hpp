#pragma once
// The parts of the TensorFlow code (distlab/exports/tensorflow_code.hpp), one file each: the data, the
// strategy, the model and optimizer, the training loop. Each returns a section of Python text;
// tensorflow_code.cpp puts the header, the imports and the sections together. Engine-internal.
#include <cstdint>
#include <set>
#include <string>

#include "distlab/config/run_config.hpp"

namespace distlab::tensorflow_code {

/// What every part must agree on, decided once from the config.
struct Plan {
    const RunConfig& config;
    /// How the replicas run: in this process (one_device, mirrored, central_storage), as worker
    /// processes of MultiWorkerMirroredStrategy (TensorFlow's ring, multi_worker_mirrored), or as a
    /// parameter-server cluster driven by a ClusterCoordinator.
    enum class Runtime { InProcess, MultiWorker, ParameterServer } runtime = Runtime::InProcess;
    std::int64_t replicas = 1;      ///< replicas in sync in one update (workers × replicas for multi-worker)
    bool classification = true;     ///< softmax cross-entropy on integer labels, else mse on float targets
    std::string stem;               ///< the base of the DistLab files the code reads ("spiral-mirrored-4")
    std::set<std::string> imports;  ///< modules the sections use, besides numpy and tensorflow
};

Plan makePlan(const RunConfig& config);

std::string dataSection(Plan& plan);          // tensorflow_code_data.cpp
std::string strategySection(Plan& plan);      // tensorflow_code_strategy.cpp
std::string multiWorkerPart(Plan& plan);      // tensorflow_code_cluster.cpp: launch_workers, make_strategy
std::string parameterServerPart(Plan& plan);  // tensorflow_code_cluster.cpp: the local cluster, make_strategy
std::string modelSection(Plan& plan);         // tensorflow_code_model.cpp
std::string trainingSection(Plan& plan);      // tensorflow_code_loop.cpp

/// A section's title line: "# --- title ----...", 100 characters wide, with a blank line before.
std::string sectionTitle(const std::string& title);

/// `text` as Python comment lines ("# ...") wrapped at 100 columns, each line indented by `indent`.
std::string comment(const std::string& text, int indent = 0);

}  // namespace distlab::tensorflow_code
