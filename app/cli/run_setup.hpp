#pragma once
// What the commands share: how an input error is reported and how number flags are parsed.
// (A command reads its CONFIG with the engine's loadRunConfig(path, overrides, "CONFIG").)
#include <optional>
#include <string>
#include <string_view>

namespace distlab::cli {

/// Prints "error: <message>" on stderr and returns exit code 2.
int inputError(const std::string& message);

/// Parses a non-negative integer flag value; nothing on failure.
std::optional<long long> parseCount(std::string_view text);
/// Parses a positive finite number; nothing on failure.
std::optional<double> parsePositive(std::string_view text);

}  // namespace distlab::cli
