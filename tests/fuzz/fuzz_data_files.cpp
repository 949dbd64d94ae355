// libFuzzer targets: the CSV and IDX readers (plain and gzip), through loadData as a run reads them.
// Built twice: DISTLAB_FUZZ_IDX selects the IDX images reader, otherwise the CSV reader.
#include <algorithm>

#include "distlab/data/dataset.hpp"
#include "fuzz_support.hpp"

namespace {
// An IDX labels file with `count` labels of 0, for whatever count the fuzzed images header announces.
std::string labelsFor(const std::uint8_t* images, std::size_t size) {
    std::uint32_t count = 0;
    if (size >= 8)
        count = (std::uint32_t{images[4]} << 24) | (std::uint32_t{images[5]} << 16) | (std::uint32_t{images[6]} << 8) | images[7];
    count = std::min<std::uint32_t>(count, 1u << 16);
    std::string labels = {0, 0, 8, 1, char(count >> 24), char(count >> 16), char(count >> 8), char(count)};
    return labels + std::string(count, '\0');
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace distlab;
    DataConfig config;
    config.trainFraction = 0.8;
#ifdef DISTLAB_FUZZ_IDX
    config.source = DataSource::Idx;
    config.images = fuzz::scratchFile("-images.idx", fuzz::asText(data, size));
    config.labels = fuzz::scratchFile("-labels.idx", labelsFor(data, size));
#else
    config.source = DataSource::Csv;
    config.path = fuzz::scratchFile(".csv", fuzz::asText(data, size));
#endif
    DataExpectations expect;
    expect.classes = 10;
    const auto split = loadData(config, expect, /*seed=*/1, /*baseDirectory=*/"");
    if (split) fuzz::require(split->train.count + split->test.count > 0, "data accepted with no samples");
    return 0;
}
