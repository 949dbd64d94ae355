#include "rank_processes.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX's, for posix_spawn

namespace distlab::cli {

namespace {

constexpr auto kPoll = std::chrono::milliseconds(20);

std::string describe(const std::string& label, int status) {
    if (WIFSIGNALED(status))
        return label + " was killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
    return label + " exited with status " + std::to_string(WEXITSTATUS(status));
}

bool failed(int status) { return !WIFEXITED(status) || WEXITSTATUS(status) != 0; }

}  // namespace

RankProcesses::RankProcesses(FailureHandler onFailure) : m_onFailure(std::move(onFailure)), m_watcher([this] { watch(); }) {}

RankProcesses::~RankProcesses() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_watcher.join();
    killAll();
}

Status RankProcesses::start(const std::string& label, const std::vector<std::string>& arguments,
                            const std::vector<std::string>& environment) {
    std::vector<std::string> argvText{"distlab-cli"};
    argvText.insert(argvText.end(), arguments.begin(), arguments.end());
    std::vector<std::string> envText;
    for (char** variable = environ; *variable != nullptr; ++variable) {
        const std::string entry(*variable);
        const auto replaced = [&](const std::string& added) {
            return entry.compare(0, added.find('=') + 1, added, 0, added.find('=') + 1) == 0;
        };
        if (std::none_of(environment.begin(), environment.end(), replaced)) envText.push_back(entry);
    }
    envText.insert(envText.end(), environment.begin(), environment.end());
    std::vector<char*> argv, envp;
    for (std::string& text : argvText) argv.push_back(text.data());
    for (std::string& text : envText) envp.push_back(text.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);

    // The rank starts with default signal handling and nothing blocked, whatever this process set.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (const int signal : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) sigaddset(&defaults, signal);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int error = posix_spawn(&pid, "/proc/self/exe", nullptr, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    if (error != 0) return Error{"cannot start " + label + ": " + std::strerror(error)};
    std::lock_guard lock(m_mutex);
    m_children.push_back(Child{label, pid});
    return Ok{};
}

std::string RankProcesses::reapEnded() {
    std::string failure;
    for (Child& child : m_children) {
        if (child.ended) continue;
        int status = 0;
        if (::waitpid(child.pid, &status, WNOHANG) != child.pid) continue;
        child.ended = true;
        child.status = status;
        if (failed(status) && failure.empty()) failure = describe(child.label, status);
    }
    return failure;
}

void RankProcesses::watch() {
    for (;;) {
        std::string failure;
        {
            std::lock_guard lock(m_mutex);
            if (m_stop) return;
            if (!m_finishing) failure = reapEnded();
        }
        // One rank's failure dooms the group: the others are killed before the handler hears of it
        // (it may end the process).
        if (!failure.empty()) {
            killAll();
            m_onFailure(failure);
            return;
        }
        std::this_thread::sleep_for(kPoll);
    }
}

Status RankProcesses::finish(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::unique_lock lock(m_mutex);
    m_finishing = true;  // from here on an ending rank is this function's to report
    for (;;) {
        reapEnded();
        const bool running = std::any_of(m_children.begin(), m_children.end(), [](const Child& c) { return !c.ended; });
        if (!running || std::chrono::steady_clock::now() >= deadline) break;
        lock.unlock();
        std::this_thread::sleep_for(kPoll);
        lock.lock();
    }
    std::string problems;
    for (Child& child : m_children) {
        std::string problem;
        if (!child.ended) {
            ::kill(child.pid, SIGKILL);
            ::waitpid(child.pid, &child.status, 0);
            child.ended = true;
            problem = child.label + " was still running after " + std::to_string(timeout.count()) + " ms and was killed";
        } else if (failed(child.status)) {
            problem = describe(child.label, child.status);
        }
        if (!problem.empty()) problems += (problems.empty() ? "" : "; ") + problem;
    }
    if (!problems.empty()) return Error{problems};
    return Ok{};
}

std::string RankProcesses::failures(std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::unique_lock lock(m_mutex);
    m_finishing = true;
    for (;;) {
        reapEnded();
        std::string found;
        for (const Child& child : m_children)
            if (child.ended && failed(child.status)) found += (found.empty() ? "" : "; ") + describe(child.label, child.status);
        if (!found.empty() || std::chrono::steady_clock::now() >= deadline) return found;
        lock.unlock();
        std::this_thread::sleep_for(kPoll);
        lock.lock();
    }
}

void RankProcesses::killAll() {
    std::lock_guard lock(m_mutex);
    for (Child& child : m_children) {
        if (child.ended) continue;
        ::kill(child.pid, SIGKILL);
        ::waitpid(child.pid, &child.status, 0);
        child.ended = true;
    }
}

void exitWithParent(pid_t parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have ended between the spawn and the request: then this process was
    // re-parented already and no signal would come.
    if (::getppid() != parent) std::_Exit(1);
}

}  // namespace distlab::cli
