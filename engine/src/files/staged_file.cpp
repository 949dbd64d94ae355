#include "distlab/files/staged_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "distlab/files/atomic_file.hpp"
#include "files/file_checks.hpp"

namespace distlab {

using namespace file_detail;

namespace {

constexpr std::size_t kStagedBufferBytes = 1 << 20;
constexpr std::size_t kCopyBlockBytes = 1 << 20;

}  // namespace

Result<StagedFile> StagedFile::create(const std::string& path) {
    auto target = outputTarget(path);
    if (!target) return target.error();
    // O_RDWR: publish() reads the staged bytes back through the same descriptor.
    auto staging = createTemporaryBeside(path, *target, O_RDWR);
    if (!staging) return staging.error();
    ::unlink(staging->path.c_str());  // nameless from now on: nothing to clean up after a crash
    std::FILE* file = ::fdopen(staging->fd, "w+b");
    if (file == nullptr) {
        const int error = errno;
        ::close(staging->fd);
        return Error{path + ": cannot open a temporary file: " + std::strerror(error)};
    }
    std::setvbuf(file, nullptr, _IOFBF, kStagedBufferBytes);
    return StagedFile(path, file);
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_file(std::exchange(other.m_file, nullptr)),
      m_copyBuffer(std::move(other.m_copyBuffer)),
      m_errno(other.m_errno) {}

StagedFile& StagedFile::operator=(StagedFile&& other) noexcept {
    if (this != &other) {
        release();
        m_path = std::move(other.m_path);
        m_file = std::exchange(other.m_file, nullptr);
        m_copyBuffer = std::move(other.m_copyBuffer);
        m_errno = other.m_errno;
    }
    return *this;
}

StagedFile::~StagedFile() { release(); }

void StagedFile::release() {
    if (m_file != nullptr) std::fclose(m_file);
    m_file = nullptr;
}

void StagedFile::append(std::string_view bytes) {
    if (m_file == nullptr || m_errno != 0 || bytes.empty()) return;
    if (std::fwrite(bytes.data(), 1, bytes.size(), m_file) != bytes.size()) m_errno = errno != 0 ? errno : EIO;
}

Status StagedFile::publish(std::string_view tail) {
    if (m_file == nullptr) return Error{m_path + ": already closed"};
    if (m_errno == 0 && std::fflush(m_file) != 0) m_errno = errno != 0 ? errno : EIO;
    if (m_errno != 0) return Error{m_path + ": cannot write: " + std::strerror(m_errno)};
    auto writer = AtomicFileWriter::create(m_path);
    if (!writer) return writer.error();
    m_copyBuffer.resize(kCopyBlockBytes);
    const int fd = ::fileno(m_file);
    for (off_t offset = 0;;) {
        const ssize_t got = ::pread(fd, m_copyBuffer.data(), m_copyBuffer.size(), offset);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return Error{m_path + ": cannot read back the staged data: " + std::strerror(errno)};
        if (got == 0) break;
        writer->write(std::string_view(m_copyBuffer.data(), static_cast<std::size_t>(got)));
        offset += got;
    }
    writer->write(tail);
    return writer->commit();
}

Status StagedFile::close(std::string_view tail) {
    Status published = publish(tail);
    release();
    return published;
}

}  // namespace distlab
