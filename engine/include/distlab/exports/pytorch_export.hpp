#pragma once
// Export a run as a PyTorch script (docs/interfaces.md §3.9): a runnable Python file that trains the
// same model from the same initial weights on the same batches in the same order with the same
// optimizer, DDP over gloo for data-parallel runs, so a learner can check DistLab against PyTorch
// step by step. Beside the script go its initial weights and its data, both as safetensors.
#include <cstdint>
#include <memory>
#include <string>

#include "distlab/core/error.hpp"
#include "distlab/config/run_config.hpp"
#include "distlab/formats/safetensors.hpp"

namespace distlab {

class Trainer;

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

/// A run's export made in memory, before any file is written: the initial weights DistLab's trainer
/// starts the config from, the training set, the sample indices of each update's global batch (from
/// the run's own sampler) and the run's description for the script. Splitting making from writing
/// lets a caller tell an input error (the config, its data: exit 2 in the CLI) from a write error
/// (exit 1). Move-only.
class PyTorchExport {
public:
    /// Checks the config (checkPyTorchExportable), loads its data and builds one model copy on
    /// cpu:0, for `steps` updates (-1: the config's `steps`). Errors: checkPyTorchExportable's, the
    /// data's, a data file that would pass 2 GiB. Blocks (file I/O); any thread.
    static Result<PyTorchExport> prepare(const RunConfig& config, std::int64_t steps = -1);

    /// Writes the data file, the weights file and the script, each atomically and the script last,
    /// so a script on disk always finds its files. Errors name the file that could not be written.
    /// Blocks (disk I/O); any thread.
    Status write(const std::string& scriptPath) const;

    std::int64_t steps() const { return m_steps; }

    PyTorchExport(PyTorchExport&&) noexcept;
    PyTorchExport& operator=(PyTorchExport&&) noexcept;
    ~PyTorchExport();

private:
    PyTorchExport();
    std::unique_ptr<Trainer> m_trainer;  ///< one copy on cpu:0: its model holds the initial weights
    SafeTensorsFile m_data;
    std::string m_runName;
    std::string m_runLiteral;  ///< RUN, the run's description as a Python literal
    std::int64_t m_steps = 0;
};

/// The app's one call: PyTorchExport::prepare(config, steps), then write(scriptPath).
Status exportPyTorch(const RunConfig& config, const std::string& scriptPath, std::int64_t steps = -1);

}  // namespace distlab
