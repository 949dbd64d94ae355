// libFuzzer target: the variable-lab script reader, and running what it accepts (small scripts).
#include "distlab/distribute/varlab_script.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    const auto script = parseVarlabScript(fuzz::asText(data, size), "fuzz.json");
    // Running is linear in replicas x ops x values; keep each input quick.
    if (script && script->replicas <= 16 && script->ops.size() <= 64) (void)runVarlabScript(*script);
    return 0;
}
