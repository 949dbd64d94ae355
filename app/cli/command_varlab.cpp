// distlab-cli varlab SCRIPT: runs a variable-lab script and prints its output JSON on stdout.
#include <exception>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "distlab/core/error.hpp"
#include "distlab/distribute/varlab_script.hpp"
#include "distlab/files/input_file.hpp"

namespace distlab::cli {

namespace {

int runVarlab(const std::string& path) {
    try {
        auto text = readInputFile(InputKind::VarlabScript, {"SCRIPT", path, {}});
        if (!text.ok()) {
            std::cerr << "error: " << text.error().message << '\n';
            return 2;
        }
        auto output = runVarlabScript(text.value(), path);
        if (!output.ok()) {
            std::cerr << "error: " << output.error().message << '\n';
            return 2;
        }
        std::cout << output.value() << '\n' << std::flush;
        return std::cout ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << '\n';
        return 1;
    }
}

}  // namespace

void addVarlabCommand(CLI::App& app, int& exitCode) {
    auto path = std::make_shared<std::string>();
    CLI::App* command = app.add_subcommand("varlab",
                                           "Run a variable-lab script (JSON: strategy, replicas, variables, ops); prints "
                                           "{\"variables\": [...], \"results\": [...]} on stdout.");
    command->add_option("SCRIPT", *path, "variable-lab script (JSON)")->required();
    command->callback([path, &exitCode] { exitCode = runVarlab(*path); });
}

}  // namespace distlab::cli
