#pragma once
// The rank processes a command starts to run a group across processes on this machine: this
// program again (/proc/self/exe), through posix_spawn rather than fork, since the command already
// has OpenMP and OpenBLAS threads that a forked child would inherit only half of. None outlives
// the object: destroying it kills and reaps whatever still runs. (A rank process should also ask
// for the kernel's parent-death signal, exitWithParent, in case this process is killed itself.)
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <thread>
#include <vector>

#include "distlab/core/error.hpp"

namespace distlab::cli {

class RankProcesses {
public:
    /// Called from the watcher thread with "rank 2 exited with status 1" for the first rank process
    /// that ends other than with status 0 before finish(), once the others are killed.
    using FailureHandler = std::function<void(const std::string& what)>;

    explicit RankProcesses(FailureHandler onFailure);
    ~RankProcesses();
    RankProcesses(const RankProcesses&) = delete;
    RankProcesses& operator=(const RankProcesses&) = delete;

    /// Starts /proc/self/exe with `arguments` (after argv[0]) and this process's environment plus
    /// `environment` ("NAME=VALUE", replacing a variable of that name), named `label` in messages.
    Status start(const std::string& label, const std::vector<std::string>& arguments, const std::vector<std::string>& environment);
    /// Waits until every rank process has ended, at most `timeout`; then kills any still running.
    /// The error names those that failed or had to be killed.
    Status finish(std::chrono::milliseconds timeout);
    /// After this process's own part failed: which rank processes failed too (a dead peer is the
    /// likely cause), waiting up to `wait` for one to end; "" if none did. From here on, failures
    /// are this function's to report, not the handler's.
    std::string failures(std::chrono::milliseconds wait);
    /// Kills (SIGKILL) and reaps every rank process still running. Any thread.
    void killAll();

private:
    struct Child {
        std::string label;
        pid_t pid = -1;
        bool ended = false;
        int status = 0;  ///< waitpid's
    };
    /// Reaps the children that have ended (never blocks); the description of the first new failure.
    std::string reapEnded();
    void watch();

    FailureHandler m_onFailure;
    std::mutex m_mutex;
    std::vector<Child> m_children;
    bool m_finishing = false, m_stop = false;
    std::thread m_watcher;
};

/// In a rank process: asks the kernel to kill this process when its parent (the thread that
/// spawned it) ends, and exits at once if `parent` has already ended before the request.
void exitWithParent(pid_t parent);

}  // namespace distlab::cli
