#include "cli_options.hpp"

#include <vector>

#include "run_setup.hpp"

namespace distlab::cli {
namespace {
std::string got(const std::string& text) {
    constexpr std::size_t kShown = 40;  // a pasted blob is not echoed whole
    return " (got \"" + (text.size() > kShown ? text.substr(0, kShown) + "…" : text) + "\")";
}
}  // namespace

CLI::Validator integerIn(long long least, long long most) {
    const std::string expected = "expected an integer in [" + std::to_string(least) + ", " + std::to_string(most) + "]";
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            const auto value = parseCount(text);  // non-negative integers only
            return value && *value >= least && *value <= most ? std::string() : expected + got(text);
        },
        "", "integerIn");
}

CLI::Validator positiveUpTo(double most) {
    const std::string expected = "expected a number > 0 and <= " + CLI::detail::to_string(most);
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            const auto value = parsePositive(text);
            return value && *value <= most ? std::string() : expected + got(text);
        },
        "", "positiveUpTo");
}

CLI::Validator oneOf(std::initializer_list<const char*> words) {
    std::vector<std::string> list(words.begin(), words.end());
    std::string expected = "expected one of ";
    for (std::size_t i = 0; i < list.size(); ++i) expected += (i ? ", " : "") + list[i];
    return CLI::Validator(
        [=](std::string& text) -> std::string {
            for (const std::string& word : list)
                if (text == word) return "";
            return expected + got(text);
        },
        "", "oneOf");
}

}  // namespace distlab::cli
