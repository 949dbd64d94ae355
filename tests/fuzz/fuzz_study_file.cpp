// libFuzzer target: the study reader. Any text gives a study or an error naming the field, never a
// crash; a study it accepts is written back (studyToJson, what the app's Save study writes) and
// read again to the same JSON. The seeds carry their base config inline: paths resolve against a
// folder that does not exist, so a study naming config files is an error, not a file read.
#include "distlab/study/study.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    const std::string text(fuzz::asText(data, size));
    const std::string nowhere = "/nonexistent/distlab-fuzz";
    const auto study = parseStudy(text, "fuzz.study.json", nowhere);
    if (!study) {
        fuzz::require(!study.error().message.empty(), "a refused study without a message");
        return 0;
    }
    fuzz::require(study->variants.size() >= 2 && study->variants.size() <= 6,
                  "a study of fewer than 2 or more than 6 variants was accepted");
    fuzz::require(study->baseline() >= 0 && study->baseline() < static_cast<int>(study->variants.size()), "the baseline is not a variant");
    const std::string written = studyToJson(study->spec);
    const auto again = parseStudy(written, "written.study.json", nowhere);
    fuzz::require(again.ok(), "a study the reader accepted is not accepted once written");
    fuzz::require(studyToJson(again->spec) == written, "writing a study twice gives different JSON");
    return 0;
}
