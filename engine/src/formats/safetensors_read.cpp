// Reading safetensors from memory or from a file. Both validate the 8-byte prefix and the whole
// header before touching the data, so no allocation is larger than the file itself.
#include "distlab/files/input_file.hpp"
#include "distlab/formats/safetensors.hpp"
#include "safetensors_header.hpp"

namespace distlab {
namespace {

using namespace safetensors_detail;

void checkMinimumSize(std::uint64_t fileBytes, const std::string& fileName) {
    if (fileBytes < kLengthPrefixBytes) {
        throw InputError(fileName + ": the file is " + std::to_string(fileBytes) + " bytes long, too short for the 8-byte header length");
    }
}

SafeTensorsFile parseBytes(std::span<const std::byte> bytes, const std::string& fileName) {
    checkMinimumSize(bytes.size(), fileName);
    const std::uint64_t headerBytes = readLittleEndian64(bytes.data());
    checkHeaderLength(headerBytes, bytes.size(), fileName);
    const std::uint64_t dataStart = kLengthPrefixBytes + headerBytes;
    const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + kLengthPrefixBytes, headerBytes);
    ParsedHeader parsed = parseHeader(header, bytes.size() - dataStart, fileName);

    SafeTensorsFile file;
    file.metadata = std::move(parsed.metadata);
    for (HeaderEntry& entry : parsed.entries) {
        const auto* first = bytes.data() + dataStart + entry.begin;
        const auto* last = bytes.data() + dataStart + entry.end;
        file.tensors.emplace(std::move(entry.name), SafeTensor{entry.dtype, std::move(entry.shape), std::vector<std::byte>(first, last)});
    }
    return file;
}

SafeTensorsFile readFile(const std::string& path, const std::string& field) {
    const InputFile input = InputFile::open(InputKind::Weights, {field, path, {}});
    const std::uint64_t fileBytes = input.size();
    checkMinimumSize(fileBytes, path);
    std::byte prefix[kLengthPrefixBytes];
    input.readAt(0, prefix, kLengthPrefixBytes);
    const std::uint64_t headerBytes = readLittleEndian64(prefix);
    checkHeaderLength(headerBytes, fileBytes, path);  // before allocating anything of that size
    std::string header(headerBytes, '\0');
    input.readAt(kLengthPrefixBytes, header.data(), headerBytes);
    const std::uint64_t dataStart = kLengthPrefixBytes + headerBytes;
    ParsedHeader parsed = parseHeader(header, fileBytes - dataStart, path);

    SafeTensorsFile file;
    file.metadata = std::move(parsed.metadata);
    for (HeaderEntry& entry : parsed.entries) {
        std::vector<std::byte> data(entry.end - entry.begin);
        input.readAt(dataStart + entry.begin, data.data(), data.size());
        file.tensors.emplace(std::move(entry.name), SafeTensor{entry.dtype, std::move(entry.shape), std::move(data)});
    }
    return file;
}

}  // namespace

Result<SafeTensorsFile> parseSafeTensors(std::span<const std::byte> bytes, const std::string& fileName) {
    return captureErrors([&] { return parseBytes(bytes, fileName); });
}

Result<SafeTensorsFile> readSafeTensors(const std::string& path, const std::string& field) {
    return captureErrors([&] { return readFile(path, field); });
}

}  // namespace distlab
