#pragma once
// The one way DistLab opens a file it reads: run configs, variable-lab scripts, CSV and IDX data,
// weights and checkpoints, from the engine, the CLI and the app alike.
// open() never blocks (O_NONBLOCK: a FIFO without a writer would hang a plain open() forever) and
// looks at the file with fstat before reading a byte: only a regular file is read, and only up to
// its kind's size cap, so a FIFO, a device (/dev/zero), a directory or a multi-gigabyte file given
// by mistake is refused at once with a message naming the field and the path.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "distlab/core/error.hpp"

namespace distlab {

/// What a file is read as; each kind has its own size cap.
enum class InputKind { Config, VarlabScript, Csv, Idx, Weights };

/// The caps of one kind of input.
struct InputLimits {
    std::string_view description;  ///< "a run config", as messages name it
    std::uint64_t maxBytes = 0;    ///< the most bytes on disk, and after gunzip for kinds that inflate (IDX)
};

/// The caps of `kind` (docs/interfaces.md lists them). Any thread.
InputLimits inputLimits(InputKind kind);

/// How messages name an input: "<field>: cannot read "<path>" (<resolved>): <reason>".
struct InputName {
    std::string field;     ///< what gave the path: "CONFIG", "--init-weights", "data.path", ...
    std::string path;      ///< as the user wrote it
    std::string resolved;  ///< where it was opened when that differs (a data path relative to its config)
};

/// A regular file open for reading. Move-only; one thread at a time. The member functions throw
/// InputError, like every engine loader (wrap calls in captureErrors); readInputFile is the
/// Result-returning form for callers outside the engine.
class InputFile {
public:
    /// Opens name.resolved (or name.path when that is empty) and checks it: a regular file of at
    /// most the kind's cap. Throws InputError naming the field and the path. Blocks on disk I/O.
    static InputFile open(InputKind kind, InputName name);

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&& other) noexcept;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    InputKind kind() const { return m_kind; }
    const InputName& name() const { return m_name; }
    /// The size fstat reported when the file was opened.
    std::uint64_t size() const { return m_size; }
    /// The kind's cap (inputLimits(kind()).maxBytes).
    std::uint64_t maxBytes() const;

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file. Throws on a read error.
    std::size_t readAtMost(std::uint64_t offset, void* out, std::size_t count) const;
    /// Reads exactly `count` bytes at `offset`; throws when the file ends first (it changed meanwhile).
    void readAt(std::uint64_t offset, void* out, std::uint64_t count) const;
    /// The whole file (at most the kind's cap, even if it grew after open()).
    std::string readAll() const;

    /// Throws InputError("<field>: cannot read "<path>" (<resolved>): <reason>").
    [[noreturn]] void fail(std::string_view reason) const;
    /// Throws the cap error: "<...>: <measured>; <a run config> may hold at most 16 MiB".
    [[noreturn]] void failTooLarge(std::string_view measured) const;

private:
    InputFile(InputKind kind, InputName name, int fd, std::uint64_t size);

    InputKind m_kind;
    InputName m_name;
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

/// Opens and reads a whole input file (InputFile::open + readAll) as a value or an Error. Blocks.
Result<std::string> readInputFile(InputKind kind, InputName name);

}  // namespace distlab
