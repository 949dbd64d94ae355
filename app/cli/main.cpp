// distlab-cli: the headless front end. Links only the engine. The command line is parsed by CLI11:
// `--help` everywhere, `--version`, and a usage error (exit 2) for anything it does not know.
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distlab/device/device_info.hpp"

namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 success; 2 invalid input (an \"error:\" line names the file and field); 3 a training "
    "failure; 130 interrupted (Ctrl-C); 1 anything else.\n"
    "Run 'distlab-cli COMMAND --help' for a command's options.";

/// The usage line of the subcommand being parsed (or of the program), for a usage error.
std::string usageOf(const CLI::App& app) {
    const auto selected = app.get_subcommands();
    if (selected.empty()) return CLI::Formatter().make_usage(&app, "distlab-cli");
    const CLI::App* command = selected.front();
    return CLI::Formatter().make_usage(command, "distlab-cli " + command->get_name()) + "Run 'distlab-cli " + command->get_name() +
           " --help' for more information.\n";
}

int usageError(const CLI::App& app, const std::string& message) {
    const auto selected = app.get_subcommands();
    const std::string where = selected.empty() ? "" : selected.front()->get_name() + ": ";
    std::fprintf(stderr, "error: %s%s\n%s", where.c_str(), message.c_str(), usageOf(app).c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"distlab-cli: train, benchmark and inspect DistLab runs without the desktop app.", "distlab-cli"};
    app.set_version_flag("--version", "distlab-cli " DISTLAB_CLI_VERSION, "print the version and exit");
    app.footer(kExitCodes);
    app.require_subcommand(1);
    app.fallthrough();  // `distlab-cli train --version` works too
    // Once the command line is read and before the command starts a thread (the load sets an
    // environment variable); --version, --help and usage errors load nothing.
    app.parse_complete_callback([] { distlab::loadOpenBlas(); });
    int exitCode = 0;
    distlab::cli::addTrainCommand(app, exitCode);
    distlab::cli::addBenchCommand(app, exitCode);
    distlab::cli::addVarlabCommand(app, exitCode);
    distlab::cli::addValidateCommand(app, exitCode);
    distlab::cli::addDevicesCommand(app, exitCode);
    distlab::cli::addCollectivesCommand(app, exitCode);
    distlab::cli::addCompareCommand(app, exitCode);
    distlab::cli::addEquivalenceCommand(app, exitCode);
    distlab::cli::addExportPyTorchCommand(app, exitCode);
    distlab::cli::addExportTensorFlowCommand(app, exitCode);

    // CLI11 would call an unknown command "an extra argument"; name it as what it is.
    const auto named = [&](CLI::App* command) { return command->check_name(argv[1]); };
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands(named).empty())
        return usageError(app, std::string("unknown command \"") + argv[1] + "\"");
    try {
        app.parse(argc, argv);  // runs the chosen command's callback
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForAllHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& error) {
        return usageError(app, error.what());
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: internal failure: %s\n", error.what());
        return 1;
    }
    return exitCode;
}
