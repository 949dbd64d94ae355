#pragma once
// Helpers that read a JSON document into the run config with messages of the form
// "<file>: <json.path>: <what is wrong>". Every failure throws InputError; the public functions
// turn it into an Error with captureErrors.
#include "config/run_config_enum_names.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

namespace distlab::run_config_detail {

// ordered_json keeps the document's key order, so errors come in reading order and the writer's
// order is the one we chose.
using Json = nlohmann::ordered_json;

/// Deeper nesting than this is refused (nlohmann's dump and copy recurse; the config needs 4).
inline constexpr int kMaxJsonDepth = 64;

/// Parses JSON text. Syntax errors ("byte B (line L, column C): syntax error: ..."), a key that
/// appears twice in one object and nesting deeper than kMaxJsonDepth throw InputError.
Json parseJsonDocument(std::string_view text, const std::string& fileName);

/// Serialises with 2-space indent; invalid UTF-8 in strings is replaced instead of throwing.
std::string dumpJson(const Json& value);

std::string childPath(const std::string& path, std::string_view key);  ///< "a.b" (or "b" at the top)
std::string indexPath(const std::string& path, std::size_t index);     ///< "a.b[3]"
std::string quotedJson(std::string_view text);                         ///< a JSON string literal
std::string describeType(const Json& value);                           ///< "a string", "an array", ...
/// The candidate closest to text (case-insensitive edit distance), or "" when none is close.
std::string closestName(std::string_view text, std::span<const std::string_view> candidates);

/// Throws InputError("<fileName>: <path>: <what>"); path "" names the whole document.
[[noreturn]] void fail(const std::string& fileName, const std::string& path, const std::string& what);

std::int64_t readInteger(const Json& value, const std::string& path, const std::string& fileName);
std::uint64_t readUnsigned(const Json& value, const std::string& path, const std::string& fileName);
double readNumber(const Json& value, const std::string& path, const std::string& fileName);
bool readBoolean(const Json& value, const std::string& path, const std::string& fileName);
std::string readString(const Json& value, const std::string& path, const std::string& fileName);
/// A string naming one entry of candidates; returns its position in candidates.
std::size_t readChoice(const Json& value, std::span<const std::string_view> candidates, const std::string& path,
                       const std::string& fileName);

/// Sets the value at `keyPath` ("optimizer.learning_rate", "model.layers[1].units") of `document`:
/// the one implementation behind `--set` and a study's variant overrides (docs/interfaces.md §1.10).
/// Missing objects on the path are created, an index equal to an array's size appends, and setting
/// strategy.replicas drops strategy.devices (and the reverse). Returns false when keyPath is
/// malformed (the caller says what it expected); any other problem throws InputError
/// "<fileName>: <where>: <what>".
bool setAtKeyPath(Json& document, std::string_view keyPath, Json value, const std::string& fileName, const std::string& where);

/// One JSON object of the config: key checks and typed reads with defaults.
class ObjectReader {
public:
    /// Fails unless value is an object.
    ObjectReader(const Json& value, std::string path, const std::string& fileName);

    /// Fails on the first key not in allowed, suggesting the closest allowed one.
    void allowOnly(std::initializer_list<std::string_view> allowed) const;
    const Json* find(std::string_view key) const;
    bool has(std::string_view key) const { return find(key) != nullptr; }
    std::string pathOf(std::string_view key) const { return childPath(m_path, key); }
    const std::string& path() const { return m_path; }
    const std::string& fileName() const { return m_fileName; }
    [[noreturn]] void fail(std::string_view key, const std::string& what) const;

    std::int64_t integer(std::string_view key, std::int64_t fallback) const;
    std::uint64_t unsignedInteger(std::string_view key, std::uint64_t fallback) const;
    double number(std::string_view key, double fallback) const;
    bool boolean(std::string_view key, bool fallback) const;
    std::string string(std::string_view key, const std::string& fallback) const;

    template <typename E, std::size_t N>
    E choice(std::string_view key, E fallback, const std::array<EnumName<E>, N>& table) const {
        const Json* value = find(key);
        if (value == nullptr) return fallback;
        std::array<std::string_view, N> names{};
        for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
        return table[readChoice(*value, names, pathOf(key), m_fileName)].value;
    }

private:
    const Json& m_value;
    std::string m_path;
    const std::string& m_fileName;
};

}  // namespace distlab::run_config_detail
