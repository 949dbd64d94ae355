#pragma once
// Shared by the libFuzzer targets: the input as text or bytes, a scratch file for readers that take
// a path, and a property check that aborts (so libFuzzer keeps the input) when an invariant fails.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace distlab::fuzz {

inline std::string_view asText(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

inline std::span<const std::byte> asBytes(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const std::byte*>(data), size};
}

/// Aborts with a message when `ok` is false: a broken invariant is a finding, like a crash.
inline void require(bool ok, const char* what) {
    if (ok) return;
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

/// A file of this process's own in the temporary folder holding `bytes` (for readers that take a path).
inline std::string scratchFile(const char* suffix, std::string_view bytes) {
    const char* folder = std::getenv("TMPDIR");
    const std::string path = std::string(folder && *folder ? folder : "/tmp") + "/distlab-fuzz-" + std::to_string(::getpid()) + suffix;
    std::FILE* file = std::fopen(path.c_str(), "wb");
    require(file != nullptr, "cannot create the scratch file");
    require(std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size(), "cannot write the scratch file");
    std::fclose(file);
    return path;
}

}  // namespace distlab::fuzz
