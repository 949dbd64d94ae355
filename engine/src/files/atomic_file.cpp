#include "distlab/files/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "files/file_checks.hpp"

namespace distlab {

using namespace file_detail;

namespace {

constexpr std::size_t kAtomicBufferBytes = 1 << 18;

std::string errnoText(int error) { return std::strerror(error); }

// Where a path that may not exist yet would be: links followed, then made absolute and normal.
std::string comparablePath(const std::string& path) {
    const auto target = followLinks(path);
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(target ? *target : path, error);
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(absolute, error);
    return error ? absolute.lexically_normal().string() : resolved.string();
}

}  // namespace

Status writeFileAtomically(const std::string& path, std::string_view contents) {
    auto writer = AtomicFileWriter::create(path);
    if (!writer) return writer.error();
    writer->write(contents);
    return writer->commit();
}

Status checkOutputPath(const std::string& field, const std::string& path) {
    // The same steps a save takes, so a path that passes here fails later only if the disk changes.
    auto writer = AtomicFileWriter::create(path);
    if (!writer) return Error{field + ": " + writer.error().message};
    writer->discard();
    return Ok{};
}

bool sameFile(const std::string& first, const std::string& second) {
    struct stat a {
    }, b{};
    const bool firstExists = ::stat(first.c_str(), &a) == 0;
    const bool secondExists = ::stat(second.c_str(), &b) == 0;
    if (firstExists && secondExists) return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (firstExists != secondExists) return false;
    return comparablePath(first) == comparablePath(second);
}

Result<AtomicFileWriter> AtomicFileWriter::create(const std::string& path) {
    auto target = outputTarget(path);
    if (!target) return target.error();
    struct stat old {};
    const bool keepMode = ::stat(target->c_str(), &old) == 0;
    auto temporary = createTemporaryBeside(path, *target, O_WRONLY);
    if (!temporary) return temporary.error();
    if (keepMode) ::fchmod(temporary->fd, old.st_mode & 07777);
    std::FILE* file = ::fdopen(temporary->fd, "wb");
    if (file == nullptr) {
        const int error = errno;
        ::close(temporary->fd);
        ::unlink(temporary->path.c_str());
        return Error{path + ": cannot open a temporary file: " + errnoText(error)};
    }
    std::setvbuf(file, nullptr, _IOFBF, kAtomicBufferBytes);
    return AtomicFileWriter(path, std::move(*target), std::move(temporary->path), file);
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::string target, std::string temporaryPath, std::FILE* file)
    : m_path(std::move(path)), m_target(std::move(target)), m_temporaryPath(std::move(temporaryPath)), m_file(file) {}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_target(std::move(other.m_target)),
      m_temporaryPath(std::exchange(other.m_temporaryPath, {})),
      m_file(std::exchange(other.m_file, nullptr)),
      m_writeErrno(other.m_writeErrno) {}

AtomicFileWriter& AtomicFileWriter::operator=(AtomicFileWriter&& other) noexcept {
    if (this != &other) {
        discard();
        m_path = std::move(other.m_path);
        m_target = std::move(other.m_target);
        m_temporaryPath = std::exchange(other.m_temporaryPath, {});
        m_file = std::exchange(other.m_file, nullptr);
        m_writeErrno = other.m_writeErrno;
    }
    return *this;
}

AtomicFileWriter::~AtomicFileWriter() { discard(); }

void AtomicFileWriter::write(std::string_view bytes) {
    if (m_file == nullptr || m_writeErrno != 0 || bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), m_file) != bytes.size()) m_writeErrno = errno != 0 ? errno : EIO;
}

void AtomicFileWriter::write(std::span<const std::byte> bytes) {
    write(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Status AtomicFileWriter::commit() {
    if (m_file == nullptr) return Error{m_path + ": the file was already closed"};
    int error = m_writeErrno;
    if (error == 0 && std::fflush(m_file) != 0) error = errno != 0 ? errno : EIO;
    if (error == 0 && ::fsync(::fileno(m_file)) != 0) error = errno;
    const int closeResult = std::fclose(m_file);
    m_file = nullptr;
    if (error == 0 && closeResult != 0) error = errno != 0 ? errno : EIO;
    if (error != 0) {
        discard();
        return Error{m_path + ": cannot write: " + errnoText(error)};
    }
    if (::rename(m_temporaryPath.c_str(), m_target.c_str()) != 0) {
        error = errno;
        discard();
        return Error{m_path + ": cannot replace the file: " + errnoText(error)};
    }
    m_temporaryPath.clear();
    syncFolder(folderOf(m_target));
    return Ok{};
}

void AtomicFileWriter::discard() {
    if (m_file != nullptr) {
        std::fclose(m_file);
        m_file = nullptr;
    }
    if (!m_temporaryPath.empty()) {
        ::unlink(m_temporaryPath.c_str());
        m_temporaryPath.clear();
    }
}

}  // namespace distlab
