// libFuzzer target: the run-config reader. Any text gives a config or an error, never a crash; a
// config it accepts is written back and read again to the same JSON (the writer and reader agree).
#include "distlab/config/run_config_json.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    const std::string_view text = fuzz::asText(data, size);
    const auto config = parseRunConfig(text, "fuzz.json");
    // --set edits the text before it is parsed: the same text through that path.
    (void)applyOverrides(text, {"steps=3", "optimizer.learning_rate=0.5"}, "fuzz.json");
    if (!config) return 0;
    const std::string written = runConfigToJson(*config);
    const auto again = parseRunConfig(written, "written.json");
    fuzz::require(again.ok(), "a config the reader accepted is not accepted once written");
    fuzz::require(runConfigToJson(*again) == written, "writing a config twice gives different JSON");
    return 0;
}
