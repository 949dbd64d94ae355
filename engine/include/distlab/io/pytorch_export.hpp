#pragma once
// Export a run as a PyTorch script (docs/interfaces.md §3.9): a runnable Python file that trains the
// same model from the same initial weights on the same batches in the same order with the same
// optimizer, DDP over gloo for data-parallel runs, so a learner can check DistLab against PyTorch
// step by step. Beside the script go its initial weights and its data, both as safetensors.
#include <cstdint>
#include <string>

#include "distlab/core/error.hpp"
#include "distlab/io/run_config.hpp"

namespace distlab {

/// The three files an export writes: the script the user named and two siblings named after it
/// ("run.py" -> "run.init.safetensors", "run.data.safetensors").
struct PyTorchExportFiles {
    std::string script;
    std::string weights;  ///< the run's initial weights, DistLab's parameter names (docs/interfaces.md §2)
    std::string data;     ///< the training set and the sample indices of every global batch
};

/// The files an export to `scriptPath` writes. Pure; any thread.
PyTorchExportFiles pyTorchExportFiles(const std::string& scriptPath);

/// Whether a validated config can be exported; the error names the key that cannot
/// ("strategy.type: parameter_server runs cannot be exported to PyTorch yet"). Pure, needs no data:
/// the app can ask it to enable its menu item. Any thread.
Status checkPyTorchExportable(const RunConfig& config);

/// Writes the script and its two files (each atomically; the script last, so a script on disk always
/// has its files). The initial weights are the ones DistLab's trainer starts this config from and the
/// batches the ones it draws, for `steps` updates (-1: the config's `steps`); the script can run
/// fewer. Loads the data the config names and builds one model copy: blocks (file I/O), any thread.
/// Errors: checkPyTorchExportable's, the data's, a data file over 2 GiB, a file that cannot be written.
Status exportPyTorch(const RunConfig& config, const std::string& scriptPath, std::int64_t steps = -1);

}  // namespace distlab
