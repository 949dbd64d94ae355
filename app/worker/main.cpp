// distlab-worker: one task of a run across processes (multi_worker_mirrored, or parameter servers), in its own process. It
// reads the cluster and its task from TF_CONFIG (or --task and the config's cluster), meets the
// other tasks, trains its local replicas in step with theirs, and prints a JSON summary last.
// Engine only, no Qt: it runs on hosts without a display. See docs/cluster.md.
#include <csignal>
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "distlab/device/device_info.hpp"

int main(int argc, char** argv) {
    CLI::App app{"distlab-worker: run one task (chief, worker or ps) of a DistLab run across processes.", "distlab-worker"};
    app.set_version_flag("--version", "distlab-worker " DISTLAB_CLI_VERSION, "print the version and exit");
    app.footer(
        "The cluster comes from TF_CONFIG, as TensorFlow reads it, or from the config's \"cluster\" with --task. Every task\n"
        "presents DISTLAB_CLUSTER_TOKEN; the coordinator (the chief, else worker 0) prints one when none is set.\n"
        "Exit codes: 0 success; 2 invalid input or a refused join; 3 a training failure (a lost task); 130 interrupted.");
    app.parse_complete_callback([] { distlab::loadOpenBlas(); });
    // Gloo writes to its peers with writev, which raises SIGPIPE on a connection a lost peer
    // closed: ignored, so a lost task is an error this task reports, not the end of it.
    std::signal(SIGPIPE, SIG_IGN);
    int exitCode = 0;
    distlab::cli::configureWorker(app, exitCode);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
        std::fprintf(stderr, "error: %s\n%s", error.what(), app.help().c_str());
        return 2;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: internal failure: %s\n", error.what());
        return 1;
    }
    return exitCode;
}
