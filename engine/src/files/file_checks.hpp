#pragma once
// Internal: the file-system facts shared by the input opener (input_file.cpp) and the output
// writers (atomic_file.cpp, staged_file.cpp): what kind of file a path is, where its symbolic
// links lead, and a new temporary file beside an output.
#include <sys/types.h>

#include <string>

#include "distlab/core/error.hpp"

namespace distlab::file_detail {

/// Empty for a regular file; otherwise why it is refused, e.g. "it is a FIFO (named pipe), not a
/// regular file". Reading or replacing anything else hangs (a FIFO), never ends (/dev/zero) or
/// destroys something that is not the user's file (a device node).
std::string notRegularReason(mode_t mode);

/// The folder of a path ("." when it names none).
std::string folderOf(const std::string& path);

/// The file `path` finally names: symbolic links are followed as open() would (a relative link
/// against its own folder, at most 40 links), so an output replaces the link's target and the
/// link stays. A dangling link resolves to the path it points at. Error: a loop of links.
Result<std::string> followLinks(const std::string& path);

/// The file an output at `path` replaces: followLinks, and refused when that target exists and is
/// not a regular file. Errors read "<path>: cannot write: <reason>".
Result<std::string> outputTarget(const std::string& path);

/// A new, empty file beside `target`, with a unique hidden name, created with O_EXCL.
struct TemporaryFile {
    int fd = -1;
    std::string path;
};
/// Creates it open for `accessMode` (O_WRONLY or O_RDWR); errors name `path` (the output as given).
Result<TemporaryFile> createTemporaryBeside(const std::string& path, const std::string& target, int accessMode);

/// Makes a rename in `folder` durable; a failure does not undo the rename, so it is ignored.
void syncFolder(const std::string& folder);

}  // namespace distlab::file_detail
