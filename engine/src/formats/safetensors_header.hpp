#pragma once
// Internal: the parts of a safetensors file shared by the span and file readers. The readers
// validate the 8-byte prefix and the header first, so the data is only touched (and memory only
// allocated) for ranges already known to lie inside the file.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "distlab/formats/safetensors.hpp"

namespace distlab::safetensors_detail {

/// The cap on the header size: 16 MiB holds ~150,000 tensor entries, far past any DistLab model.
/// (The reference implementation allows 100 MB, whose parsed JSON can take ~2 GB of memory.)
constexpr std::uint64_t kMaxHeaderBytes = 16u << 20;
/// Size of the little-endian header length that starts every file.
constexpr std::uint64_t kLengthPrefixBytes = 8;

/// One tensor as the header describes it; offsets relative to the data section.
struct HeaderEntry {
    std::string name;
    SafeDType dtype = SafeDType::F32;
    Shape shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

/// A validated header: entries sorted by data offset, covering the data section exactly.
struct ParsedHeader {
    std::vector<HeaderEntry> entries;
    std::map<std::string, std::string> metadata;
};

/// Checks the header length read from the first 8 bytes of a file of `fileBytes` bytes (at least 8).
/// Throws InputError naming the file and byte offset 0.
void checkHeaderLength(std::uint64_t headerBytes, std::uint64_t fileBytes, const std::string& fileName);

/// Reads the little-endian u64 at `bytes` (8 bytes).
std::uint64_t readLittleEndian64(const std::byte* bytes);

/// Parses and validates the JSON header against a data section of `dataBytes` bytes that starts at
/// file offset 8 + header.size(). Throws InputError naming the file and the byte offset or tensor.
ParsedHeader parseHeader(std::string_view header, std::uint64_t dataBytes, const std::string& fileName);

}  // namespace distlab::safetensors_detail
