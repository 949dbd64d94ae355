// JSON text -> document with precise syntax errors, and typed reads with path-named messages.
#include "config/run_config_json_reader.hpp"

#include <distlab/core/error.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <unordered_set>
#include <vector>

namespace distlab::run_config_detail {
namespace {

// Longest part of nlohmann's "last read: '...'" text we repeat (an unterminated string can be huge).
constexpr std::size_t kMaxDetailChars = 200;

// Builds the document from SAX events, so that every error keeps its byte position (nlohmann's
// DOM parser reports a number overflow without one), a repeated key is caught and the depth bounded.
class DocumentBuilder {
public:
    DocumentBuilder(Json& root, const std::string& fileName) : m_root(root), m_fileName(fileName) {}

    bool null() { return add(Json(nullptr)); }
    bool boolean(bool value) { return add(Json(value)); }
    bool number_integer(Json::number_integer_t value) { return add(Json(value)); }
    bool number_unsigned(Json::number_unsigned_t value) { return add(Json(value)); }
    bool number_float(Json::number_float_t value, const std::string& /*text*/) { return add(Json(value)); }
    bool string(std::string& value) { return add(Json(std::move(value))); }
    bool binary(Json::binary_t& value) { return add(Json(std::move(value))); }
    bool start_object(std::size_t /*elements*/) { return open(Json::object()); }
    bool start_array(std::size_t /*elements*/) { return open(Json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& key) {
        Frame& frame = m_frames.back();
        frame.key = key;
        if (!frame.keys.insert(key).second) fail(m_fileName, path(m_frames.size()), "key appears twice in the same object");
        return true;
    }
    bool parse_error(std::size_t position, const std::string& /*token*/, const nlohmann::json::exception& error) {
        m_errorByte = position;
        m_errorText = error.what();
        return false;
    }

    std::size_t errorByte() const { return m_errorByte; }
    const std::string& errorText() const { return m_errorText; }

private:
    struct Frame {
        Json* container = nullptr;
        std::string key;  // objects: the key of the value being read
        std::unordered_set<std::string> keys;
    };

    Json* add(Json value) {
        if (m_frames.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Frame& frame = m_frames.back();
        if (frame.container->is_array()) {
            frame.container->push_back(std::move(value));
            return &frame.container->back();
        }
        Json& slot = (*frame.container)[frame.key];
        slot = std::move(value);
        return &slot;
    }
    bool open(Json container) {
        Json* placed = add(std::move(container));
        m_frames.push_back(Frame{placed, {}, {}});
        if (m_frames.size() > static_cast<std::size_t>(kMaxJsonDepth)) {
            fail(m_fileName, path(m_frames.size() - 1), "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        return true;
    }
    bool close() {
        m_frames.pop_back();
        return true;
    }
    // The path of the value being read in the count-th open container (count >= 1), or of the
    // innermost container itself when count is one less than the depth.
    std::string path(std::size_t count) const {
        std::string result;
        for (std::size_t i = 0; i < count; ++i) {
            const Frame& frame = m_frames[i];
            result = frame.container->is_array() ? indexPath(result, frame.container->size() - 1) : childPath(result, frame.key);
        }
        return result;
    }

    Json& m_root;
    const std::string& m_fileName;
    std::vector<Frame> m_frames;
    std::size_t m_errorByte = 0;
    std::string m_errorText;
};

// nlohmann quotes the bytes it last read, which may be broken UTF-8: keep the message printable.
std::string escapeHighBytes(const std::string& text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x80) {
            out += c;
        } else {
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 15];
        }
    }
    return out;
}

std::string syntaxMessage(std::string_view text, std::size_t byte, const std::string& what) {
    // byte counts the characters read, the offending one included: its index is byte - 1.
    const std::size_t index = std::min<std::size_t>(byte > 0 ? byte - 1 : 0, text.size());
    const std::string_view before = text.substr(0, index);
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const std::size_t lineStart = before.rfind('\n');
    const std::size_t column = lineStart == std::string_view::npos ? index + 1 : index - lineStart;

    // what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..."
    // or "[json.exception.out_of_range.406] number overflow parsing '1e400'"; drop nlohmann's prefix
    // and position.
    std::string detail = what;
    if (const std::size_t bracket = detail.find("] "); bracket != std::string::npos) detail = detail.substr(bracket + 2);
    if (detail.starts_with("parse error")) {
        if (const std::size_t colon = detail.find(": "); colon != std::string::npos) detail = detail.substr(colon + 2);
    }
    if (detail.starts_with("syntax error ")) detail = "syntax error: " + detail.substr(13);
    if (detail.size() > kMaxDetailChars) detail = detail.substr(0, kMaxDetailChars) + "...";
    detail = escapeHighBytes(detail);
    return "byte " + std::to_string(byte) + " (line " + std::to_string(line) + ", column " + std::to_string(column) + "): " + detail;
}

std::size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string formatNumber(const Json& value) { return dumpJson(value); }

}  // namespace

Json parseJsonDocument(std::string_view text, const std::string& fileName) {
    Json document;
    DocumentBuilder builder(document, fileName);
    if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
        throw InputError((fileName.empty() ? std::string("config") : fileName) + ": " +
                         syntaxMessage(text, builder.errorByte(), builder.errorText()));
    }
    return document;
}

std::string dumpJson(const Json& value) { return value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string childPath(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string indexPath(const std::string& path, std::size_t index) { return path + "[" + std::to_string(index) + "]"; }

std::string quotedJson(std::string_view text) {
    return Json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string describeType(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            return "null";
        case Json::value_t::boolean:
            return "a boolean";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
        case Json::value_t::number_float:
            return "a number";
        case Json::value_t::string:
            return "a string";
        case Json::value_t::array:
            return "an array";
        case Json::value_t::object:
            return "an object";
        default:
            return "an unsupported value";
    }
}

std::string closestName(std::string_view text, std::span<const std::string_view> candidates) {
    // Close enough: a typo or two, scaled down for short names so "lr" does not match "name".
    const std::size_t allowed = std::clamp<std::size_t>(text.size() / 3, 1, 3);
    std::string best;
    std::size_t bestDistance = allowed + 1;
    for (std::string_view candidate : candidates) {
        const std::size_t distance = editDistance(text, candidate);
        if (distance < bestDistance) {
            bestDistance = distance;
            best = std::string(candidate);
        }
    }
    return best;
}

void fail(const std::string& fileName, const std::string& path, const std::string& what) {
    const std::string file = fileName.empty() ? std::string("config") : fileName;
    // A path holds keys from the file, which may be megabytes long: the message stays one readable line.
    constexpr std::size_t kMaxPathChars = 256;
    const std::string shown =
        path.size() <= kMaxPathChars ? path : path.substr(0, kMaxPathChars) + "...(" + std::to_string(path.size()) + " characters)";
    throw InputError(file + ": " + (path.empty() ? std::string("top level") : shown) + ": " + what);
}

std::int64_t readInteger(const Json& value, const std::string& path, const std::string& fileName) {
    if (value.is_number_integer() && !value.is_number_unsigned()) return value.get<std::int64_t>();
    if (value.is_number_unsigned()) {
        const auto number = value.get<std::uint64_t>();
        if (number > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            fail(fileName, path, "must be an integer below 2^63 (got " + formatNumber(value) + ")");
        }
        return static_cast<std::int64_t>(number);
    }
    if (value.is_number_float()) {
        // 1000.0 and 1e3 are integers written as floats (JavaScript tools do that); 2.5 is not.
        const double number = value.get<double>();
        if (std::isfinite(number) && std::floor(number) == number && std::fabs(number) <= 9007199254740992.0) {
            return static_cast<std::int64_t>(number);
        }
        if (!std::isfinite(number)) fail(fileName, path, "must be an integer (got an out-of-range number)");
        fail(fileName, path, "must be an integer (got " + formatNumber(value) + ")");
    }
    fail(fileName, path, "must be an integer (got " + describeType(value) + ")");
}

std::uint64_t readUnsigned(const Json& value, const std::string& path, const std::string& fileName) {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer()) {
        fail(fileName, path, "must be a non-negative integer (got " + formatNumber(value) + ")");
    }
    const std::int64_t number = readInteger(value, path, fileName);
    if (number < 0) fail(fileName, path, "must be a non-negative integer (got " + formatNumber(value) + ")");
    return static_cast<std::uint64_t>(number);
}

double readNumber(const Json& value, const std::string& path, const std::string& fileName) {
    if (!value.is_number()) fail(fileName, path, "must be a number (got " + describeType(value) + ")");
    const double number = value.get<double>();
    if (!std::isfinite(number)) fail(fileName, path, "must be a finite number (got an out-of-range number)");
    return number;
}

bool readBoolean(const Json& value, const std::string& path, const std::string& fileName) {
    if (!value.is_boolean()) fail(fileName, path, "must be true or false (got " + describeType(value) + ")");
    return value.get<bool>();
}

std::string readString(const Json& value, const std::string& path, const std::string& fileName) {
    if (!value.is_string()) fail(fileName, path, "must be a string (got " + describeType(value) + ")");
    return value.get<std::string>();
}

std::size_t readChoice(const Json& value, std::span<const std::string_view> candidates, const std::string& path,
                       const std::string& fileName) {
    const std::string text = readString(value, path, fileName);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (candidates[i] == text) return i;
    }
    std::string list;
    for (std::string_view candidate : candidates) list += (list.empty() ? "" : ", ") + std::string(candidate);
    const std::string suggestion = closestName(text, candidates);
    fail(fileName, path,
         "unknown value " + quotedJson(text) + (suggestion.empty() ? "" : " (did you mean " + quotedJson(suggestion) + "?)") +
             "; expected one of: " + list);
}

ObjectReader::ObjectReader(const Json& value, std::string path, const std::string& fileName)
    : m_value(value), m_path(std::move(path)), m_fileName(fileName) {
    if (!value.is_object()) run_config_detail::fail(m_fileName, m_path, "must be an object (got " + describeType(value) + ")");
}

void ObjectReader::allowOnly(std::initializer_list<std::string_view> allowed) const {
    for (const auto& item : m_value.items()) {
        const std::string& key = item.key();
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
        const std::span<const std::string_view> candidates(allowed.begin(), allowed.size());
        const std::string suggestion = closestName(key, candidates);
        if (!suggestion.empty()) fail(key, "unknown key (did you mean " + quotedJson(suggestion) + "?)");
        std::string list;
        for (std::string_view name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
        fail(key, "unknown key (expected one of: " + list + ")");
    }
}

const Json* ObjectReader::find(std::string_view key) const {
    const auto it = m_value.find(key);
    return it == m_value.end() ? nullptr : &*it;
}

void ObjectReader::fail(std::string_view key, const std::string& what) const { run_config_detail::fail(m_fileName, pathOf(key), what); }

std::int64_t ObjectReader::integer(std::string_view key, std::int64_t fallback) const {
    const Json* value = find(key);
    return value == nullptr ? fallback : readInteger(*value, pathOf(key), m_fileName);
}

std::uint64_t ObjectReader::unsignedInteger(std::string_view key, std::uint64_t fallback) const {
    const Json* value = find(key);
    return value == nullptr ? fallback : readUnsigned(*value, pathOf(key), m_fileName);
}

double ObjectReader::number(std::string_view key, double fallback) const {
    const Json* value = find(key);
    return value == nullptr ? fallback : readNumber(*value, pathOf(key), m_fileName);
}

bool ObjectReader::boolean(std::string_view key, bool fallback) const {
    const Json* value = find(key);
    return value == nullptr ? fallback : readBoolean(*value, pathOf(key), m_fileName);
}

std::string ObjectReader::string(std::string_view key, const std::string& fallback) const {
    const Json* value = find(key);
    return value == nullptr ? fallback : readString(*value, pathOf(key), m_fileName);
}

}  // namespace distlab::run_config_detail
