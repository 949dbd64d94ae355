#pragma once
// One function per distlab-cli subcommand: it adds the subcommand and its options to the parser
// (CLI11) and, when that subcommand is the one given, runs it and stores the process exit code:
// 0 success, 2 invalid input (an "error:" line on stderr naming the file and field/offset),
// 3 a training failure the user must know about, 130 interrupted (Ctrl-C), 1 anything else.
#include <CLI/CLI.hpp>

namespace distlab::cli {

void addTrainCommand(CLI::App& app, int& exitCode);
void addBenchCommand(CLI::App& app, int& exitCode);
void addVarlabCommand(CLI::App& app, int& exitCode);
void addValidateCommand(CLI::App& app, int& exitCode);
void addDevicesCommand(CLI::App& app, int& exitCode);
void addCollectivesCommand(CLI::App& app, int& exitCode);
void addCompareCommand(CLI::App& app, int& exitCode);
void addEquivalenceCommand(CLI::App& app, int& exitCode);
void addExportPyTorchCommand(CLI::App& app, int& exitCode);
void addExportTensorFlowCommand(CLI::App& app, int& exitCode);

/// distlab-worker: `app` takes train's options plus --task and --redis, and runs one task of a
/// multi-worker run (docs/cluster.md). The same exit codes.
void configureWorker(CLI::App& app, int& exitCode);

}  // namespace distlab::cli
