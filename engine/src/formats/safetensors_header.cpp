#include "safetensors_header.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <utility>

namespace distlab {
namespace {

struct DTypeInfo {
    SafeDType dtype;
    std::string_view name;
    std::size_t size;
};

constexpr std::array<DTypeInfo, 15> kDTypes{{
    {SafeDType::Bool, "BOOL", 1},
    {SafeDType::U8, "U8", 1},
    {SafeDType::I8, "I8", 1},
    {SafeDType::F8E5M2, "F8_E5M2", 1},
    {SafeDType::F8E4M3, "F8_E4M3", 1},
    {SafeDType::I16, "I16", 2},
    {SafeDType::U16, "U16", 2},
    {SafeDType::F16, "F16", 2},
    {SafeDType::BF16, "BF16", 2},
    {SafeDType::I32, "I32", 4},
    {SafeDType::U32, "U32", 4},
    {SafeDType::F32, "F32", 4},
    {SafeDType::I64, "I64", 8},
    {SafeDType::U64, "U64", 8},
    {SafeDType::F64, "F64", 8},
}};

static_assert(
    [] {
        for (std::size_t i = 0; i < kDTypes.size(); ++i) {
            if (static_cast<std::size_t>(kDTypes[i].dtype) != i) return false;
        }
        return true;
    }(),
    "kDTypes must list the dtypes in enum order");

const DTypeInfo& infoOf(SafeDType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::string_view safeDTypeName(SafeDType dtype) { return infoOf(dtype).name; }
std::size_t safeDTypeSize(SafeDType dtype) { return infoOf(dtype).size; }

std::optional<DType> toDType(SafeDType tag) {
    switch (tag) {
        case SafeDType::F32:
            return DType::Float32;
        case SafeDType::F16:
            return DType::Float16;
        case SafeDType::BF16:
            return DType::BFloat16;
        case SafeDType::I32:
            return DType::Int32;
        default:
            return std::nullopt;
    }
}

SafeDType toSafeDType(DType dtype) {
    switch (dtype) {
        case DType::Float32:
            return SafeDType::F32;
        case DType::Float16:
            return SafeDType::F16;
        case DType::BFloat16:
            return SafeDType::BF16;
        case DType::Int32:
            return SafeDType::I32;
    }
    return SafeDType::F32;
}

std::optional<SafeDType> parseSafeDType(std::string_view name) {
    for (const DTypeInfo& info : kDTypes) {
        if (info.name == name) return info.dtype;
    }
    return std::nullopt;
}

namespace safetensors_detail {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& message) { throw InputError(message); }

std::string kindOf(const json& value) { return value.type_name(); }

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> "syntax error ...".
// The "last read" part quotes raw header bytes; non-ASCII ones become <0xNN> so the message is clean text.
std::string shortParseMessage(const std::string& what) {
    const std::size_t column = what.find("column ");
    const std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
    const std::string_view message = colon == std::string::npos ? std::string_view(what) : std::string_view(what).substr(colon + 2);
    std::string clean;
    for (const char c : message) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x80) {
            clean += c;
        } else {
            static constexpr char kHex[] = "0123456789ABCDEF";
            clean += "<0x";
            clean += kHex[byte >> 4];
            clean += kHex[byte & 0xF];
            clean += '>';
        }
    }
    return clean;
}

// Watches the top-level keys of a header for duplicates in one linear SAX pass. nlohmann keeps the
// last of duplicate keys silently, and its callback parser rescans the parent object at every
// close (quadratic: 50,000 tensors took 17 s), so the DOM is parsed without a callback.
class DuplicateKeyWatcher final : public nlohmann::json_sax<json> {
public:
    std::string duplicate;  ///< the first top-level key seen twice (empty: none)

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return ++m_depth, true; }
    bool end_object() override { return --m_depth, true; }
    bool start_array(std::size_t) override { return ++m_depth, true; }
    bool end_array() override { return --m_depth, true; }
    bool key(string_t& name) override {
        if (m_depth == 1 && duplicate.empty() && !m_keys.insert(name).second) duplicate = name;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

private:
    int m_depth = 0;
    std::unordered_set<std::string> m_keys;
};

json parseJson(std::string_view header, const std::string& fileName, std::string& duplicateKey) {
    json parsed;
    try {
        parsed = json::parse(header.begin(), header.end());
    } catch (const json::parse_error& error) {
        const std::uint64_t offset = kLengthPrefixBytes + std::min<std::uint64_t>(error.byte == 0 ? 0 : error.byte - 1, header.size());
        fail(fileName + ": byte offset " + std::to_string(offset) + ": header is not valid JSON: " + shortParseMessage(error.what()));
    } catch (const json::exception& error) {
        // e.g. out_of_range for a number too large for a double (found by fuzz_safetensors): no offset given.
        const std::string what = error.what();  // "[json.exception.out_of_range.406] number overflow ..."
        const std::size_t bracket = what.find("] ");
        fail(fileName + ": header is not valid JSON: " + shortParseMessage(bracket == std::string::npos ? what : what.substr(bracket + 2)));
    }
    // A duplicated tensor name would show up as an unexplained gap, so it is reported by name.
    DuplicateKeyWatcher watcher;
    json::sax_parse(header.begin(), header.end(), &watcher);
    duplicateKey = watcher.duplicate;
    return parsed;
}

std::uint64_t offsetValue(const json& value, const std::string& where) {
    if (!value.is_number_unsigned())
        fail(where + " must be a non-negative integer, got " + value.dump(-1, ' ', false, json::error_handler_t::replace));
    return value.get<std::uint64_t>();
}

HeaderEntry parseEntry(const std::string& name, const json& info, std::uint64_t dataBytes, const std::string& fileName) {
    const std::string where = fileName + ": " + name + ": ";
    if (!info.is_object()) fail(where + "expected an object with dtype, shape and data_offsets, got " + kindOf(info));
    HeaderEntry entry;
    entry.name = name;

    const auto dtype = info.find("dtype");
    if (dtype == info.end()) fail(where + "missing dtype");
    if (!dtype->is_string()) fail(where + "dtype must be a string, got " + kindOf(*dtype));
    const auto parsedDType = parseSafeDType(dtype->get_ref<const std::string&>());
    if (!parsedDType) fail(where + "unsupported dtype " + dtype->dump(-1, ' ', false, json::error_handler_t::replace));
    entry.dtype = *parsedDType;

    const auto shape = info.find("shape");
    if (shape == info.end()) fail(where + "missing shape");
    if (!shape->is_array()) fail(where + "shape must be an array, got " + kindOf(*shape));
    std::uint64_t elements = 1;
    bool overflow = false;
    for (std::size_t axis = 0; axis < shape->size(); ++axis) {
        const json& dim = (*shape)[axis];
        const std::string at = where + "shape[" + std::to_string(axis) + "] ";
        if (dim.is_number_integer() && !dim.is_number_unsigned() && dim.get<std::int64_t>() < 0) {
            fail(at + "is negative (" + std::to_string(dim.get<std::int64_t>()) + ")");
        }
        if (!dim.is_number_unsigned()) fail(at + "must be a non-negative integer, got " + kindOf(dim));
        const auto value = dim.get<std::uint64_t>();
        if (value > static_cast<std::uint64_t>(INT64_MAX)) fail(at + "is too large (" + std::to_string(value) + ")");
        entry.shape.push_back(static_cast<std::int64_t>(value));
        overflow = overflow || __builtin_mul_overflow(elements, value, &elements);
    }

    const auto offsets = info.find("data_offsets");
    if (offsets == info.end()) fail(where + "missing data_offsets");
    if (!offsets->is_array() || offsets->size() != 2) fail(where + "data_offsets must be an array [begin, end]");
    entry.begin = offsetValue((*offsets)[0], where + "data_offsets[0]");
    entry.end = offsetValue((*offsets)[1], where + "data_offsets[1]");
    const std::string range = "data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) + "]";
    if (entry.begin > entry.end) fail(where + range + ": begin is after end");
    if (entry.end > dataBytes) {
        fail(where + range + " run past the end of the data section (" + std::to_string(dataBytes) + " bytes)");
    }

    std::uint64_t bytes = 0;
    overflow = overflow || __builtin_mul_overflow(elements, safeDTypeSize(entry.dtype), &bytes);
    if (overflow || bytes != entry.end - entry.begin) {
        fail(where + range + " hold " + std::to_string(entry.end - entry.begin) + " bytes, but " + std::string(safeDTypeName(entry.dtype)) +
             " " + shapeToString(entry.shape) + " needs " + (overflow ? std::string("more than 2^64") : std::to_string(bytes)));
    }
    return entry;
}

std::map<std::string, std::string> parseMetadata(const json& value, const std::string& fileName) {
    std::map<std::string, std::string> metadata;
    if (value.is_null()) return metadata;  // the reference reads null as "no metadata"
    if (!value.is_object()) fail(fileName + ": __metadata__ must be an object, got " + kindOf(value));
    for (const auto& [key, item] : value.items()) {
        if (!item.is_string()) fail(fileName + ": __metadata__." + key + ": value must be a string, got " + kindOf(item));
        metadata.emplace(key, item.get<std::string>());
    }
    return metadata;
}

// The data section must be covered exactly: no overlap, no gap, nothing after the last tensor.
void checkCoverage(const std::vector<HeaderEntry>& entries, std::uint64_t dataBytes, std::uint64_t dataStart, const std::string& fileName) {
    std::uint64_t covered = 0;
    const HeaderEntry* previous = nullptr;
    for (const HeaderEntry& entry : entries) {
        if (entry.begin < covered) {
            fail(fileName + ": " + entry.name + ": data_offsets [" + std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
                 "] overlap " + previous->name + " [" + std::to_string(previous->begin) + ", " + std::to_string(previous->end) + "]");
        }
        if (entry.begin > covered) {
            fail(fileName + ": byte offset " + std::to_string(dataStart + covered) + ": data bytes [" + std::to_string(covered) + ", " +
                 std::to_string(entry.begin) + ") belong to no tensor (before " + entry.name + ")");
        }
        covered = entry.end;
        previous = &entry;
    }
    if (covered < dataBytes) {
        fail(fileName + ": byte offset " + std::to_string(dataStart + covered) + ": " + std::to_string(dataBytes - covered) +
             " trailing bytes after the last tensor");
    }
}

}  // namespace

std::uint64_t readLittleEndian64(const std::byte* bytes) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) value = (value << 8) | std::to_integer<std::uint64_t>(bytes[i]);
    return value;
}

void checkHeaderLength(std::uint64_t headerBytes, std::uint64_t fileBytes, const std::string& fileName) {
    const std::uint64_t available = fileBytes - kLengthPrefixBytes;
    if (headerBytes > available) {
        fail(fileName + ": byte offset 0: header length " + std::to_string(headerBytes) + " points past the end of the file (" +
             std::to_string(fileBytes) + " bytes)");
    }
    if (headerBytes > kMaxHeaderBytes) {
        fail(fileName + ": byte offset 0: header length " + std::to_string(headerBytes) + " exceeds the limit of " +
             std::to_string(kMaxHeaderBytes) + " bytes");
    }
}

ParsedHeader parseHeader(std::string_view header, std::uint64_t dataBytes, const std::string& fileName) {
    std::string duplicateKey;
    const json root = parseJson(header, fileName, duplicateKey);
    if (!root.is_object()) {
        fail(fileName + ": byte offset " + std::to_string(kLengthPrefixBytes) + ": header must be a JSON object, got " + kindOf(root));
    }
    if (!duplicateKey.empty()) fail(fileName + ": " + duplicateKey + ": appears twice in the header");
    ParsedHeader parsed;
    for (const auto& [key, value] : root.items()) {
        if (key == "__metadata__") {
            parsed.metadata = parseMetadata(value, fileName);
        } else {
            parsed.entries.push_back(parseEntry(key, value, dataBytes, fileName));
        }
    }
    std::sort(parsed.entries.begin(), parsed.entries.end(),
              [](const HeaderEntry& a, const HeaderEntry& b) { return std::pair(a.begin, a.end) < std::pair(b.begin, b.end); });
    checkCoverage(parsed.entries, dataBytes, kLengthPrefixBytes + header.size(), fileName);
    return parsed;
}

}  // namespace safetensors_detail
}  // namespace distlab
