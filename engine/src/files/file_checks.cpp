#include "files/file_checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace distlab::file_detail {
namespace {

// Linux's own limit on links followed in one path lookup (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

// A name unique across threads and processes: pid, a process-wide counter and the clock.
std::string temporaryNameFor(const std::string& target, int attempt) {
    static std::atomic<std::uint64_t> counter{0};
    const auto ticks = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::uint64_t mix = ticks ^ (counter.fetch_add(1) * 0x9E3779B97F4A7C15ull) ^ static_cast<std::uint64_t>(attempt);
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, ".tmp-%d-%016llx", static_cast<int>(::getpid()), static_cast<unsigned long long>(mix));
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "." + std::string.
    std::string name(1, '.');
    name += std::filesystem::path(target).filename().string();
    name += suffix;
    return (std::filesystem::path(folderOf(target)) / name).string();
}

}  // namespace

std::string notRegularReason(mode_t mode) {
    const char* kind = nullptr;
    if (S_ISREG(mode)) return {};
    if (S_ISDIR(mode))
        kind = "a directory";
    else if (S_ISFIFO(mode))
        kind = "a FIFO (named pipe)";
    else if (S_ISSOCK(mode))
        kind = "a socket";
    else if (S_ISCHR(mode))
        kind = "a character device";
    else if (S_ISBLK(mode))
        kind = "a block device";
    else
        kind = "not a file";
    return std::string("it is ") + kind + ", not a regular file";
}

std::string folderOf(const std::string& path) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
}

Result<std::string> followLinks(const std::string& path) {
    std::filesystem::path current(path);
    for (int hop = 0; hop <= kMaxLinks; ++hop) {
        struct stat info {};
        if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current.string();
        std::error_code error;
        const std::filesystem::path next = std::filesystem::read_symlink(current, error);
        if (error) return current.string();  // vanished meanwhile: the caller's open or stat reports it
        current = next.is_absolute() ? next : current.parent_path() / next;
    }
    return Error{path + ": cannot follow the symbolic link: " + std::strerror(ELOOP)};
}

Result<std::string> outputTarget(const std::string& path) {
    auto target = followLinks(path);
    if (!target) return target;
    struct stat info {};
    if (::stat(target->c_str(), &info) == 0) {
        if (const std::string reason = notRegularReason(info.st_mode); !reason.empty()) return Error{path + ": cannot write: " + reason};
    }
    return target;
}

Result<TemporaryFile> createTemporaryBeside(const std::string& path, const std::string& target, int accessMode) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::string temporary = temporaryNameFor(target, attempt);
        const int fd = ::open(temporary.c_str(), accessMode | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return TemporaryFile{fd, std::move(temporary)};
        if (errno != EEXIST)
            return Error{path + ": cannot create a temporary file in \"" + folderOf(target) + "\": " + std::strerror(errno)};
    }
    return Error{path + ": cannot create a unique temporary file in \"" + folderOf(target) + "\""};
}

void syncFolder(const std::string& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace distlab::file_detail
