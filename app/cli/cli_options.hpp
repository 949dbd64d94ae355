#pragma once
// Value checks for distlab-cli's options, as CLI11 validators: each names what it expects, so a bad
// value is reported as "--steps: expected an integer >= 0 (got "x")". Shared by every command.
#include <string>

#include <CLI/CLI.hpp>

namespace distlab::cli {

/// The largest step count a command takes: far past any run, far below overflow.
inline constexpr long long kMaxSteps = 1'000'000'000'000LL;

/// An integer in [least, most] (0 <= least).
CLI::Validator integerIn(long long least, long long most);
/// A finite number in (0, most].
CLI::Validator positiveUpTo(double most);
/// One of the given words.
CLI::Validator oneOf(std::initializer_list<const char*> words);

}  // namespace distlab::cli
