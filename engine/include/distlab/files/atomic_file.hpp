#pragma once
// The one way DistLab writes a file: a temporary file in the target's folder, fsync, then a rename
// over the target. A reader sees the old file or the new one, never a half-written one, and a
// failed save (disk full, unwritable folder, a crash) leaves the previous file intact.
// A symbolic link is written through (its target is replaced, the link stays); a target that
// exists and is not a regular file (a directory, FIFO, socket or device node) is refused, so a
// save never hangs on a FIFO nor replaces /dev/null with a regular file.
#include <cstddef>
#include <cstdio>
#include <span>
#include <string>
#include <string_view>

#include "distlab/core/error.hpp"

namespace distlab {

/// Writes `contents` to `path` atomically (temporary file, fsync, rename). On failure the old file
/// is untouched and no temporary file is left. Blocks on disk I/O; any thread.
Status writeFileAtomically(const std::string& path, std::string_view contents);

/// Checks up front that an output can be written later, so a run does not find out after hours:
/// the target (links followed) is a regular file or does not exist yet, and its folder exists and
/// takes a new file (proved by creating and removing a temporary file there). Errors read
/// "<field>: <path>: <what is wrong>", field being the option or setting that named the path
/// (e.g. "--metrics"). Blocks on disk I/O; any thread.
Status checkOutputPath(const std::string& field, const std::string& path);

/// Whether two paths name the same file: the same device and inode when both exist, else the same
/// absolute path once symbolic links are followed. Used to refuse an output that would overwrite an
/// input or another output. Blocks on disk I/O; any thread.
bool sameFile(const std::string& first, const std::string& second);

/// Streams a file to a temporary sibling of its target and renames it into place on commit().
/// Dropping the writer without commit() removes the temporary file. One thread at a time.
class AtomicFileWriter {
public:
    /// Creates the temporary file next to `path`'s final target (mode as the old file, else
    /// 0666 & ~umask). Refuses a target that is not a regular file. Blocks on disk I/O; any thread.
    static Result<AtomicFileWriter> create(const std::string& path);

    AtomicFileWriter(AtomicFileWriter&& other) noexcept;
    AtomicFileWriter& operator=(AtomicFileWriter&& other) noexcept;
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
    ~AtomicFileWriter();

    /// Appends bytes (buffered, no allocation). The first failure is kept and returned by commit().
    void write(std::string_view bytes);
    /// Appends raw bytes; see write(std::string_view).
    void write(std::span<const std::byte> bytes);
    /// Flushes, fsyncs and renames the temporary file over the target, then fsyncs the folder.
    /// On any failure the temporary file is removed and the target left as it was. Blocks.
    Status commit();
    /// Closes and removes the temporary file; the target is left as it was.
    void discard();

    /// The output path as given (messages name it).
    const std::string& path() const { return m_path; }
    /// The file commit() replaces: path() with its symbolic links followed.
    const std::string& target() const { return m_target; }
    /// The temporary file's path (empty after commit() or discard()).
    const std::string& temporaryPath() const { return m_temporaryPath; }

private:
    AtomicFileWriter(std::string path, std::string target, std::string temporaryPath, std::FILE* file);

    std::string m_path;
    std::string m_target;
    std::string m_temporaryPath;
    std::FILE* m_file = nullptr;
    int m_writeErrno = 0;  ///< first failed write's errno (0: none)
};

}  // namespace distlab
