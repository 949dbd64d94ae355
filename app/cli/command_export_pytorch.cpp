// distlab-cli export-pytorch: writes a PyTorch script that reproduces a run (docs/interfaces.md §3.9),
// with its initial weights and data beside it, and prints one JSON line naming the files.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_options.hpp"
#include "commands.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/exports/pytorch_export.hpp"
#include "distlab/config/run_config_json.hpp"
#include "run_setup.hpp"
#include "train_files.hpp"

namespace distlab::cli {
namespace {

struct PyTorchExportOptions {
    std::string configPath;
    std::string scriptPath;
    std::optional<long long> steps;
    std::vector<std::string> overrides;
};

int runPyTorchExport(const PyTorchExportOptions& options) {
    auto config = loadRunConfig(options.configPath, options.overrides, "CONFIG");
    if (!config) return inputError(config.error().message);
    // What the export cannot write is refused before the data is loaded.
    if (Status exportable = checkPyTorchExportable(*config); !exportable)
        return inputError(options.configPath + ": " + exportable.error().message);
    // A config without a step limit (steps 0) has no updates to export unless told how many.
    if (!options.steps && config->steps == 0)
        return inputError(options.configPath +
                          ": steps is 0 (no limit: the run trains until stopped), so there is no step count to export; "
                          "give one with --steps N");
    const std::int64_t steps = options.steps ? *options.steps : config->steps;

    // The three outputs are checked as train's are: writable, and none of them an input.
    const PyTorchExportFiles files = pyTorchExportFiles(options.scriptPath);
    std::vector<InputName> inputs{{"CONFIG", options.configPath, {}}};
    for (InputName& file : dataFiles(config->data, config->baseDirectory)) inputs.push_back(std::move(file));
    if (Status checked = checkTrainFiles(
            inputs, {{"OUT.py", files.script}, {"OUT.py (its weights file)", files.weights}, {"OUT.py (its data file)", files.data}});
        !checked)
        return inputError(checked.error().message);

    auto prepared = PyTorchExport::prepare(*config, steps);
    if (!prepared) return inputError(options.configPath + ": " + prepared.error().message);
    // The outputs were found writable above, so a failure now is the disk's (full, a folder
    // removed meanwhile): exit 1, as a failed write after a train run.
    if (Status written = prepared->write(options.scriptPath); !written) {
        std::fprintf(stderr, "error: %s\n", written.error().message.c_str());
        return 1;
    }
    nlohmann::ordered_json out;
    out["script"] = files.script;
    out["weights"] = files.weights;
    out["data"] = files.data;
    out["steps"] = steps;
    out["replicas"] = config->strategy.replicaCount();
    std::error_code error;
    const auto bytes = std::filesystem::file_size(files.data, error);
    if (!error) out["data_bytes"] = bytes;
    std::puts(out.dump().c_str());
    return 0;
}

}  // namespace

void addExportPyTorchCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<PyTorchExportOptions>();
    auto steps = std::make_shared<long long>(0);
    CLI::App* command =
        app.add_subcommand("export-pytorch",
                           "Write a PyTorch script that reproduces a run (same model, initial weights, batches and optimizer; DDP over "
                           "gloo for data-parallel runs), with OUT.init.safetensors and OUT.data.safetensors beside it.");
    command->add_option("CONFIG", options->configPath, "run config (JSON)")->required();
    command->add_option("OUT.py", options->scriptPath, "the script to write")->required();
    CLI::Option* stepsOption = command->add_option("--steps", *steps, "updates whose batches are exported (default: the config's steps)")
                                   ->type_name("N")
                                   ->check(integerIn(0, kMaxSteps));
    command->add_option("--set", options->overrides, "override a config value, e.g. optimizer.learning_rate=0.05 (repeatable)")
        ->type_name("KEY.PATH=VALUE")
        ->allow_extra_args(false);
    command->callback([options, steps, stepsOption, &exitCode] {
        if (stepsOption->count() > 0) options->steps = *steps;
        exitCode = runPyTorchExport(*options);
    });
}

}  // namespace distlab::cli
