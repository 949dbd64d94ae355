#include "distlab/files/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "files/file_checks.hpp"

namespace distlab {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// "16 MiB", "2 GiB": the caps are whole powers of two, so the short form is exact.
std::string shortSize(std::uint64_t bytes) {
    if (bytes % kGiB == 0) return std::to_string(bytes / kGiB) + " GiB";
    if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
    return std::to_string(bytes) + " bytes";
}

std::string prefixFor(const InputName& name) {
    std::string prefix = name.field + ": cannot read \"" + name.path + "\"";
    if (!name.resolved.empty() && name.resolved != name.path) prefix += " (" + name.resolved + ")";
    return prefix + ": ";
}

}  // namespace

InputLimits inputLimits(InputKind kind) {
    switch (kind) {
        // A config is a few kilobytes; the cap only stops a data file passed by mistake.
        case InputKind::Config:
            return {"a run config", 16 * kMiB};
        // Scripts are small too, but may be generated with many ops.
        case InputKind::VarlabScript:
            return {"a variable-lab script", 64 * kMiB};
        // Data is held as float32: 256 MiB of pixels become 1 GiB in memory (a CSV value takes at
        // least 2 bytes of text, so half that). That holds CIFAR-10-sized sets (150 MB) and stops
        // a gzip bomb long before memory runs out.
        case InputKind::Csv:
            return {"a CSV file", 256 * kMiB};
        case InputKind::Idx:
            return {"an IDX file", 256 * kMiB};
        // Read whole into memory; 2 GiB is 512 M float32 values, far past any model DistLab builds.
        case InputKind::Weights:
            return {"a weights or checkpoint file", 2 * kGiB};
    }
    return {"a file", 16 * kMiB};
}

InputFile::InputFile(InputKind kind, InputName name, int fd, std::uint64_t size)
    : m_kind(kind), m_name(std::move(name)), m_fd(fd), m_size(size) {}

InputFile::InputFile(InputFile&& other) noexcept
    : m_kind(other.m_kind), m_name(std::move(other.m_name)), m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) ::close(m_fd);
        m_kind = other.m_kind;
        m_name = std::move(other.m_name);
        m_fd = std::exchange(other.m_fd, -1);
        m_size = other.m_size;
    }
    return *this;
}

InputFile::~InputFile() {
    if (m_fd >= 0) ::close(m_fd);
}

InputFile InputFile::open(InputKind kind, InputName name) {
    const std::string where = name.resolved.empty() ? name.path : name.resolved;
    // Looked at before opening, because opening a device can itself act (a tape rewinds, a
    // terminal becomes the controlling one); and again after, on what was really opened.
    struct stat info {};
    if (::stat(where.c_str(), &info) != 0) throw InputError(prefixFor(name) + std::strerror(errno));
    if (std::string reason = file_detail::notRegularReason(info.st_mode); !reason.empty()) throw InputError(prefixFor(name) + reason);
    const int fd = ::open(where.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw InputError(prefixFor(name) + std::strerror(errno));
    InputFile file(kind, std::move(name), fd, 0);
    if (::fstat(fd, &info) != 0) file.fail(std::strerror(errno));
    if (std::string reason = file_detail::notRegularReason(info.st_mode); !reason.empty()) file.fail(reason);
    file.m_size = static_cast<std::uint64_t>(info.st_size);
    if (file.m_size > file.maxBytes()) file.failTooLarge("it is " + std::to_string(file.m_size) + " bytes");
    return file;
}

std::uint64_t InputFile::maxBytes() const { return inputLimits(m_kind).maxBytes; }

std::size_t InputFile::readAtMost(std::uint64_t offset, void* out, std::size_t count) const {
    auto* cursor = static_cast<char*>(out);
    std::size_t done = 0;
    while (done < count) {
        const ssize_t got = ::pread(m_fd, cursor + done, count - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail("byte offset " + std::to_string(offset + done) + ": " + std::strerror(errno));
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return done;
}

void InputFile::readAt(std::uint64_t offset, void* out, std::uint64_t count) const {
    if (readAtMost(offset, out, static_cast<std::size_t>(count)) < count)
        fail("byte offset " + std::to_string(offset) + ": the file ended early (changed while reading?)");
}

std::string InputFile::readAll() const {
    const std::uint64_t cap = maxBytes();
    std::string text;
    text.reserve(static_cast<std::size_t>(std::min(m_size, cap)));
    char block[1 << 16];
    for (;;) {
        const std::size_t got = readAtMost(text.size(), block, sizeof block);
        if (got == 0) return text;
        if (text.size() + got > cap) failTooLarge("it grew past " + std::to_string(cap) + " bytes while being read");
        text.append(block, got);
    }
}

void InputFile::fail(std::string_view reason) const { throw InputError(prefixFor(m_name) + std::string(reason)); }

void InputFile::failTooLarge(std::string_view measured) const {
    const InputLimits limits = inputLimits(m_kind);
    fail(std::string(measured) + "; " + std::string(limits.description) + " may hold at most " + shortSize(limits.maxBytes));
}

Result<std::string> readInputFile(InputKind kind, InputName name) {
    return captureErrors([&] { return InputFile::open(kind, std::move(name)).readAll(); });
}

}  // namespace distlab
