#pragma once
// An append-only output (the metrics lines, a trace) that nobody ever sees half-written. Appends
// go to a staging file that has no name (created beside the target, then unlinked at once, so a
// killed process leaves nothing behind); the target is not touched until publish(), which writes
// what was appended so far, plus a closing tail, through AtomicFileWriter. So the target always
// holds the last published version, whole: a run rejected at start-up leaves the old file as it
// was, a full disk leaves the last good version, and SIGKILL leaves the version of the last publish.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/core/error.hpp"

namespace distlab {

/// Staged append-only output; one thread at a time.
class StagedFile {
public:
    /// Checks the target as AtomicFileWriter does (links followed; a directory, FIFO, socket or
    /// device is refused) and creates the staging file in its folder. Blocks on disk I/O.
    static Result<StagedFile> create(const std::string& path);

    StagedFile(StagedFile&& other) noexcept;
    StagedFile& operator=(StagedFile&& other) noexcept;
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;
    /// Drops the staging file; the target keeps its last published version (or stays untouched).
    ~StagedFile();

    /// Appends bytes (buffered; no allocation). The first failure is kept and returned by publish().
    void append(std::string_view bytes);
    /// Replaces the target, atomically, with every byte appended so far followed by `tail` (e.g.
    /// the "]}" that makes a trace valid JSON); appending goes on after it. On failure the target
    /// keeps its previous version. Copies the whole file: cost grows with its size. Blocks.
    Status publish(std::string_view tail = {});
    /// publish(tail), then drops the staging file; later calls fail ("<path>: already closed").
    Status close(std::string_view tail = {});

    /// The output path as given.
    const std::string& path() const { return m_path; }
    bool closed() const { return m_file == nullptr; }

private:
    StagedFile(std::string path, std::FILE* file) : m_path(std::move(path)), m_file(file) {}
    void release();

    std::string m_path;
    std::FILE* m_file = nullptr;     ///< the unnamed staging file, opened for reading and writing
    std::vector<char> m_copyBuffer;  ///< reused by every publish
    int m_errno = 0;                 ///< first failed append's errno (0: none)
};

}  // namespace distlab
