// distlab-cli export-tensorflow: a run config as TensorFlow code (docs/interfaces.md §3.10), on
// stdout or into a file written atomically. Text only: no data is loaded, nothing is trained.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "distlab/data/dataset.hpp"
#include "distlab/files/atomic_file.hpp"
#include "distlab/config/run_config_json.hpp"
#include "distlab/exports/tensorflow_code.hpp"
#include "run_setup.hpp"
#include "train_files.hpp"

namespace distlab::cli {
namespace {

struct TensorFlowExportOptions {
    std::string configPath;
    std::string codePath;  ///< empty: stdout
    std::vector<std::string> overrides;
};

int runTensorFlowExport(const TensorFlowExportOptions& options) {
    auto config = loadRunConfig(options.configPath, options.overrides, "CONFIG");
    if (!config) return inputError(config.error().message);
    const std::string code = tensorFlowCode(*config);
    if (options.codePath.empty()) {
        std::fwrite(code.data(), 1, code.size(), stdout);
        return std::fflush(stdout) == 0 ? 0 : 1;
    }
    // As export-pytorch's: the file may be replaced (atomically), never be one of the run's inputs.
    std::vector<InputName> inputs{{"CONFIG", options.configPath, {}}};
    for (InputName& file : dataFiles(config->data, config->baseDirectory)) inputs.push_back(std::move(file));
    if (Status checked = checkTrainFiles(inputs, {{"OUT.py", options.codePath}}); !checked) return inputError(checked.error().message);
    if (Status written = writeFileAtomically(options.codePath, code); !written) {
        std::fprintf(stderr, "error: %s\n", written.error().message.c_str());
        return 1;
    }
    nlohmann::ordered_json out;
    out["code"] = options.codePath;
    out["bytes"] = code.size();
    std::puts(out.dump().c_str());
    return 0;
}

}  // namespace

void addExportTensorFlowCommand(CLI::App& app, int& exitCode) {
    auto options = std::make_shared<TensorFlowExportOptions>();
    CLI::App* command =
        app.add_subcommand("export-tensorflow",
                           "Write a run as TensorFlow code: the tf.distribute strategy and cross-device ops, the Keras model, the "
                           "optimizer, accumulation in a custom training loop, variable synchronization and aggregation. On stdout "
                           "without OUT.py.");
    command->add_option("CONFIG", options->configPath, "run config (JSON)")->required();
    command->add_option("OUT.py", options->codePath, "the file to write (replaced if it exists); default: stdout");
    command->add_option("--set", options->overrides, "override a config value, e.g. optimizer.learning_rate=0.05 (repeatable)")
        ->type_name("KEY.PATH=VALUE")
        ->allow_extra_args(false);
    command->callback([options, &exitCode] { exitCode = runTensorFlowExport(*options); });
}

}  // namespace distlab::cli
