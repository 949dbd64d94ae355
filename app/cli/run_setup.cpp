#include "run_setup.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace distlab::cli {

int inputError(const std::string& message) {
    std::fprintf(stderr, "error: %s\n", message.c_str());
    return 2;
}

std::optional<long long> parseCount(std::string_view text) {
    long long value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || ptr != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

std::optional<double> parsePositive(std::string_view text) {
    try {
        std::size_t used = 0;
        const double value = std::stod(std::string(text), &used);
        if (used != text.size() || !std::isfinite(value) || value <= 0) return std::nullopt;
        return value;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace distlab::cli
