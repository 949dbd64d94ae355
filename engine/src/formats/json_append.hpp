#pragma once
// Fast JSON text building for the per-step writers (metrics, trace): appends to a reused string,
// so a line costs no allocation once the buffer has grown. Not a JSON library; just the leaves.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace distlab::json_append {

/// Appends the shortest text that reads back as exactly `value`; NaN and infinities become null.
inline void number(std::string& out, double value) {
    if (!std::isfinite(value)) {
        out += "null";
        return;
    }
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

/// Appends a decimal integer.
inline void integer(std::string& out, std::int64_t value) {
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, result.ptr);
}

/// Appends `text` as a quoted JSON string: escapes quotes, backslashes and control characters and
/// replaces bytes that are not valid UTF-8 with U+FFFD, so the output is always valid JSON.
void string(std::string& out, std::string_view text);

}  // namespace distlab::json_append
