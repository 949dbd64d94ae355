// distlab-cli varlab SCRIPT: runs a variable-lab script and prints its output JSON on stdout.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "distlab/core/error.hpp"
#include "distlab/distribute/varlab_script.hpp"

namespace distlab::cli {

namespace {

// A script is small; the limit keeps a wrong path (a device, a huge file) from exhausting memory.
constexpr std::uintmax_t kMaxScriptBytes = 64u * 1024u * 1024u;

Result<std::string> readScriptFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return Error{path + ": is a directory, not a script file"};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{path + ": cannot open file (" + std::strerror(errno) + ")"};
    std::string text;
    char buffer[65536];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxScriptBytes) return Error{path + ": file is too large for a script (over 64 MiB)"};
    }
    if (in.bad()) return Error{path + ": cannot read file"};
    return text;
}

int runVarlab(const std::string& path) {
    try {
        auto text = readScriptFile(path);
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
    CLI::App* command = app.add_subcommand(
        "varlab", "Run a variable-lab script (JSON: strategy, replicas, variables, ops); prints "
                  "{\"variables\": [...], \"results\": [...]} on stdout.");
    command->add_option("SCRIPT", *path, "variable-lab script (JSON)")->required();
    command->callback([path, &exitCode] { exitCode = runVarlab(*path); });
}

}  // namespace distlab::cli
